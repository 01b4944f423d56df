// The bridge's consensus side: quorum attestations applied once, withdrawal signatures checked
// against the digest ethers computes for the contract's EIP-712 type, refunds, snapshots, and a
// property test that USDC is conserved and refused input changes nothing.
import { TypedDataEncoder, Wallet, solidityPackedKeccak256 } from 'ethers';
import fc from 'fast-check';
import t from 'tap';
import { bytesToHex, canonicalize } from '../../primitives/index.ts';
import { contractQuorum, restoreExchange, snapshotState, stateHash, validatorSetDigest, wantedSet, withdrawalDigest, type Withdrawal } from '../../exchange/index.ts';
import { devnetGenesis, loadGenesis, type GenesisFile } from '../../genesis/index.ts';
import { Harness, USERS, usdcTotal } from '../support/exchange.ts';
import { replaySeed } from '../support/seed.ts';

const SIGNERS = Array.from({ length: 4 }, (_, i) => new Wallet(`0x${(i + 1).toString(16).padStart(64, '0')}`));
const KEYS = ['11', '22', '33', '44'].map((b) => b.repeat(32));
const CONTRACT = '0x00000000000000000000000000000000000000bb';
const CHAIN = 42161;
/** The set the contract was deployed with: today's four validators. */
const SET = (() => {
  const signers = SIGNERS.map((w) => w.address.toLowerCase()).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  return { nonce: 0, signers, powers: signers.map(() => 1) };
})();

function genesis(powers = [1, 1, 1, 1]): GenesisFile {
  return { ...devnetGenesis(), validators: KEYS.map((pubKey, i) => ({ pubKey, power: powers[i] as number, bridgeSigner: SIGNERS[i]!.address })) };
}

function harness(powers?: number[]): Harness {
  const h = new Harness(genesis(powers));
  for (const v of KEYS) h.bridge([{ kind: 'chain', chainId: CHAIN, contract: CONTRACT, set: SET }], [], v);
  return h;
}

const deposit = (depositId: number, user: string, amount: string) => ({ kind: 'deposit', chainId: CHAIN, depositId, user, amount, txHash: `0x${'ab'.repeat(32)}` });

/** The state without the block's height and time (a refused submission still takes a block). */
function contentHash(h: Harness): string {
  const { height: _h, time: _t, ...rest } = snapshotState(h.ex.state) as Record<string, unknown>;
  return canonicalize(rest);
}

function sign(h: Harness, w: Withdrawal, i: number): { withdrawalId: string; signature: string } {
  const chain = h.ex.state.bridge.chains.get(w.chainId)!;
  return { withdrawalId: w.withdrawalId, signature: SIGNERS[i]!.signingKey.sign(withdrawalDigest(h.ex.state.config.bridge.serviceChainId, chain, w)).serialized };
}

t.test('the withdrawal digest is the EIP-712 hash ethers computes for the contract type', async (t) => {
  const w = { withdrawalId: `0x${'12'.repeat(32)}`, destination: '0x000000000000000000000000000000000000dead', amount: 123_450_000n * 100n, deadline: 1_800_000_000 };
  const ours = bytesToHex(withdrawalDigest(42069, { chainId: CHAIN, contract: CONTRACT }, w));
  const theirs = TypedDataEncoder.hash(
    { name: 'SvcBridge', version: '1', chainId: CHAIN, verifyingContract: CONTRACT },
    { Withdrawal: [{ name: 'serviceChainId', type: 'uint64' }, { name: 'id', type: 'bytes32' }, { name: 'destination', type: 'address' }, { name: 'amount', type: 'uint256' }, { name: 'deadline', type: 'uint64' }] },
    { serviceChainId: 42069, id: w.withdrawalId, destination: w.destination, amount: 123_450_000n, deadline: w.deadline },
  );
  t.equal(ours, theirs);
});

