// Staking actions on the state machine: cDeposit, cWithdraw, tokenDelegate, registerValidator;
// the epoch boundary that sets the validator set from the stake; the reads; snapshots. Property
// tests: a rejected staking action changes no balance, stake or validator; the staked token and
// USDC are conserved across deposits, delegations, undelegations, withdrawals and their payouts.
import fc from 'fast-check';
import t from 'tap';
import { validatorKeyFromSeed, type ValidatorKey } from '../../consensus/index.ts';
import {
  Exchange, GENESIS_DELEGATOR, MAX_PENDING_WITHDRAWALS, STAKE_UNIT, registrationBytes, restoreExchange, selectValidators, snapshotState,
  stakedTotal, stateHash, views, type ExchangeState, type TxOutcome,
} from '../../exchange/index.ts';
import { DEVNET_BACKSTOP, devnetGenesis, loadGenesis, type GenesisFile } from '../../genesis/index.ts';
import { canonicalize, keccak256, utf8, type Json } from '../../primitives/index.ts';
import { USERS, VALIDATOR, usdcTotal } from '../support/exchange.ts';
import { replaySeed } from '../support/seed.ts';

const SVC = 10001;
const UNIT = Number(STAKE_UNIT);
const [alice, bob, carol] = USERS as [string, string, string];
const KEYS: ValidatorKey[] = [0, 1, 2, 3].map((i) => validatorKeyFromSeed(keccak256(utf8(`staking-test-${i}`))));

/** An exchange driven block by block: each transaction in its own block, ended at once. */
class Chain {
  readonly ex: Exchange;
  readonly chainId: number;
  height = 0;
  time: number;

  constructor(genesis: GenesisFile = devnetGenesis()) {
    const g = loadGenesis(genesis, { localValidator: VALIDATOR });
    this.chainId = genesis.chainId;
    this.time = g.file.genesisTime + 1000;
    this.ex = Exchange.fromGenesis(g.exchange, g.balances, g.file.genesisTime);
  }

  get state(): ExchangeState {
    return this.ex.state;
  }

  /**
   * One transaction in a block `ms` after the last. `rejected`: called for a rejection with the
   * state just before and just after it executed (the block's end, which may pay withdrawals, after).
   */
  tx(signer: string, action: unknown, opts: { ms?: number; vault?: string | null; rejected?: (before: string, after: string) => void } = {}): TxOutcome {
    this.height += 1;
    this.time += opts.ms ?? 1;
    this.ex.beginBlock(this.height, this.time);
    const before = opts.rejected === undefined ? '' : moneyState(this.state);
    const out = this.ex.execute({ hash: `0x${this.height.toString(16).padStart(64, '0')}`, signer, nonce: this.time, vaultAddress: opts.vault ?? null, action });
    if (opts.rejected !== undefined && out.result.status === 'err') opts.rejected(before, moneyState(this.state));
    this.ex.endBlock();
    return out;
  }

  ok(signer: string, action: unknown, ms = 1): void {
    const out = this.tx(signer, action, { ms });
    if (out.result.status !== 'ok') throw new Error(`${JSON.stringify(action)}: ${out.result.error.message}`);
  }

  idle(ms: number): void {
    this.height += 1;
    this.time += ms;
    this.ex.beginBlock(this.height, this.time);
    this.ex.endBlock();
  }

  /** Empty blocks until the next epoch boundary block has ended. */
  toEpochEnd(): void {
    const epoch = this.state.config.staking!.epochBlocks;
    do this.idle(1); while (this.height % epoch !== 0);
  }

  register(operator: string, key: ValidatorKey, extra: Record<string, unknown> = {}): TxOutcome {
    const signature = key.sign(registrationBytes(this.chainId, operator, key.publicKey));
    return this.tx(operator, { type: 'registerValidator', pubKey: key.publicKey, signature, ...extra });
  }
}

function err(out: TxOutcome): string {
  return out.result.status === 'err' ? out.result.error.message : 'ok';
}

/** Every unit of SVC: spot balances and what staking holds. */
function svcTotal(state: ExchangeState): bigint {
  let total = stakedTotal(state.staking);
  for (const a of state.accounts.values()) total += a.balance(SVC);
  return total;
}

