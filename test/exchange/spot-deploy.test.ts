// spotDeploy: tokens and pairs listed as state, their rules and messages, the fee, snapshots, and
// property tests that a refused deploy (or any refused action in the stream) changes nothing and
// that USDC and every token's supply are conserved.
import fc from 'fast-check';
import t from 'tap';
import { isActionParseError, parseAction, restoreExchange, snapshotState, stateHash, views, type ExchangeState, type TxOutcome } from '../../exchange/index.ts';
import { Harness, USERS, bookInvariants, lim, statuses, usdcTotal } from '../support/exchange.ts';
import { replaySeed } from '../support/seed.ts';
import { parseScaled } from '../../primitives/index.ts';

const [A, B] = USERS as [string, string];
const USDC = 10000;
const SVC = 10001;
const FEE = 10n * 10n ** 8n;

const token = (tokenName: string, extra: Record<string, unknown> = {}) => ({ type: 'spotDeploy', deployType: 'token', tokenName, szDecimals: 2, weiDecimals: 18, ...extra });
const pair = (baseToken: number, quoteToken: number, extra: Record<string, unknown> = {}) => ({ type: 'spotDeploy', deployType: 'pair', baseToken, quoteToken, ...extra });

function ok(out: TxOutcome): unknown {
  if (out.result.status !== 'ok') throw new Error(`refused: ${out.result.error.message}`);
  return (out.result.response as { data?: unknown }).data;
}

function refusal(out: TxOutcome): string {
  if (out.result.status !== 'err') throw new Error('accepted');
  return out.result.error.message;
}

t.test('a token is listed with the next index, charges 10 USDC and credits its initial supply', async (t) => {
  const h = new Harness();
  const usdc = h.ex.state.accounts.get(A)!.usdc;
  t.same(ok(h.tx(A, token('FOO', { initialSupply: '1000.5' }))), { tokenIndex: 10002, tokenName: 'FOO', deployer: A });
  const acct = h.ex.state.accounts.get(A)!;
  t.equal(acct.usdc, usdc - FEE);
  t.equal(h.ex.state.deployFees, FEE);
  t.equal(acct.balance(10002), 100050000000n, '1000.5 FOO in 10^-8 units');
  t.same(ok(h.tx(B, token('BAR9'))), { tokenIndex: 10003, tokenName: 'BAR9', deployer: B });
  t.equal(h.ex.state.accounts.get(B)!.balance(10003), 0n, 'no initial supply: nothing credited');
  const meta = views.spotMeta(h.ex.state);
  t.match(meta.tokens[2], { name: 'FOO', szDecimals: 2, weiDecimals: 18, index: 10002, deployer: A, evmContract: null });
  t.match(meta.tokens[3], { name: 'BAR9', index: 10003 });
});

t.test('a pair is listed as asset 10000 + p, trades at once, and shows everywhere', async (t) => {
  const h = new Harness();
  ok(h.tx(A, token('FOO', { initialSupply: '5000' })));
  t.same(ok(h.tx(B, pair(10002, USDC, { initialPrice: '2.5' }))), { pairIndex: 1, pairName: 'FOO-USDC', baseToken: 10002, quoteToken: USDC });
  t.same(statuses(h.tx(A, { type: 'order', orders: [lim(10001, false, '2.5', '100')], grouping: 'na' })), [{ resting: { oid: 1 } }]);
  t.match(statuses(h.tx(B, { type: 'order', orders: [lim(10001, true, '2.6', '40')], grouping: 'na' })), [{ filled: { totalSz: '40', avgPx: '2.5' } }]);
  t.equal(h.ex.state.accounts.get(B)!.balance(10002), 4000000000n, 'B holds 40 FOO');
  const [meta, ctxs] = views.spotMetaAndAssetCtxs(h.ex.state);
  t.same(meta.universe[1], { name: 'FOO-USDC', tokens: [10002, USDC], index: 1, isCanonical: true });
  t.match(ctxs[1], { coin: 'FOO-USDC', markPx: '2.5', totalSupply: '5000', midPx: null });
  t.match(views.spotMarkets(h.ex.state)[1], { pair: 'FOO-USDC', base_asset: 'FOO', quote_asset: 'USDC', price_decimals: 6, size_decimals: 2, min_order_size: '0.01', tick_size: '0.000001', status: 'active' });
  t.ok(views.allMids(h.ex.state)['FOO-USDC'] !== undefined, 'allMids lists it');
  t.match(views.l2Book(h.ex.state, '@1'), { coin: '@1', levels: [[], [{ px: '2.5', sz: '60', n: 1 }]] });
  // A pair between two deployed tokens, without initialPrice: the reference is 1 quote per base.
  ok(h.tx(A, token('BAR', { szDecimals: 0 })));
  t.match(ok(h.tx(A, pair(10003, 10002))), { pairIndex: 2, pairName: 'BAR-FOO' });
  t.equal(h.ex.state.spots[2]!.engine.oraclePx, 10 ** 8, 'BAR has szDecimals 0: price units 10^-8, reference 1');
});

