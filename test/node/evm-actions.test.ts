// The EVM-to-exchange seam of the write system contract (node/evm-actions.ts), in process: the
// payload decoding of every action id, and a seeded property test (fast-check) over random
// RawAction logs (well-formed actions of every id, funds the senders lack, unknown ids and
// versions, truncated and random bytes) with the linked token's releases settled against a model
// ERC-20 ledger: a refused action changes nothing, and USDC, the staking token and the linked
// token stay conserved across the exchange and the EVM.
import { createHash } from 'node:crypto';
import { AbiCoder, solidityPacked } from 'ethers';
import fc from 'fast-check';
import t from 'tap';
import { CORE_WRITER, RAW_ACTION_TOPIC, type ExchangeView, type StoredReceipt } from '../../evm/index.ts';
import { creditFromEvm, refundRelease, restoreExchange, snapshotState, systemAddress, takeReleases, views, type ExchangeState, type TxResult } from '../../exchange/index.ts';
import { EvmActionLog, ExchangeViewWindow, decodeAction, runEvmActions, type ActionContext } from '../../node/index.ts';
import { Harness, USERS, VALIDATOR, usdcTotal } from '../support/exchange.ts';
import { replaySeed } from '../support/seed.ts';

const coder = AbiCoder.defaultAbiCoder();
const [A, B] = USERS as [string, string];
const C = '0x00000000000000000000000000000000000c0c0c'; // a contract: no exchange account until it receives funds
const LINK = 10002;
const CONTRACT = '0x00000000000000000000000000000000000000c0';
const SYSTEM = systemAddress(LINK);
const WEI_PER_UNIT = 10n ** 10n; // LINK: weiDecimals 18, exchange units 10^-8
const VALIDATOR_ADDRESS = `0x${createHash('sha256').update(Buffer.from(VALIDATOR, 'hex')).digest('hex').slice(0, 40)}`;

const payload = (id: number, types: string[], values: unknown[], version = 1) => solidityPacked(['uint8', 'uint24', 'bytes'], [version, id, coder.encode(types, values)]);

function receipt(user: string, data: string): StoredReceipt {
  const log = { address: CORE_WRITER, topics: [RAW_ACTION_TOPIC, `0x${user.slice(2).padStart(64, '0')}`], data: coder.encode(['bytes'], [data]) };
  return { status: 1, logs: [log] } as unknown as StoredReceipt;
}

const ctx: ActionContext = { time: 5, tokenName: (i) => (i === 10001 ? 'SVC' : undefined), validatorOf: (a) => (a === VALIDATOR_ADDRESS ? VALIDATOR : undefined) };
const bytesOf = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));