/** The state a rejection must leave alone: the snapshot without nonces and request counters (a rejected action still uses its nonce). */
function moneyState(state: ExchangeState): string {
  const snap = snapshotState(state) as { accounts: unknown[][]; nonces?: unknown; staking?: unknown };
  const accounts = snap.accounts.map((row) => row.map((v, i) => (i === 8 ? 0 : v)));
  return canonicalize({ ...snap, accounts, nonces: [] } as unknown as Json) + canonicalize((snap.staking ?? null) as Json);
}

/** Each validator's stake is the sum of the delegations to it. */
function stakeConsistent(state: ExchangeState): string | null {
  const sums = new Map<string, bigint>();
  for (const mine of state.staking.delegations.values()) {
    for (const [v, d] of mine) {
      if (d.amount <= 0n) return `a delegation of ${d.amount}`;
      sums.set(v, (sums.get(v) ?? 0n) + d.amount);
    }
  }
  for (const v of state.staking.validators.values()) if ((sums.get(v.pubKey) ?? 0n) !== v.stake) return `validator ${v.pubKey.slice(0, 8)} stake ${v.stake} != ${sums.get(v.pubKey) ?? 0n}`;
  return null;
}

t.test('deposit, delegate, undelegate after the lock, withdraw after the unbonding delay', async (t) => {
  const c = new Chain();
  const cfg = c.state.config.staking!;
  const spot0 = c.state.accounts.get(alice)!.balance(SVC);
  t.same(views.delegatorSummary(c.state, alice), { delegated: '0', undelegated: '0', totalPendingWithdrawal: '0', nPendingWithdrawals: 0 });
  c.ok(alice, { type: 'cDeposit', wei: 50 * UNIT });
  t.equal(c.state.accounts.get(alice)!.balance(SVC), spot0 - 50n * STAKE_UNIT, 'spot SVC moves to staking');
  c.ok(alice, { type: 'tokenDelegate', validator: VALIDATOR, wei: 30 * UNIT, isUndelegate: false });
  const delegatedAt = c.time;
  t.same(views.delegatorSummary(c.state, alice), { delegated: '30', undelegated: '20', totalPendingWithdrawal: '0', nPendingWithdrawals: 0 });
  t.equal(views.stakeOf(c.state, alice), 50n * STAKE_UNIT, 'stake (the API\'s staker tier): delegated + undelegated');
  t.same(views.delegations(c.state, alice), [{ validator: VALIDATOR, amount: '30', lockedUntilTimestamp: delegatedAt + cfg.delegationLockMs }]);
  t.match(err(c.tx(alice, { type: 'tokenDelegate', validator: VALIDATOR, wei: 10 * UNIT, isUndelegate: true })), /locked until/, 'undelegating inside the lock is refused');
  c.ok(alice, { type: 'tokenDelegate', validator: VALIDATOR, wei: 10 * UNIT, isUndelegate: true }, cfg.delegationLockMs);
  t.same(views.delegatorSummary(c.state, alice), { delegated: '20', undelegated: '30', totalPendingWithdrawal: '0', nPendingWithdrawals: 0 });
  c.ok(alice, { type: 'cWithdraw', wei: 25 * UNIT });
  t.same(views.delegatorSummary(c.state, alice), { delegated: '20', undelegated: '5', totalPendingWithdrawal: '25', nPendingWithdrawals: 1 });
  t.equal(views.stakeOf(c.state, alice), 25n * STAKE_UNIT, 'a pending withdrawal is no longer stake');
  c.idle(cfg.unbondingDelayMs - 1);
  t.equal(c.state.staking.pending.length, 1, 'not paid before the delay');
  c.idle(1);
  t.same(views.delegatorSummary(c.state, alice), { delegated: '20', undelegated: '5', totalPendingWithdrawal: '0', nPendingWithdrawals: 0 });
  t.equal(c.state.accounts.get(alice)!.balance(SVC), spot0 - 25n * STAKE_UNIT, 'the withdrawal is paid to spot');
});

