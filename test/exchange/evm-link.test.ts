// The exchange side of linked tokens: spotSend to a system address, releases, refunds and credits
// from the EVM, against a model of the ERC-20's ledger. Property: a refused spotSend changes
// nothing; the token's exchange supply never moves; the escrow always equals what users hold on
// the EVM; USDC is conserved.
import fc from 'fast-check';
import t from 'tap';
import {
  creditFromEvm, refundRelease, snapshotState, systemAddress, systemToken, takeReleases, views, type ExchangeState, type TxOutcome,
} from '../../exchange/index.ts';
import { Harness, USERS, usdcTotal } from '../support/exchange.ts';
import { replaySeed } from '../support/seed.ts';

const [A, B] = USERS as [string, string];
const LINK = 10002;
const CONTRACT = '0x00000000000000000000000000000000000000c0';
const SYSTEM = systemAddress(LINK);
const WEI_PER_UNIT = 10n ** 10n; // weiDecimals 18, exchange units 10^-8

function linked(h: Harness, extra: Record<string, unknown> = {}): void {
  const out = h.tx(A, { type: 'spotDeploy', deployType: 'token', tokenName: 'LINK', szDecimals: 2, weiDecimals: 18, initialSupply: '1000', evmContract: CONTRACT, ...extra });
  if (out.result.status !== 'ok') throw new Error(out.result.error.message);
}

function err(out: TxOutcome): string {
  return out.result.status === 'err' ? out.result.error.message : 'ok';
}

t.test('system addresses: 0x20, zeros, the token index', async (t) => {
  t.equal(systemAddress(10002), '0x2000000000000000000000000000000000002712');
  t.equal(systemToken('0x2000000000000000000000000000000000002712'), 10002);
  t.equal(systemToken('0x2000000000000000000000000000000000002712'.toUpperCase().replace('0X', '0x')), 10002);
  t.equal(systemToken('0x2100000000000000000000000000000000002712'), null);
  t.equal(systemToken(A), null);
});

t.test('spotSend: to another address, to the system address (a release), and its refusals', async (t) => {
  const h = new Harness();
  linked(h);
  t.equal(err(h.tx(A, { type: 'spotSend', destination: B, token: 'LINK', amount: '10.5' })), 'ok');
  t.equal(h.ex.state.accounts.get(B)!.balance(LINK), 1050000000n);
  t.equal(err(h.tx(A, { type: 'spotSend', destination: SYSTEM, token: 'LINK:0xabc', amount: '2' })), 'ok');
  t.same(takeReleases(h.ex.state), [{ token: LINK, contract: CONTRACT, system: SYSTEM, to: A, units: 200000000n, wei: 2n * 10n ** 18n }]);
  t.equal(h.ex.state.evmEscrow.get(LINK), 200000000n);
  t.equal(h.ex.state.accounts.get(A)!.balance(LINK), 98750000000n);
  const cases: [unknown, RegExp][] = [
    [{ destination: SYSTEM, token: 'NOPE', amount: '1' }, /^Unknown token: NOPE is not a registered token name$/],
    [{ destination: SYSTEM, token: 'USDC', amount: '1' }, /^Invalid action: spotSend moves spot tokens; USDC moves with usdTransfer$/],
    [{ destination: SYSTEM, token: 'LINK', amount: '0.001' }, /^Invalid action: amount 0.001 is not a positive LINK amount with at most 2 decimals$/],
    [{ destination: SYSTEM, token: 'LINK', amount: '0' }, /not a positive LINK amount/],
    [{ destination: A, token: 'LINK', amount: '1' }, /^Invalid action: the destination is the sender$/],
    [{ destination: systemAddress(10001), token: 'LINK', amount: '1' }, /^Invalid destination: 0x2000000000000000000000000000000000002711 is the system address of token 10001, not of LINK/],
    [{ destination: systemAddress(10001), token: 'SVC', amount: '1' }, /^Invalid destination: SVC is not linked to an EVM contract$/],
    [{ destination: SYSTEM, token: 'LINK', amount: '100000' }, /^Insufficient spot balance: LINK free balance is too low$/],
    [{ destination: B, token: 'LINK', amount: '100000' }, /^Insufficient spot balance: LINK free balance is below 100000$/],
  ];
  for (const [fields, message] of cases) {
    const before = JSON.stringify(comparable(h.ex.state));
    t.match(err(h.tx(A, { type: 'spotSend', ...(fields as object) })), message);
    t.equal(JSON.stringify(comparable(h.ex.state)), before, 'nothing changed');
    t.same(takeReleases(h.ex.state), [], 'nothing queued');
  }
  t.match(err(h.tx(A, { type: 'spotSend', destination: '0x12', token: 'LINK', amount: '1' })), /Invalid field action.destination/);
  const before = JSON.stringify(comparable(h.ex.state));
  t.match(err(h.tx(A, { type: 'usdTransfer', destination: SYSTEM, amount: '1' })), /^Invalid destination: 0x2000000000000000000000000000000000002712 is a system address \(linked tokens use spotSend\)$/, 'USDC is never stranded at a system address');
  t.equal(JSON.stringify(comparable(h.ex.state)), before);
});