t.test('a chain registers, and a deposit credits, once validators with more than 2/3 of the power attested it', async (t) => {
  const h = new Harness(genesis());
  const chain = { kind: 'chain', chainId: CHAIN, contract: CONTRACT, set: SET };
  h.bridge([chain], [], KEYS[0]);
  h.bridge([chain], [], KEYS[1]);
  t.equal(h.ex.state.bridge.chains.size, 0, '2 of 4 is no quorum');
  h.bridge([chain], [], KEYS[2]);
  t.same([...h.ex.state.bridge.chains.values()], [{ chainId: CHAIN, contract: CONTRACT, set: SET }]);
  const user = '0x00000000000000000000000000000000000000c1';
  const total = usdcTotal(h.ex.state);
  const d = deposit(0, user, '5000000');
  // A byzantine validator's conflicting version of the same deposit never gathers a quorum.
  h.bridge([deposit(0, user, '9000000')], [], KEYS[3]);
  for (const v of KEYS.slice(0, 2)) h.bridge([d], [], v);
  t.equal(h.ex.state.accounts.get(user), undefined, 'not yet');
  const out = h.bridge([d], [], KEYS[2]);
  t.same(out.outcome, { applied: 1, noted: 0, refused: [] });
  t.equal(h.ex.state.accounts.get(user)?.usdc, 500_000_000n, '5 USDC (6 decimals) is 5e8 USD units');
  h.bridge([d], [], KEYS[3]);
  h.bridge([d, deposit(0, user, '9000000')], [], KEYS[0]);
  t.equal(h.ex.state.accounts.get(user)?.usdc, 500_000_000n, 'repeated and conflicting attestations credit nothing more');
  t.equal(usdcTotal(h.ex.state), total, 'conserved: the deposit came in from the bridge');
  t.ok(h.ex.state.bridge.depositDone(CHAIN, 0));
  // Weighted: with powers 1, 1, 1, 3 the big validator and one other make a quorum (4 of 6 is not more than 2/3; 5 is).
  const w = harness([1, 1, 1, 3]);
  w.bridge([deposit(7, user, '1')], [], KEYS[3]);
  w.bridge([deposit(7, user, '1')], [], KEYS[0]);
  t.equal(w.ex.state.accounts.get(user), undefined, '4 of 6');
  w.bridge([deposit(7, user, '1')], [], KEYS[1]);
  t.equal(w.ex.state.accounts.get(user)?.usdc, 100n, '5 of 6');
});

t.test('refused submissions change nothing', async (t) => {
  const h = harness();
  const before = contentHash(h);
  t.match(h.bridge([deposit(0, USERS[0]!, '1')], [], 'ff'.repeat(32)).result, { status: 'err', error: { message: /unknown validator/ } });
  const out = h.bridge([{ kind: 'deposit', chainId: 1, depositId: 0, user: USERS[0], amount: '1', txHash: `0x${'00'.repeat(32)}` }, { kind: 'nope' }, 'x', deposit(0, USERS[0]!, '0')], [{ withdrawalId: `0x${'00'.repeat(32)}`, signature: '0x' }], KEYS[0]);
  t.equal(out.outcome?.refused.length, 5);
  t.equal(contentHash(h), before, 'the state is as it was');
});