t.test('refusals: amounts, balances, unknown validators, agents, spot holds, pending bound, staking off', async (t) => {
  const c = new Chain();
  t.match(err(c.tx(alice, { type: 'cDeposit', wei: 0 })), /wei: expected a positive integer/);
  t.match(err(c.tx(alice, { type: 'cDeposit', wei: 1.5 })), /wei/);
  t.match(err(c.tx(alice, { type: 'cDeposit', wei: '100' })), /wei/);
  t.match(err(c.tx(alice, { type: 'cDeposit', wei: 100_001 * UNIT })), /Insufficient spot balance/);
  t.match(err(c.tx(alice, { type: 'cWithdraw', wei: 1 })), /Insufficient balance/);
  t.match(err(c.tx(alice, { type: 'tokenDelegate', validator: VALIDATOR, wei: 1, isUndelegate: false })), /Insufficient balance/);
  t.match(err(c.tx(alice, { type: 'tokenDelegate', validator: 'bb'.repeat(32), wei: 1, isUndelegate: false })), /unknown validator/);
  t.match(err(c.tx(alice, { type: 'tokenDelegate', validator: '0x1234', wei: 1, isUndelegate: false })), /validator: expected 32 bytes of hex/);
  t.match(err(c.tx(alice, { type: 'tokenDelegate', validator: VALIDATOR, wei: 1, isUndelegate: true })), /delegation to this validator is smaller/);
  // An agent of alice may trade for her, not move her stake.
  c.ok(alice, { type: 'approveAgent', agentAddress: bob, agentName: '', nonce: c.time + 1 });
  t.match(err(c.tx(bob, { type: 'cDeposit', wei: UNIT }, { vault: alice })), /only the main wallet/);
  // SVC held by a resting spot sell is not free.
  const spot = c.state.accounts.get(carol)!.balance(SVC);
  const sell = c.tx(carol, { type: 'order', orders: [{ a: 10000, b: false, p: '2', s: String(Number(spot / STAKE_UNIT)), r: false, t: { limit: { tif: 'Gtc' } } }], grouping: 'na' });
  t.equal(sell.result.status, 'ok');
  t.match(err(c.tx(carol, { type: 'cDeposit', wei: UNIT })), /Insufficient spot balance/, 'held SVC cannot be staked');
  c.ok(alice, { type: 'cDeposit', wei: 10 * UNIT });
  for (let i = 0; i < MAX_PENDING_WITHDRAWALS; i++) c.ok(alice, { type: 'cWithdraw', wei: UNIT });
  t.match(err(c.tx(alice, { type: 'cWithdraw', wei: UNIT })), /at most 5 pending/);

  const off = devnetGenesis();
  delete off.staking;
  const d = new Chain(off);
  t.match(err(d.tx(alice, { type: 'cDeposit', wei: UNIT })), /staking is not enabled/);
  t.same(d.state.validators(), [{ pubKey: VALIDATOR, power: 1 }], 'without staking the genesis set stays');
});

t.test('registration proves the consensus key; the set follows the stake at epoch boundaries', async (t) => {
  const c = new Chain();
  const cfg = c.state.config.staking!;
  const [k0, k1] = KEYS as [ValidatorKey, ValidatorKey];
  const forged = k1.sign(registrationBytes(c.chainId, alice, k0.publicKey));
  t.match(err(c.tx(alice, { type: 'registerValidator', pubKey: k0.publicKey, signature: forged })), /Invalid signature/, 'another key cannot sign for k0');
  const otherChain = k0.sign(registrationBytes(c.chainId + 1, alice, k0.publicKey));
  t.match(err(c.tx(alice, { type: 'registerValidator', pubKey: k0.publicKey, signature: otherChain })), /Invalid signature/, 'bound to the chain id');
  t.equal(err(c.register(alice, k0, { name: 'alpha', bridgeSigner: '0x00000000000000000000000000000000000000bb' })), 'ok');
  t.match(err(c.register(bob, k0)), /already a registered validator/);
  t.match(err(c.register(alice, k1)), /already operates a validator/);
  t.match(err(c.register(bob, { ...k1, publicKey: VALIDATOR })), /already a registered validator/, 'genesis keys are registered');

  // Stake moves: k0 gets 5 SVC (power 5); the set changes only at the end of the epoch's last block.
  c.ok(bob, { type: 'cDeposit', wei: 5 * UNIT });
  c.ok(bob, { type: 'tokenDelegate', validator: `0x${k0.publicKey}`, wei: 5 * UNIT, isUndelegate: false });
  t.same(c.state.validators(), [{ pubKey: VALIDATOR, power: 1 }], 'unchanged inside the epoch');
  c.toEpochEnd();
  t.same(c.state.validators(), [{ pubKey: k0.publicKey, power: 5, bridgeSigner: '0x00000000000000000000000000000000000000bb' }, { pubKey: VALIDATOR, power: 1 }], 'k0 joins with power 5 at the boundary');
  t.same(views.validatorSummaries(c.state).map((v) => [v.validator, v.signer, v.name, v.stake, v.power, v.isActive]), [
    [k0.publicKey, alice, 'alpha', '5', 5, true],
    [VALIDATOR, null, '', '1', 1, true],
  ]);
  t.same(views.delegations(c.state, GENESIS_DELEGATOR), [{ validator: VALIDATOR, amount: '1', lockedUntilTimestamp: 0 }], 'the genesis stake has no owner');

  // Below the minimum a validator leaves: bob takes 4.5 SVC back, k0 keeps 0.5 (< 1 SVC).
  c.ok(bob, { type: 'tokenDelegate', validator: k0.publicKey, wei: 4.5 * UNIT, isUndelegate: true }, cfg.delegationLockMs);
  c.toEpochEnd();
  t.same(c.state.validators(), [{ pubKey: VALIDATOR, power: 1 }], 'k0 leaves below the minimum stake');
  t.same(views.validatorSummaries(c.state)[1], { validator: k0.publicKey, signer: alice, name: 'alpha', stake: '0.5', power: 0, isActive: false, isJailed: false, bridgeSigner: '0x00000000000000000000000000000000000000bb' });
});