t.test('every violation has its own message and changes nothing', async (t) => {
  const h = new Harness();
  ok(h.tx(A, token('FOO', { evmContract: '0x00000000000000000000000000000000000000AA' })));
  const poor = '0x000000000000000000000000000000000000beef';
  ok(h.tx(A, { type: 'usdTransfer', destination: poor, amount: '9.99999999' }));
  const cases: [string, unknown, string, RegExp][] = [
    ['name taken (genesis token)', token('SVC'), A, /^Token name already taken: SVC is token 10001$/],
    ['name taken (deployed token)', token('FOO'), B, /^Token name already taken: FOO is token 10002$/],
    ['ERC-20 already linked', token('BAR', { evmContract: '0x00000000000000000000000000000000000000aa' }), B, /^EVM contract already linked to another token: 0x0+aa is linked to FOO \(token 10002\)$/],
    ['fee not covered', token('BAR'), poor, /^Insufficient balance: spotDeploy costs 10 USDC from the free balance, which is 9.99999999$/],
    ['pair fee not covered', pair(10002, USDC), poor, /^Insufficient balance: spotDeploy costs 10 USDC/],
    ['base not registered', pair(10009, USDC), A, /^Unknown token: baseToken 10009 is not registered$/],
    ['quote not registered', pair(10002, 42), A, /^Unknown token: quoteToken 42 is not registered$/],
    ['pair exists', pair(SVC, USDC), A, /^Pair already exists: SVC-USDC is pair 0 \(asset 10000\)$/],
    ['reverse pair exists', pair(USDC, SVC), A, /^Pair already exists: SVC-USDC/],
    ['initial price not positive', pair(10002, USDC, { initialPrice: '-1' }), A, /^Invalid initial price: -1 is not a positive decimal$/],
    ['initial price too fine', pair(10002, USDC, { initialPrice: '1.23456' }), A, /^Invalid initial price: 1.23456 has more than 5 significant figures$/],
    ['initial price off tick', pair(10002, USDC, { initialPrice: '0.0000001' }), A, /^Invalid initial price: 0.0000001 is not a multiple of the tick size 0.000001$/],
    ['name lower case', token('foo'), A, /^Invalid action: Invalid field action.tokenName: expected 1 to 10 uppercase letters or digits \(A-Z, 0-9\)$/],
    ['name too long', token('ABCDEFGHIJK'), A, /action.tokenName/],
    ['empty name', token(''), A, /action.tokenName/],
    ['szDecimals 9', token('BAR', { szDecimals: 9 }), A, /Invalid field action.szDecimals: expected an integer from 0 to 8$/],
    ['weiDecimals 19', token('BAR', { weiDecimals: 19 }), A, /Invalid field action.weiDecimals: expected an integer from 0 to 18$/],
    ['negative weiDecimals', token('BAR', { weiDecimals: -1 }), A, /Invalid field action.weiDecimals: expected a non-negative integer$/],
    ['supply too fine', token('BAR', { initialSupply: '1.234' }), A, /Invalid field action.initialSupply: expected a non-negative decimal with at most szDecimals \(2\) decimals, at most 184467440737.09$/],
    ['supply too large', token('BAR', { initialSupply: '184467440737.1' }), A, /action.initialSupply/],
    ['supply negative', token('BAR', { initialSupply: '-5' }), A, /action.initialSupply/],
    ['evmContract malformed', token('BAR', { evmContract: '0x1234' }), A, /Invalid field action.evmContract: expected a 0x-prefixed 20-byte hex address$/],
    ['evmContract zero', token('BAR', { evmContract: `0x${'0'.repeat(40)}` }), A, /Invalid field action.evmContract: expected a contract address, not the zero address$/],
    ['same token twice', pair(SVC, SVC), A, /Invalid field action.quoteToken: expected a token other than baseToken$/],
    ['missing deployType', { type: 'spotDeploy', tokenName: 'BAR' }, A, /Missing field: action.deployType$/],
    ['unknown deployType', { type: 'spotDeploy', deployType: 'perp' }, A, /Invalid field action.deployType: expected token or pair$/],
    ['missing tokenName', { type: 'spotDeploy', deployType: 'token', szDecimals: 1, weiDecimals: 1 }, A, /Missing field: action.tokenName$/],
    ['missing quoteToken', { type: 'spotDeploy', deployType: 'pair', baseToken: SVC }, A, /Missing field: action.quoteToken$/],
  ];
  for (const [name, action, signer, message] of cases) {
    const before = comparable(h.ex.state);
    t.match(refusal(h.tx(signer, action)), message, name);
    t.same(comparable(h.ex.state), before, `${name}: nothing changed`);
  }
  // An agent may trade for its account but not deploy (the fee moves funds).
  const agent = '0x00000000000000000000000000000000000a9e47';
  ok(h.tx(A, { type: 'approveAgent', agentAddress: agent, agentName: '', nonce: h.time + 1 }));
  t.match(refusal(h.tx(agent, token('BAR'), A)), /^Agent not authorized: only the main wallet may sign this action$/);
});