t.test('withdrawal: pending, signed on a quorum of valid signatures, completed once attested paid', async (t) => {
  const h = harness();
  const user = USERS[0]!;
  const before = h.ex.state.accounts.get(user)!.usdc;
  const out = h.tx(user, { type: 'withdraw', destination: '0x000000000000000000000000000000000000dead', amount: '100.5' });
  t.match(out.result, { status: 'ok', response: { type: 'withdraw', data: { amount: '99.5', fee: '1', status: 'pending' } } });
  const w = [...h.ex.state.bridge.withdrawals.values()][0]!;
  t.equal(w.chainId, CHAIN);
  t.equal(h.ex.state.accounts.get(user)!.usdc, before - 10_050_000_000n);
  // A signature by another key, or over another withdrawal, does not count.
  const forged = { withdrawalId: w.withdrawalId, signature: SIGNERS[1]!.signingKey.sign(withdrawalDigest(42069, { chainId: CHAIN, contract: CONTRACT }, w)).serialized };
  t.match(h.bridge([], [forged], KEYS[0]).outcome, { refused: [/is not 0x/] });
  h.bridge([], [sign(h, w, 0)], KEYS[0]);
  h.bridge([], [sign(h, w, 1)], KEYS[1]);
  t.equal(w.status, 'pending');
  h.bridge([], [sign(h, w, 2)], KEYS[2]);
  t.equal(w.status, 'signed');
  t.equal(w.signatures.size, 3);
  const paid = { kind: 'withdrawalPaid', withdrawalId: w.withdrawalId, txHash: `0x${'cd'.repeat(32)}` };
  for (const v of KEYS.slice(0, 3)) h.bridge([paid], [], v);
  t.equal(w.status, 'completed');
  t.equal(h.ex.state.bridge.paidOut, 9_950_000_000n);
  const expired = { kind: 'withdrawalExpired', withdrawalId: w.withdrawalId };
  for (const v of KEYS) h.bridge([expired], [], v);
  t.equal(w.status, 'completed', 'a completed withdrawal is never refunded');
  t.equal(h.ex.state.accounts.get(user)!.usdc, before - 10_050_000_000n);
});

t.test('withdrawal past its deadline unpaid: refunded whole, once; no signatures after the deadline', async (t) => {
  const h = harness();
  const user = USERS[1]!;
  const before = h.ex.state.accounts.get(user)!.usdc;
  h.tx(user, { type: 'withdraw', destination: '0x000000000000000000000000000000000000dead', amount: '20' });
  const w = [...h.ex.state.bridge.withdrawals.values()][0]!;
  h.idle((w.deadline + 1) * 1000 - h.time);
  t.match(h.bridge([], [sign(h, w, 0)], KEYS[0]).outcome, { refused: [/past its deadline/] });
  const expired = { kind: 'withdrawalExpired', withdrawalId: w.withdrawalId };
  for (const v of KEYS) h.bridge([expired], [], v);
  t.equal(w.status, 'refunded');
  t.equal(h.ex.state.accounts.get(user)!.usdc, before, 'amount and fee returned');
  t.equal(h.ex.state.bridgeFees, 0n);
  t.equal(h.ex.state.bridge.refunded, 2_000_000_000n);
});

t.test('snapshots keep chains, votes, deposits, withdrawals and signatures', async (t) => {
  const h = harness();
  h.bridge([deposit(0, USERS[0]!, '7')], [], KEYS[0]);
  for (const v of KEYS.slice(0, 3)) h.bridge([deposit(1, USERS[0]!, '8')], [], v);
  h.tx(USERS[0]!, { type: 'withdraw', destination: '0x000000000000000000000000000000000000dead', amount: '15' });
  const w = [...h.ex.state.bridge.withdrawals.values()][0]!;
  h.bridge([], [sign(h, w, 3)], KEYS[3]);
  const cfg = loadGenesis(genesis()).exchange;
  const restored = restoreExchange(cfg, snapshotState(h.ex.state));
  t.equal(stateHash(restored.state), stateHash(h.ex.state));
  t.equal(restored.state.bridge.votes.size, 1);
  t.ok(restored.state.bridge.depositDone(CHAIN, 1));
  t.notOk(restored.state.bridge.depositDone(CHAIN, 0));
  t.same([...restored.state.bridge.withdrawals.values()][0]!.signatures, w.signatures);
});