t.test('genesis operators own their stake; max validators keeps the largest; an empty selection keeps the set', async (t) => {
  const g = devnetGenesis();
  const genesisKeys = KEYS.slice(0, 3);
  g.validators = genesisKeys.map((k, i) => ({ pubKey: k.publicKey, power: 1, operator: USERS[i] as string }));
  g.staking = { ...g.staking!, maxValidators: 3, delegationLockMs: 0 };
  const c = new Chain(g);
  t.same(c.state.validators().map((v) => v.pubKey), genesisKeys.map((k) => k.publicKey), 'genesis order until the stake changes');
  c.toEpochEnd();
  t.same(c.state.validators().map((v) => v.pubKey), genesisKeys.map((k) => k.publicKey), 'an unchanged set keeps its order');
  const k3 = KEYS[3]!;
  t.equal(err(c.register(USERS[3] as string, k3)), 'ok');
  c.ok(carol, { type: 'cDeposit', wei: 3 * UNIT });
  c.ok(carol, { type: 'tokenDelegate', validator: k3.publicKey, wei: 3 * UNIT, isUndelegate: false });
  c.toEpochEnd();
  const sorted = genesisKeys.map((k) => k.publicKey).sort();
  t.same(c.state.validators(), [{ pubKey: k3.publicKey, power: 3 }, { pubKey: sorted[0], power: 1 }, { pubKey: sorted[1], power: 1 }], 'three seats: the largest stake, then the smaller keys; the largest key leaves');
  // Every operator takes its genesis stake back and carol hers: nobody qualifies, the set stays.
  for (let i = 0; i < 3; i++) c.ok(USERS[i] as string, { type: 'tokenDelegate', validator: genesisKeys[i]!.publicKey, wei: UNIT, isUndelegate: true });
  c.ok(carol, { type: 'tokenDelegate', validator: k3.publicKey, wei: 3 * UNIT, isUndelegate: true });
  const before = c.state.validators();
  c.toEpochEnd();
  t.equal(c.state.validators(), before, 'an empty selection keeps the last set');
  t.same(selectValidators(c.state.staking, c.state.config.staking!), []);

  const tooMany = devnetGenesis();
  tooMany.validators = genesisKeys.map((k) => ({ pubKey: k.publicKey, power: 1 }));
  tooMany.staking = { ...tooMany.staking!, maxValidators: 2 };
  t.throws(() => loadGenesis(tooMany), /more validators than staking.maxValidators/);
});