t.test('payloads decode to the exchange\'s actions, with HyperEVM\'s units', async (t) => {
  const d = (hex: string) => decodeAction(bytesOf(hex), ctx);
  t.same(d(payload(1, ['uint32', 'bool', 'uint64', 'uint64', 'bool', 'uint8', 'uint128'], [10000, false, 150_000_000n, 1_234_500_000_000n, true, 3, 0x2an])), {
    id: 1, action: { type: 'order', orders: [{ a: 10000, b: false, p: '1.5', s: '12345', r: true, t: { limit: { tif: 'Ioc' } }, c: `0x${'0'.repeat(30)}2a` }], grouping: 'na' },
  }, 'limit order: px and sz times 10^8, tif 3 = Ioc, cloid as 16 bytes');
  t.same(d(payload(3, ['address', 'uint64', 'bool'], [VALIDATOR_ADDRESS, 5n, true])), { id: 3, action: { type: 'tokenDelegate', validator: VALIDATOR, wei: 5, isUndelegate: true } });
  t.same(d(payload(4, ['uint64'], [7n])), { id: 4, action: { type: 'cDeposit', wei: 7 } });
  t.same(d(payload(5, ['uint64'], [7n])), { id: 5, action: { type: 'cWithdraw', wei: 7 } });
  t.same(d(payload(6, ['address', 'uint64', 'uint64'], [B, 10000, 250_000_000n])), { id: 6, action: { type: 'usdTransfer', destination: B.toLowerCase(), amount: '2.5' } }, 'spot send of USDC (token 10000) is a usdTransfer');
  t.same(d(payload(6, ['address', 'uint64', 'uint64'], [B, 10001, 1n])), { id: 6, action: { type: 'spotSend', destination: B.toLowerCase(), token: 'SVC', amount: '0.00000001' } });
  t.same(d(payload(13, ['address', 'address', 'uint32', 'uint32', 'uint64', 'uint64'], [B, `0x${'0'.repeat(40)}`, 0xffffffff, 0, 10001, 100_000_000n])), { id: 13, action: { type: 'spotSend', destination: B.toLowerCase(), token: 'SVC', amount: '1' } });
  t.same(d(payload(9, ['address', 'string'], [B, 'bot'])), { id: 9, action: { type: 'approveAgent', agentAddress: B.toLowerCase(), agentName: 'bot', nonce: 5 } });
  t.same(d(payload(10, ['uint32', 'uint64'], [1, 77n])), { id: 10, action: { type: 'cancel', cancels: [{ a: 1, o: 77 }] } });
  t.same(d(payload(11, ['uint32', 'uint128'], [1, 1n])), { id: 11, action: { type: 'cancelByCloid', cancels: [{ asset: 1, cloid: `0x${'0'.repeat(31)}1` }] } });
  t.same(d(payload(12, ['uint64', 'address'], [10n, B])), { id: 12, action: { type: 'approveBuilderFee', maxFeeRate: '0.01%', builder: B.toLowerCase(), nonce: 5 } }, 'builder fee in decibps: 10 = 0.01%');
  const refusals: [string, RegExp][] = [
    [payload(2, ['address', 'bool', 'uint64'], [B, true, 1n]), /vaults do not exist/],
    [payload(7, ['uint64', 'bool'], [1n, true]), /share one USDC balance/],
    [payload(8, ['uint64', 'uint8', 'uint64'], [1n, 1, 0n]), /no finalize step/],
    [payload(15, ['uint8', 'uint64', 'uint64'], [0, 1n, 1n]), /borrow\/lend\) is not available/],
    [payload(14, ['uint64'], [1n]), /unknown action id 14/],
    [payload(0x123456, ['uint64'], [1n]), /unknown action id 1193046/],
    [payload(4, ['uint64'], [1n], 0), /unknown payload version 0/],
    [payload(4, ['uint64', 'uint64'], [1n, 1n]), /expected 1 ABI words/],
    [payload(4, ['uint256'], [1n << 64n]), /does not fit a uint64/],
    [payload(1, ['uint32', 'uint256', 'uint64', 'uint64', 'bool', 'uint8', 'uint128'], [0, 2n, 1n, 1n, false, 2, 0n]), /argument 1 is not a bool/],
    [payload(6, ['address', 'uint64', 'uint64'], [B, 10077, 1n]), /token 10077 is not listed/],
    [payload(3, ['address', 'uint64', 'bool'], [B, 1n, false]), /no validator is registered/],
    [payload(13, ['address', 'address', 'uint32', 'uint32', 'uint64', 'uint64'], [B, B, 0, 0, 10001, 1n]), /from a sub-account/],
    [payload(9, ['address', 'uint256', 'uint256'], [B, 0x20n, 0n]), /string offset 32, expected 64/],
    ['0x010000', /less than the 4/],
  ];
  for (const [hex, message] of refusals) {
    const out = d(hex);
    t.match('error' in out ? out.error.message : 'decoded', message, message.source);
  }
});

/** The staking token's total: spot balances and fees, staking balances, delegations, pending withdrawals. */
function svcTotal(state: ExchangeState): bigint {
  let total = views.tokenSupplies(state)[1] as bigint;
  for (const v of state.staking.balances.values()) total += v;
  for (const m of state.staking.delegations.values()) for (const d of m.values()) total += d.amount;
  for (const p of state.staking.pending) total += p.amount;
  return total;
}

/** What a refused action may not change: every user's money, positions, orders and stake. */
function money(state: ExchangeState): string {
  return JSON.stringify([A, B, C].map((u) => [
    views.clearinghouseState(state, u).marginSummary, views.spotClearinghouseState(state, u), views.openOrders(state, u).length,
    views.delegatorSummary(state, u), [...state.evmEscrow.entries()],
  ]));
}

type Move = { kind: 'log'; user: number; data: string } | { kind: 'toExchange'; user: number; units: number } | { kind: 'failRelease' };