t.test('property: deposits, transfers, withdrawals, signatures, payouts and refunds conserve USDC; refused input changes nothing', async (t) => {
  const seed = replaySeed(t, 20261125);
  const op = fc.oneof(
    fc.record({ kind: fc.constant('deposit' as const), id: fc.nat(30), user: fc.nat(4), amount: fc.bigInt(0n, 10n ** 12n), voters: fc.subarray([0, 1, 2, 3]) }),
    fc.record({ kind: fc.constant('withdraw' as const), user: fc.nat(4), amount: fc.oneof(fc.integer({ min: 0, max: 2_000_000 }).map(String), fc.constantFrom('9.999999', '10', '1e3', '-5', '10.1234567', 'abc')) }),
    fc.record({ kind: fc.constant('sign' as const), pick: fc.nat(), voters: fc.subarray([0, 1, 2, 3]), forge: fc.boolean() }),
    fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), paid: fc.boolean(), voters: fc.subarray([0, 1, 2, 3]) }),
    fc.record({ kind: fc.constant('garbage' as const), voter: fc.nat(3), item: fc.anything() }),
    fc.record({ kind: fc.constant('time' as const), seconds: fc.integer({ min: 1, max: 200_000 }) }),
    fc.record({ kind: fc.constant('transfer' as const), from: fc.nat(4), to: fc.nat(4), amount: fc.constantFrom('0.01', '5', '250', '1000000', '-1', '0') }),
  );
  fc.assert(fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
    const h = harness();
    const total = usdcTotal(h.ex.state);
    const users = [...USERS.slice(0, 4), '0x00000000000000000000000000000000000000c9'];
    for (const o of ops) {
      if (o.kind === 'deposit') {
        for (const v of o.voters) h.bridge([deposit(o.id, users[o.user]!, o.amount.toString())], [], KEYS[v]);
      } else if (o.kind === 'withdraw') {
        const acct = h.ex.state.accounts.get(users[o.user]!);
        const usdc = acct?.usdc;
        const [n, fees] = [h.ex.state.bridge.withdrawals.size, h.ex.state.bridgeFees];
        const out = h.tx(users[o.user]!, { type: 'withdraw', destination: '0x000000000000000000000000000000000000dead', amount: o.amount });
        // A refused withdrawal uses its nonce and request budget like any action; it moves no money.
        if (out.result.status === 'err' && (acct?.usdc !== usdc || h.ex.state.bridge.withdrawals.size !== n || h.ex.state.bridgeFees !== fees)) {
          throw new Error(`refused withdrawal of ${o.amount} moved money`);
        }
      } else if (o.kind === 'sign' || o.kind === 'settle') {
        const list = [...h.ex.state.bridge.withdrawals.values()];
        const w = list[o.pick % Math.max(1, list.length)];
        if (w === undefined) continue;
        for (const v of o.voters) {
          if (o.kind === 'sign') h.bridge([], [sign(h, w, o.forge ? (v + 1) % 4 : v)], KEYS[v]);
          else h.bridge([o.paid ? { kind: 'withdrawalPaid', withdrawalId: w.withdrawalId, txHash: `0x${'ee'.repeat(32)}` } : { kind: 'withdrawalExpired', withdrawalId: w.withdrawalId }], [], KEYS[v]);
        }
      } else if (o.kind === 'garbage') {
        h.bridge([], [], KEYS[o.voter]); // an empty submission first: it prunes what is stale by now
        const before = contentHash(h);
        const out = h.bridge([o.item], [o.item], KEYS[o.voter]);
        if (out.outcome !== null && out.outcome.applied === 0 && out.outcome.noted === 0 && contentHash(h) !== before) {
          throw new Error(`refused garbage changed the state: ${JSON.stringify(o.item)}`);
        }
      } else if (o.kind === 'transfer') {
        h.tx(users[o.from]!, { type: 'usdTransfer', destination: users[o.to]!, amount: o.amount });
      } else h.idle(o.seconds * 1000);
      if (usdcTotal(h.ex.state) !== total) throw new Error(`USDC not conserved after ${JSON.stringify(o, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
      for (const a of h.ex.state.accounts.values()) if (a.usdc < 0n) throw new Error(`negative balance ${a.address}`);
    }
  }), { seed, numRuns: 150 });
});

t.test("the contract's validator set follows the validators: signed by a quorum of the old set, recorded when attested", async (t) => {
  const h = new Harness(genesis());
  // Deployed before the fourth validator joined: three signers.
  const old = { nonce: 0, signers: SET.signers.filter((s) => s !== SIGNERS[3]!.address.toLowerCase()), powers: [1, 1, 1] };
  for (const v of KEYS) h.bridge([{ kind: 'chain', chainId: CHAIN, contract: CONTRACT, set: old }], [], v);
  const chain = h.ex.state.bridge.chains.get(CHAIN)!;
  const target = wantedSet(h.ex.state, chain)!;
  t.same(target, { nonce: 1, signers: SET.signers, powers: [1, 1, 1, 1] });
  // The digest is ethers' EIP-712 hash of the contract's ValidatorSet type.
  const theirs = TypedDataEncoder.hash(
    { name: 'SvcBridge', version: '1', chainId: CHAIN, verifyingContract: CONTRACT },
    { ValidatorSet: [{ name: 'serviceChainId', type: 'uint64' }, { name: 'nonce', type: 'uint64' }, { name: 'signersHash', type: 'bytes32' }, { name: 'powersHash', type: 'bytes32' }] },
    { serviceChainId: 42069, nonce: 1, signersHash: solidityPackedKeccak256(['address[]'], [target.signers]), powersHash: solidityPackedKeccak256(['uint256[]'], [target.powers]) },
  );
  const digest = validatorSetDigest(42069, chain, target);
  t.equal(bytesToHex(digest), theirs);
  const sig = (i: number) => ({ chainId: CHAIN, nonce: 1, signature: SIGNERS[i]!.signingKey.sign(digest).serialized });
  t.match(h.bridge([], [{ chainId: CHAIN, nonce: 2, signature: sig(0).signature }], KEYS[0]).outcome, { refused: [/not the next one/] });
  t.match(h.bridge([], [sig(1)], KEYS[0]).outcome, { refused: [/is not 0x/] });
  h.bridge([], [sig(3)], KEYS[3]); // the new validator's signature counts for nothing on the old contract
  h.bridge([], [sig(0)], KEYS[0]);
  const update = h.ex.state.bridge.setUpdates.get(CHAIN)!;
  t.notOk(contractQuorum(h.ex.state, chain.set, update.signatures), 'one of the three old signers and the new one: no quorum');
  h.bridge([], [sig(1)], KEYS[1]);
  h.bridge([], [sig(2)], KEYS[2]);
  t.ok(contractQuorum(h.ex.state, chain.set, update.signatures), 'three of the three old signers');
  const restored = restoreExchange(loadGenesis(genesis()).exchange, snapshotState(h.ex.state));
  t.equal(stateHash(restored.state), stateHash(h.ex.state), 'snapshots keep the update and its signatures');
  for (const v of KEYS.slice(0, 3)) h.bridge([{ kind: 'setUpdated', chainId: CHAIN, set: target }], [], v);
  t.same(h.ex.state.bridge.chains.get(CHAIN)!.set, target);
  t.equal(h.ex.state.bridge.setUpdates.size, 0);
  t.equal(wantedSet(h.ex.state, h.ex.state.bridge.chains.get(CHAIN)!), null, 'the contract holds today\'s set');
});

t.test('stale or replayed bridge transactions, oversized or out-of-order sets, and shared bridge signers are refused', async (t) => {
  const h = harness();
  const before = contentHash(h);
  const out = h.ex.submitBridge({ validator: KEYS[0]!, time: h.time - 200_000, claims: [deposit(0, USERS[0]!, '1')], signatures: [] });
  t.match(out.result, { status: 'err', error: { message: /more than 120000 ms from the block time/ } });
  t.equal(contentHash(h), before);
  const big = { nonce: 1, signers: Array.from({ length: 201 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`), powers: Array.from({ length: 201 }, () => 1) };
  t.match(h.bridge([{ kind: 'setUpdated', chainId: CHAIN, set: big }], [], KEYS[0]).outcome, { refused: [/1 to 200/] });
  t.match(h.bridge([{ kind: 'setUpdated', chainId: CHAIN, set: { ...SET, nonce: 5 } }], [], KEYS[0]).outcome, { refused: [/not the next one/] });
  const shared = genesis();
  shared.validators[1]!.bridgeSigner = shared.validators[0]!.bridgeSigner;
  t.throws(() => loadGenesis(shared), /another validator's too/);
});