t.test('snapshots: staking left out while as at genesis, restored exactly otherwise', async (t) => {
  const c = new Chain();
  t.notOk('staking' in (snapshotState(c.state) as object), 'a genesis staking state adds nothing to the snapshot');
  c.toEpochEnd();
  t.notOk('staking' in (snapshotState(c.state) as object), 'nor after an epoch that changes nothing');
  c.register(alice, KEYS[0]!);
  c.ok(bob, { type: 'cDeposit', wei: 9 * UNIT });
  c.ok(bob, { type: 'tokenDelegate', validator: KEYS[0]!.publicKey, wei: 7 * UNIT, isUndelegate: false });
  c.ok(bob, { type: 'cWithdraw', wei: UNIT });
  c.toEpochEnd();
  const restored = restoreExchange(c.state.config, JSON.parse(JSON.stringify(snapshotState(c.state))));
  t.equal(stateHash(restored.state), stateHash(c.state));
  t.same(restored.state.validators(), c.state.validators());
  t.same(views.validatorSummaries(restored.state), views.validatorSummaries(c.state));
  t.same(views.delegatorSummary(restored.state, bob), views.delegatorSummary(c.state, bob));
  t.equal(stakeConsistent(restored.state), null);
});

type Cmd =
  | { kind: 'deposit' | 'withdraw'; user: number; wei: unknown }
  | { kind: 'delegate'; user: number; validator: number; wei: unknown; isUndelegate: boolean }
  | { kind: 'register'; user: number; key: number; forged: boolean }
  | { kind: 'agent'; user: number; wei: number }
  | { kind: 'garbage'; user: number; action: unknown }
  | { kind: 'idle'; ms: number };

const userIdx = fc.integer({ min: 0, max: 3 });
const wei = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 20 }).map((n) => n * UNIT), weight: 4 },
  { arbitrary: fc.integer({ min: 1, max: 30 * UNIT }), weight: 3 },
  { arbitrary: fc.constantFrom<unknown>(0, -UNIT, 1.5, '100000000', null, 2 ** 53, 1e20, Number.MAX_SAFE_INTEGER), weight: 1 },
);
const smallWei = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 5 }).map((n) => n * UNIT), weight: 6 }, { arbitrary: wei, weight: 2 });
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('deposit' as const), user: userIdx, wei }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('withdraw' as const), user: userIdx, wei }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('delegate' as const), user: userIdx, validator: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5 })), wei: smallWei, isUndelegate: fc.boolean() }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('register' as const), user: userIdx, key: fc.integer({ min: 0, max: 3 }), forged: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('agent' as const), user: userIdx, wei: fc.integer({ min: 1, max: 5 * UNIT }) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('garbage' as const),
      user: userIdx,
      action: fc.oneof(
        fc.record({ type: fc.constantFrom('cDeposit', 'cWithdraw', 'tokenDelegate', 'registerValidator'), wei: fc.anything(), validator: fc.anything(), isUndelegate: fc.anything(), pubKey: fc.anything(), signature: fc.anything() }, { requiredKeys: ['type'] }),
        fc.anything(),
      ),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('idle' as const), ms: fc.integer({ min: 1, max: 90_000 }) }), weight: 2 },
);