t.test('the parser names the field of stateless violations (rpc answers 400 with it)', async (t) => {
  const parsed = parseAction(token('bad'));
  t.ok(isActionParseError(parsed));
  t.match(parsed, { field: 'action.tokenName', missing: false });
  t.match(parseAction(pair(1, 2)), { type: 'spotDeploy', deployType: 'pair', baseToken: 1, quoteToken: 2, initialPrice: null });
  t.match(parseAction(token('A1', { initialSupply: '12.5' })), { initialSupply: 1250000000n, evmContract: null });
});

t.test('deployed tokens and pairs survive a snapshot, books included; no deploy, no new fields', async (t) => {
  const h = new Harness();
  const plain = snapshotState(h.ex.state) as Record<string, unknown>;
  t.notOk('deployedTokens' in plain, 'a chain without deploys keeps its snapshot bytes');
  t.equal(plain.version, 4, 'version unchanged');
  ok(h.tx(A, token('FOO', { initialSupply: '100', evmContract: '0x00000000000000000000000000000000000000aa' })));
  ok(h.tx(A, pair(10002, USDC, { initialPrice: '3' })));
  statuses(h.tx(A, { type: 'order', orders: [lim(10001, false, '3.1', '10')], grouping: 'na' }));
  const json = JSON.parse(JSON.stringify(snapshotState(h.ex.state))) as unknown;
  const restored = restoreExchange(h.ex.state.config, json);
  t.equal(stateHash(restored.state), stateHash(h.ex.state));
  t.same(views.spotMeta(restored.state), views.spotMeta(h.ex.state));
  t.same(views.l2Book(restored.state, 'FOO-USDC'), views.l2Book(h.ex.state, 'FOO-USDC'));
  t.equal(restored.state.deployFees, 2n * FEE);
  t.equal(restored.state.market(10001)?.name, 'FOO-USDC');
});