t.test('property: refused actions change nothing; USDC, SVC and the linked token are conserved', async (t) => {
  const seed = replaySeed(t, 20261126);
  const users = [A, B, C];
  const user = fc.integer({ min: 0, max: 2 });
  const dest = fc.constantFrom(A, B, C, SYSTEM, VALIDATOR_ADDRESS);
  const token = fc.constantFrom(10000, 10001, LINK, 10077);
  const amount = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.constant(2n ** 64n - 1n));
  const data = fc.oneof(
    fc.tuple(fc.constantFrom(0, 10000), fc.boolean(), fc.integer({ min: 80, max: 120 }), fc.integer({ min: 1, max: 50 }), fc.constantFrom(1, 2, 3, 9)).map(([a, b, px, sz, tif]) =>
      payload(1, ['uint32', 'bool', 'uint64', 'uint64', 'bool', 'uint8', 'uint128'], [a, b, BigInt(px) * (a === 0 ? 100_000_000_000n : 1_000_000n), BigInt(sz) * 100_000n, false, tif, 0n])),
    fc.tuple(dest, token, amount).map(([d, tk, w]) => payload(6, ['address', 'uint64', 'uint64'], [d, tk, w])),
    fc.tuple(dest, token, amount).map(([d, tk, w]) => payload(13, ['address', 'address', 'uint32', 'uint32', 'uint64', 'uint64'], [d, `0x${'0'.repeat(40)}`, 0xffffffff, 0, tk, w])),
    fc.tuple(fc.constantFrom(4, 5), amount).map(([id, w]) => payload(id, ['uint64'], [w])),
    fc.tuple(dest, amount, fc.boolean()).map(([d, w, u]) => payload(3, ['address', 'uint64', 'bool'], [d, w, u])),
    fc.tuple(fc.constantFrom(0, 10000), fc.integer({ min: 1, max: 60 })).map(([a, oid]) => payload(10, ['uint32', 'uint64'], [a, BigInt(oid)])),
    fc.tuple(fc.integer({ min: 2, max: 17 }), fc.uint8Array({ maxLength: 200 })).map(([id, bytes]) => solidityPacked(['uint8', 'uint24', 'bytes'], [1, id, bytes])),
    fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 0xffffff })).map(([v, id]) => payload(id, ['uint64'], [1n], v)),
    fc.uint8Array({ maxLength: 40 }).map((b) => `0x${Buffer.from(b).toString('hex')}`),
  );
  const move: fc.Arbitrary<Move> = fc.oneof(
    { weight: 8, arbitrary: fc.record({ kind: fc.constant('log' as const), user, data }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('toExchange' as const), user, units: fc.integer({ min: 1, max: 500_000_000 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('failRelease' as const) }) },
  );
  let runs = 0;
  let refused = 0;
  let accepted = 0;
  fc.assert(fc.property(fc.array(move, { minLength: 10, maxLength: 40 }), (moves) => {
    runs++;
    const h = new Harness();
    const deploy = h.tx(A, { type: 'spotDeploy', deployType: 'token', tokenName: 'LINK', szDecimals: 2, weiDecimals: 18, initialSupply: '1000', evmContract: CONTRACT });
    if (deploy.result.status !== 'ok') throw new Error(deploy.result.error.message);
    // LINK and SVC on the exchange for everyone; C's account exists once it receives.
    h.tx(A, { type: 'spotSend', destination: B, token: 'LINK', amount: '300' });
    const { state } = h.ex;
    // The model ERC-20: every user's holdings on the EVM (the reserve is the rest of the supply).
    const onEvm = new Map<string, bigint>();
    const usdc0 = usdcTotal(state);
    const svc0 = svcTotal(state);
    const link0 = views.tokenSupplies(state)[2] as bigint;
    let height = state.height;
    let time = state.time;
    let failNext = false;
    const log = new EvmActionLog();
    for (const m of moves) {
      h.ex.beginBlock(++height, (time += 1000));
      if (m.kind === 'failRelease') {
        failNext = true;
        continue;
      }
      if (m.kind === 'toExchange') {
        // An ERC-20 transfer to the system address on the EVM, credited after the EVM part.
        const u = users[m.user] as string;
        const wei = BigInt(m.units) * WEI_PER_UNIT;
        if ((onEvm.get(u) ?? 0n) < wei) continue;
        onEvm.set(u, (onEvm.get(u) ?? 0n) - wei);
        if (creditFromEvm(state, CONTRACT, u, wei) !== 'credited') throw new Error('a transfer of tokens that left the exchange was not credited');
        continue;
      }
      const before = money(state);
      const results: { hash: string; result: TxResult }[] = [];
      runEvmActions(h.ex, [receipt(users[m.user] as string, m.data)], () => `0x${height.toString(16).padStart(64, '0')}`, results, [], log);
      const r = results[0]?.result;
      if (r === undefined) throw new Error('no result');
      const orderError = r.status === 'ok' && r.response.type === 'order' ? (r.response.data.statuses[0] as { error?: string }).error : undefined;
      if (r.status === 'err' || orderError !== undefined) {
        refused++;
        if (money(state) !== before) throw new Error(`a refused action changed the exchange: ${m.data} -> ${JSON.stringify(r)}`);
      } else accepted++;
      // The EVM part: releases the action queued (a spot send to the system address) reach the ERC-20, or fail and are refunded.
      for (const rel of takeReleases(state)) {
        if (failNext) {
          refundRelease(state, rel);
          failNext = false;
        } else onEvm.set(rel.to, (onEvm.get(rel.to) ?? 0n) + rel.wei);
      }
      const heldOnEvm = [...onEvm.values()].reduce((a, b) => a + b, 0n);
      if (usdcTotal(state) !== usdc0) throw new Error(`USDC moved: ${usdcTotal(state) - usdc0} after ${m.data}`);
      if (svcTotal(state) !== svc0) throw new Error(`SVC moved: ${svcTotal(state) - svc0} after ${m.data}`);
      if (views.tokenSupplies(state)[2] !== link0) throw new Error('LINK supply on the exchange moved');
      if ((state.evmEscrow.get(LINK) ?? 0n) * WEI_PER_UNIT !== heldOnEvm) throw new Error('LINK escrow differs from what users hold on the EVM');
    }
  }), { seed, numRuns: Number(process.env.FC_RUNS ?? 40) });
  t.ok(runs > 0);
  t.ok(accepted > 20 && refused > 20, `both kinds ran (accepted ${accepted}, refused ${refused})`);
});