t.test('properties: rejected staking actions change nothing; SVC and USDC are conserved; stakes add up', async (t) => {
  const seed = replaySeed(t, 20261125);
  const agentOf = [USERS[4], USERS[5], USERS[6], USERS[7]] as string[];
  const seen = new Map<string, number>();
  fc.assert(
    fc.property(fc.array(cmdArb, { minLength: 30, maxLength: 150, size: 'max' }), (cmds) => {
      const c = new Chain();
      // Validator 0: the genesis one; 1-4: the test keys (once registered); 5: never registered.
      const validatorKeys = [VALIDATOR, ...KEYS.map((k) => k.publicKey), 'cd'.repeat(32)];
      for (let u = 0; u < 4; u++) c.ok(USERS[u] as string, { type: 'approveAgent', agentAddress: agentOf[u], agentName: '', nonce: c.time + 1 });
      const svc0 = svcTotal(c.state);
      const usdc0 = usdcTotal(c.state);
      const epoch = c.state.config.staking!.epochBlocks;
      let lastSet = c.state.validators();
      for (const [i, cmd] of cmds.entries()) {
        if (cmd.kind === 'idle') c.idle(cmd.ms);
        else {
          const user = USERS[cmd.user] as string;
          let signer = user;
          let vault: string | null = null;
          let action: unknown;
          if (cmd.kind === 'deposit') action = { type: 'cDeposit', wei: cmd.wei };
          else if (cmd.kind === 'withdraw') action = { type: 'cWithdraw', wei: cmd.wei };
          else if (cmd.kind === 'delegate') action = { type: 'tokenDelegate', validator: validatorKeys[cmd.validator], wei: cmd.wei, isUndelegate: cmd.isUndelegate };
          else if (cmd.kind === 'agent') {
            signer = agentOf[cmd.user] as string;
            vault = user;
            action = { type: 'cDeposit', wei: cmd.wei };
          } else if (cmd.kind === 'garbage') action = cmd.action;
          else if (cmd.kind === 'register') {
            const key = KEYS[cmd.key] as ValidatorKey;
            const signWith = cmd.forged ? (KEYS[(cmd.key + 1) % KEYS.length] as ValidatorKey) : key;
            action = { type: 'registerValidator', pubKey: key.publicKey, signature: signWith.sign(registrationBytes(c.chainId, user, key.publicKey)) };
          }
          const out = c.tx(signer, action, {
            vault,
            rejected: (before, after) => {
              if (after !== before) throw new Error(`step ${i}: rejected ${JSON.stringify(action)} changed the state`);
            },
          });
          const label = `${cmd.kind === 'delegate' && cmd.isUndelegate ? 'undelegate' : cmd.kind} ${out.result.status}`;
          seen.set(label, (seen.get(label) ?? 0) + 1);
        }
        if (svcTotal(c.state) !== svc0) throw new Error(`step ${i}: SVC total ${svcTotal(c.state)} != ${svc0}`);
        if (usdcTotal(c.state) !== usdc0) throw new Error(`step ${i}: USDC total changed`);
        const bad = stakeConsistent(c.state);
        if (bad !== null) throw new Error(`step ${i}: ${bad}`);
        const active = c.state.validators();
        if (active !== lastSet) seen.set('set changed', (seen.get('set changed') ?? 0) + 1);
        lastSet = active;
        if (active.length === 0 || active.some((v) => !Number.isSafeInteger(v.power) || v.power <= 0)) throw new Error(`step ${i}: bad set`);
        if (c.height % epoch === 0) {
          const want = selectValidators(c.state.staking, c.state.config.staking!);
          if (want.length > 0 && canonicalize(sortSet(want)) !== canonicalize(sortSet(active))) throw new Error(`step ${i}: the set is not the stake's at a boundary`);
        }
      }
    }),
    { seed, numRuns: Number(process.env.FC_RUNS ?? 60) },
  );
  t.pass(`fast-check seed ${seed}`);
  for (const k of ['deposit ok', 'deposit err', 'withdraw ok', 'withdraw err', 'delegate ok', 'delegate err', 'undelegate ok', 'undelegate err', 'register ok', 'register err', 'agent err', 'garbage err', 'set changed']) {
    t.ok((seen.get(k) ?? 0) > 0, `streams produced ${k} (${seen.get(k) ?? 0})`);
  }
});

function sortSet(set: readonly { pubKey: string; power: number }[]): Json {
  return [...set].sort((a, b) => (a.pubKey < b.pubKey ? -1 : 1)).map((v) => ({ pubKey: v.pubKey, power: v.power }));
}

t.test('the devnet backstop and balances are untouched by staking', async (t) => {
  const c = new Chain();
  const backstop = c.state.accounts.get(DEVNET_BACKSTOP)!.usdc;
  c.ok(alice, { type: 'cDeposit', wei: UNIT });
  t.equal(c.state.accounts.get(DEVNET_BACKSTOP)!.usdc, backstop);
});

t.test("a bridge signer is one validator's: another's, or the zero address, is refused", async (t) => {
  const c = new Chain();
  const [k0, k1] = KEYS as [ValidatorKey, ValidatorKey];
  t.equal(err(c.register(alice, k0, { bridgeSigner: '0x00000000000000000000000000000000000000bb' })), 'ok');
  t.match(err(c.register(bob, k1, { bridgeSigner: '0x00000000000000000000000000000000000000BB' })), /bridge signer belongs to another validator/);
  t.match(err(c.register(bob, k1, { bridgeSigner: '0x0000000000000000000000000000000000000000' })), /zero address/);
  t.equal(err(c.register(bob, k1, { bridgeSigner: '0x00000000000000000000000000000000000000cc' })), 'ok');
});