/** The state without what every authenticated action consumes (its nonce and one request). */
function comparable(state: ExchangeState): unknown {
  const snap = JSON.parse(JSON.stringify(snapshotState(state))) as { nonces: unknown; accounts: unknown[][]; height: unknown; time: unknown };
  snap.nonces = null;
  snap.height = null;
  snap.time = null;
  for (const row of snap.accounts) row[8] = null; // requests
  return snap;
}

function supplies(state: ExchangeState): bigint[] {
  return views.tokenSupplies(state);
}

type Cmd =
  | { kind: 'token'; user: number; name: number; sz: number; wei: number; supply: number; evm: number }
  | { kind: 'pair'; user: number; base: number; quote: number; price: number }
  | { kind: 'transfer'; from: number; to: number; amount: number }
  | { kind: 'withdraw'; user: number; amount: number }
  | { kind: 'order'; user: number; market: number; isBuy: boolean; ticks: number; lots: number }
  | { kind: 'cancel'; user: number; pick: number };

const NAMES = ['FOO', 'BAR', 'BAZ', 'SVC', 'USDC', 'foo', 'TOOLONGNAME1', '', 'A1', 'Z'];
const SUPPLIES = [null, '0', '1000', '123.45', '1.234', '-1', '184467440737.1', 'abc'];
const EVMS = [null, '0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb', '0x0000000000000000000000000000000000000000', '0x12'];
const PRICES = [null, '1', '2.5', '0.5', '1.23456', '-3', '0'];
const user = fc.integer({ min: 0, max: 3 });
const command: fc.Arbitrary<Cmd> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('token' as const), user, name: fc.nat(NAMES.length - 1), sz: fc.integer({ min: -1, max: 10 }), wei: fc.integer({ min: -1, max: 20 }), supply: fc.nat(SUPPLIES.length - 1), evm: fc.nat(EVMS.length - 1) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('pair' as const), user, base: fc.integer({ min: 9999, max: 10006 }), quote: fc.integer({ min: 9999, max: 10006 }), price: fc.nat(PRICES.length - 1) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('transfer' as const), from: user, to: user, amount: fc.integer({ min: 1, max: 4_000_000 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('withdraw' as const), user, amount: fc.integer({ min: 1, max: 4_000_000 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('order' as const), user, market: fc.nat(6), isBuy: fc.boolean(), ticks: fc.integer({ min: -5, max: 5 }), lots: fc.integer({ min: 1, max: 500 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('cancel' as const), user, pick: fc.nat() }), weight: 1 },
);

/** Users: three funded development accounts and one that holds only 25 USDC (fees refused once it is spent). */
function actors(h: Harness): string[] {
  const poor = '0x000000000000000000000000000000000000c0de';
  ok(h.tx(USERS[2] as string, { type: 'usdTransfer', destination: poor, amount: '25' }));
  return [A, B, USERS[2] as string, poor];
}

function actionOf(h: Harness, users: string[], c: Cmd): { signer: string; action: unknown } {
  const s = h.ex.state;
  switch (c.kind) {
    case 'token': {
      const extra: Record<string, unknown> = {};
      if (SUPPLIES[c.supply] !== null) extra.initialSupply = SUPPLIES[c.supply];
      if (EVMS[c.evm] !== null) extra.evmContract = EVMS[c.evm];
      return { signer: users[c.user] as string, action: token(NAMES[c.name] as string, { szDecimals: c.sz, weiDecimals: c.wei, ...extra }) };
    }
    case 'pair': {
      const price = PRICES[c.price];
      return { signer: users[c.user] as string, action: pair(c.base, c.quote, price === null ? {} : { initialPrice: price }) };
    }
    case 'transfer':
      return { signer: users[c.from] as string, action: { type: 'usdTransfer', destination: users[c.to], amount: (c.amount / 100).toFixed(2) } };
    case 'withdraw':
      return { signer: users[c.user] as string, action: { type: 'withdraw', destination: users[c.user], amount: (c.amount / 100).toFixed(2) } };
    case 'order': {
      const m = s.spots[c.market % s.spots.length]!;
      const px = Math.max(1, m.referencePx + c.ticks * Math.max(1, Math.floor(m.referencePx / 100)));
      const text = (px / 10 ** m.pxDecimals).toPrecision(5);
      const sz = (c.lots * Math.max(1, m.minSz) / 10 ** m.szDecimals).toFixed(m.szDecimals);
      return { signer: users[c.user] as string, action: { type: 'order', orders: [lim(m.asset, c.isBuy, String(Number(text)), sz)], grouping: 'na' } };
    }
    case 'cancel': {
      const u = users[c.user] as string;
      const open = s.spots.flatMap((m) => [...m.engine.ownerOrders(u)].map((o) => ({ a: m.asset, o: o.oid })));
      const pick = open[c.pick % Math.max(1, open.length)] ?? { a: USDC, o: 999_999 };
      return { signer: u, action: { type: 'cancel', cancels: [pick] } };
    }
  }
}

t.test('property: refused actions change nothing; USDC and token supplies are conserved', async (t) => {
  const seed = replaySeed(t, 20261125);
  let deploys = 0;
  let refusedDeploys = 0;
  fc.assert(
    fc.property(fc.array(command, { minLength: 10, maxLength: 60 }), (cmds) => {
      const h = new Harness();
      const users = actors(h);
      const usdc = usdcTotal(h.ex.state);
      for (const c of cmds) {
        const { signer, action } = actionOf(h, users, c);
        const before = comparable(h.ex.state);
        const supply = supplies(h.ex.state);
        const out = h.tx(signer, action);
        const after = supplies(h.ex.state);
        if (c.kind === 'token' || c.kind === 'pair') deploys++;
        if (out.result.status === 'err') {
          if (c.kind === 'token' || c.kind === 'pair') refusedDeploys++;
          if (c.kind !== 'order' && c.kind !== 'cancel') {
            // (A refused order or cancel may still leave its events; a refused action of the other kinds nothing.)
            if (JSON.stringify(comparable(h.ex.state)) !== JSON.stringify(before)) throw new Error(`${c.kind} refused (${out.result.error.message}) but state changed`);
          }
        }
        if (usdcTotal(h.ex.state) !== usdc) throw new Error(`USDC total moved after ${JSON.stringify(c)}: ${usdcTotal(h.ex.state) - usdc}`);
        const deployed = c.kind === 'token' && out.result.status === 'ok' ? after.at(-1) : undefined;
        const expected = deployed === undefined ? supply : [...supply, deployed];
        // USDC's own supply moves out with withdrawals (into the pending queue): compare tokens only.
        if (after.length !== expected.length || after.some((v, i) => i > 0 && v !== expected[i])) throw new Error(`token supply moved after ${JSON.stringify(c)}`);
        if (deployed !== undefined) {
          const a = action as { initialSupply?: string };
          const want = a.initialSupply === undefined ? 0n : parseScaled(a.initialSupply, 8);
          if (deployed !== want) throw new Error(`initial supply ${deployed} != ${want}`);
        }
        const broken = bookInvariants(h.ex);
        if (broken !== null) throw new Error(broken);
      }
      const restored = restoreExchange(h.ex.state.config, JSON.parse(JSON.stringify(snapshotState(h.ex.state))));
      if (stateHash(restored.state) !== stateHash(h.ex.state)) throw new Error('snapshot round trip changed the state hash');
    }),
    { seed, numRuns: Number(process.env.FC_RUNS ?? 60) },
  );
  t.ok(refusedDeploys > 0 && refusedDeploys < deploys, `${deploys} deploys, ${refusedDeploys} refused`);
});