t.test('the read views of older blocks: market figures within the window, an error past it', async (t) => {
  const h = new Harness();
  const w = new ExchangeViewWindow(h.ex, 2);
  const heights: number[] = [];
  for (const px of ['90000', '91000', '92000']) {
    h.order(A, { a: 0, b: true, p: px, s: '0.001', r: false, t: { limit: { tif: 'Gtc' } } });
    w.record();
    heights.push(h.ex.state.height);
  }
  const [, h2, h3] = heights as [number, number, number];
  const live = w.at(h3);
  t.not(typeof live, 'string');
  t.same((live as ExchangeView).bbo(0), { bid: 920000n, ask: 0n }, 'the head reads the live state');
  const old = w.at(h2) as ExchangeView;
  t.same(old.bbo(0), { bid: 910000n, ask: 0n }, 'the block before reads its own best bid');
  t.equal(old.l1BlockNumber(), BigInt(h2));
  t.equal(old.bbo(7), null, 'an unknown asset is still unknown');
  t.throws(() => old.position(A, 0), { name: 'AccountFiguresGone', message: new RegExp(`account figures of exchange block ${h2} are not kept`) });
  t.match(w.at(h2 - 1), /exchange state of block \d+ is not kept: the node keeps market figures for the last 2 blocks/, 'past the window: the reason');
});

t.test('a release queued by an action from the EVM waits in the state (and its snapshot) for the next block', async (t) => {
  const h = new Harness();
  h.tx(A, { type: 'spotDeploy', deployType: 'token', tokenName: 'LINK', szDecimals: 2, weiDecimals: 18, initialSupply: '1000', evmContract: CONTRACT });
  const results: { hash: string; result: TxResult }[] = [];
  runEvmActions(h.ex, [receipt(A, payload(6, ['address', 'uint64', 'uint64'], [SYSTEM, LINK, 5n * 100_000_000n]))], () => `0x${'11'.repeat(32)}`, results, []);
  t.same(results[0]?.result, { status: 'ok', response: { type: 'default' } });
  const queued = [{ token: LINK, contract: CONTRACT, system: SYSTEM, to: A, units: 500_000_000n, wei: 5n * 10n ** 18n }];
  t.same(h.ex.state.evmReleases, queued);
  const restored = restoreExchange(h.ex.state.config, JSON.parse(JSON.stringify(snapshotState(h.ex.state))));
  t.same(restored.state.evmReleases, queued, 'restored from a snapshot, the release is still queued');
  t.same(takeReleases(restored.state), queued, 'and the next block\'s EVM part takes it');
});