t.test('a token with fewer EVM decimals than the exchange refuses amounts the ERC-20 cannot carry', async (t) => {
  const h = new Harness();
  const out = h.tx(A, { type: 'spotDeploy', deployType: 'token', tokenName: 'COARSE', szDecimals: 4, weiDecimals: 2, initialSupply: '10', evmContract: CONTRACT });
  t.equal(out.result.status, 'ok');
  t.match(err(h.tx(A, { type: 'spotSend', destination: SYSTEM, token: 'COARSE', amount: '0.0001' })), /^Invalid action: the amount is finer than COARSE's 2 decimals on the EVM$/);
  t.equal(err(h.tx(A, { type: 'spotSend', destination: SYSTEM, token: 'COARSE', amount: '0.25' })), 'ok');
  t.match(takeReleases(h.ex.state), [{ units: 25000000n, wei: 25n }]);
});

t.test('credits come out of the escrow only; below 10^-8 of a token is not credited', async (t) => {
  const h = new Harness();
  linked(h);
  t.equal(creditFromEvm(h.ex.state, CONTRACT, B, 10n ** 18n), 'uncredited', 'nothing was released: nothing to credit');
  h.tx(A, { type: 'spotSend', destination: SYSTEM, token: 'LINK', amount: '5' });
  takeReleases(h.ex.state);
  t.equal(creditFromEvm(h.ex.state, '0x00000000000000000000000000000000000000ff', B, 1n), 'uncredited', 'unlinked contract');
  t.equal(creditFromEvm(h.ex.state, CONTRACT, B, 15n * 10n ** 9n), 'credited', '1.5 units: 1 credited');
  t.equal(h.ex.state.accounts.get(B)!.balance(LINK), 1n);
  t.equal(creditFromEvm(h.ex.state, CONTRACT, B, 9n * 10n ** 9n), 'uncredited', 'below one unit');
  t.equal(creditFromEvm(h.ex.state, CONTRACT, B, 6n * 10n ** 18n), 'uncredited', 'more than the escrow');
  t.equal(h.ex.state.evmEscrow.get(LINK), 5n * 10n ** 8n - 1n);
});

/** The state without what every authenticated action consumes (its nonce and one request). */
function comparable(state: ExchangeState): unknown {
  const snap = JSON.parse(JSON.stringify(snapshotState(state))) as { nonces: unknown; accounts: unknown[][]; height: unknown; time: unknown };
  snap.nonces = null;
  snap.height = null;
  snap.time = null;
  for (const row of snap.accounts) row[8] = null;
  return snap;
}

type Cmd =
  | { kind: 'release'; user: number; cents: number; fail: boolean }
  | { kind: 'send'; user: number; to: number; cents: number }
  | { kind: 'deposit'; user: number; percent: number; dust: number }
  | { kind: 'bad'; user: number; which: number };

const user = fc.integer({ min: 0, max: 2 });
const command: fc.Arbitrary<Cmd> = fc.oneof(
  fc.record({ kind: fc.constant('release' as const), user, cents: fc.integer({ min: 1, max: 60_000 }), fail: fc.boolean() }),
  fc.record({ kind: fc.constant('send' as const), user, to: user, cents: fc.integer({ min: 1, max: 60_000 }) }),
  fc.record({ kind: fc.constant('deposit' as const), user, percent: fc.integer({ min: 1, max: 100 }), dust: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ kind: fc.constant('bad' as const), user, which: fc.nat(3) }),
);

t.test('property: escrow equals what users hold on the EVM; supply and USDC conserved; refusals change nothing', async (t) => {
  const seed = replaySeed(t, 20261126);
  let releases = 0;
  let credits = 0;
  fc.assert(
    fc.property(fc.array(command, { minLength: 5, maxLength: 50 }), (cmds) => {
      const h = new Harness();
      linked(h);
      const users = [A, B, USERS[2] as string];
      const usdc = usdcTotal(h.ex.state);
      const supply = views.tokenSupplies(h.ex.state)[LINK - 10000];
      /** The ERC-20 ledger: what each user holds on the EVM (wei); the reserve is supply minus these and the dust. */
      const evm = new Map<string, bigint>();
      let dustWei = 0n; // sent to the system address below one exchange unit: stays in the reserve, not credited
      for (const c of cmds) {
        const u = users[c.user] as string;
        const before = JSON.stringify(comparable(h.ex.state));
        if (c.kind === 'release' || c.kind === 'send' || c.kind === 'bad') {
          const action = c.kind === 'release' ? { type: 'spotSend', destination: SYSTEM, token: 'LINK', amount: (c.cents / 100).toFixed(2) }
            : c.kind === 'send' ? { type: 'spotSend', destination: users[c.to], token: 'LINK', amount: (c.cents / 100).toFixed(2) }
            : [{ type: 'spotSend', destination: systemAddress(10001), token: 'LINK', amount: '1' }, { type: 'spotSend', destination: SYSTEM, token: 'SVC', amount: '1' },
              { type: 'spotSend', destination: SYSTEM, token: 'LINK', amount: '1.001' }, { type: 'spotSend', destination: SYSTEM, token: 'LINK', amount: '-1' }][c.which];
          const out = h.tx(u, action);
          if (out.result.status === 'err' && JSON.stringify(comparable(h.ex.state)) !== before) throw new Error(`refused spotSend changed state: ${out.result.error.message}`);
          // The block's EVM part: each release succeeds (reserve -> user) or fails (refunded).
          for (const r of takeReleases(h.ex.state)) {
            releases++;
            if (c.kind === 'release' && c.fail) refundRelease(h.ex.state, r);
            else evm.set(r.to, (evm.get(r.to) ?? 0n) + r.wei);
          }
        } else {
          const held = evm.get(u) ?? 0n;
          // A share of what the user holds, in cents, plus a little dust below one exchange unit.
          const wei = (held * BigInt(c.percent)) / 100n / 10n ** 16n * 10n ** 16n + BigInt(c.dust) * 10n ** 9n;
          if (wei === 0n || wei > held) continue;
          evm.set(u, held - wei);
          const outcome = creditFromEvm(h.ex.state, CONTRACT, u, wei);
          const want = wei < WEI_PER_UNIT ? 'uncredited' : 'credited';
          if (outcome !== want) throw new Error(`a deposit of ${wei} held wei was ${outcome}`);
          if (outcome === 'credited') credits++;
          dustWei += wei % WEI_PER_UNIT;
        }
        const onEvm = [...evm.values()].reduce((a, b) => a + b, 0n);
        const escrow = h.ex.state.evmEscrow.get(LINK) ?? 0n;
        // The escrow backs what users hold on the EVM, plus the dust that went to the reserve uncredited.
        if (escrow * WEI_PER_UNIT !== onEvm + dustWei) throw new Error(`escrow ${escrow} units, users hold ${onEvm} wei on the EVM, dust ${dustWei}`);
        if (views.tokenSupplies(h.ex.state)[LINK - 10000] !== supply) throw new Error('LINK exchange supply moved');
        if (usdcTotal(h.ex.state) !== usdc) throw new Error('USDC moved');
      }
    }),
    { seed, numRuns: Number(process.env.FC_RUNS ?? 60) },
  );
  t.ok(releases > 0 && credits > 0, `${releases} releases, ${credits} credits`);
});
