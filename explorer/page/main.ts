// The explorer page: chain height and blocks, validators, markets, a live market (book, depth,
// trades, candles) and an account, from the node's REST reads and its WebSocket streams.
import { CandlestickSeries, createChart, type ISeriesApi, type UTCTimestamp } from 'lightweight-charts';
import { WsClient } from '../../client/ws.ts';
import type { Candle, L2Book, PerpAssetCtx, Trade } from '../../client/types.ts';
import { get, info } from './api.ts';
import { drawDepth } from './depth.ts';
import { followHeads } from './heads.ts';
import { byId, clock, fillTable, short, throttle, type Cell } from './dom.ts';

interface BlockSummary {
  height: number;
  time: number;
  hash: string;
  proposer: string;
  txs: { hash: string; kind: string; type: string; signer: string | null }[];
}

const state = { coin: 'BTC', account: null as string | null, unsubs: [] as (() => void)[], accountUnsubs: [] as (() => void)[], trades: [] as Trade[] };
let ws: WsClient;
let candles: ISeriesApi<'Candlestick'>;

async function main(): Promise<void> {
  const config = await get<{ wsPort: number | null; rpcPort: number | null }>('/explorer/config.json');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const wsUrl = `${scheme}://${location.hostname}:${config.wsPort ?? 4000}/ws`;
  ws = new WsClient({ url: wsUrl, onState: (s) => (byId('stream').textContent = s === 'open' ? 'live' : 'reconnecting') });
  const chart = createChart(byId('chart'), { layout: { background: { color: '#12171d' }, textColor: '#7d8a99' }, grid: { vertLines: { color: '#1c232b' }, horzLines: { color: '#1c232b' } }, timeScale: { timeVisible: true } });
  candles = chart.addSeries(CandlestickSeries, { upColor: '#3fb68b', downColor: '#ef5b5b', wickUpColor: '#3fb68b', wickDownColor: '#ef5b5b', borderVisible: false });
  new ResizeObserver(() => chart.applyOptions({ width: byId('chart').clientWidth })).observe(byId('chart'));

  await ws.connect().catch(() => (byId('stream').textContent = 'offline'));
  await Promise.all([refreshBlocks(), refreshMarkets(true), refreshValidators()]);
  await selectCoin(new URLSearchParams(location.search).get('coin') ?? state.coin);
  // Markets follow the mids stream; blocks follow the JSON-RPC WebSocket's new heads (each read
  // from /v1/blocks, at most 4 times a second), and every 5 s without one; validators every 10 s.
  const marketsSoon = throttle(() => void refreshMarkets(false), 1000);
  await ws.subscribe({ type: 'allMids' }, marketsSoon).catch(() => {});
  const blocksSoon = throttle(() => void refreshBlocks(), 250);
  if (config.rpcPort !== null) {
    followHeads(`${scheme}://${location.hostname}:${config.rpcPort}`, (height) => {
      byId('height').textContent = String(height);
      blocksSoon();
    });
  }
  setInterval(() => void refreshBlocks(), config.rpcPort === null ? 1000 : 5000);
  setInterval(() => void refreshValidators(), 10_000);
  byId<HTMLSelectElement>('coin').addEventListener('change', (e) => void selectCoin((e.target as HTMLSelectElement).value));
  byId<HTMLFormElement>('account-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void showAccount(byId<HTMLInputElement>('account-address').value.trim());
  });
  const preset = new URLSearchParams(location.search).get('address');
  if (preset !== null) {
    byId<HTMLInputElement>('account-address').value = preset;
    await showAccount(preset);
  }
}

async function refreshBlocks(): Promise<void> {
  const { height, blocks } = await get<{ height: number; blocks: BlockSummary[] }>('/v1/blocks?limit=15');
  byId('height').textContent = String(height);
  if (blocks[0] !== undefined) byId('block-time').textContent = new Date(blocks[0].time).toISOString().replace('T', ' ').slice(0, 23);
  fillTable(byId('blocks'), ['HEIGHT', 'TIME', 'TXS', 'HASH', 'PROPOSER', 'TRANSACTIONS'], blocks.map((b) => [
    b.height, clock(b.time), b.txs.length, { text: short(b.hash), title: b.hash }, { text: short(b.proposer), title: b.proposer },
    { text: b.txs.map((t) => (t.signer === null ? t.type : `${t.type} ${short(t.signer, 4)}`)).join(', '), cls: 'txs', title: b.txs.map((t) => `${t.hash} ${t.type} ${t.signer ?? ''}`).join('\n') },
  ]));
}

async function refreshValidators(): Promise<void> {
  const vs = await info({ type: 'validatorSummaries' });
  const total = vs.reduce((s, v) => s + v.power, 0);
  fillTable(byId('validators'), ['VALIDATOR', 'NAME', 'STAKE', 'VOTING POWER', 'SHARE', 'ACTIVE'], vs.map((v) => [
    { text: short(v.validator), title: v.validator }, v.name, v.stake, v.power, total === 0 ? '-' : `${((100 * v.power) / total).toFixed(1)}%`, v.isActive ? 'yes' : 'no',
  ]));
}

async function refreshMarkets(first: boolean): Promise<void> {
  const [[meta, ctxs], [spot, spotCtxs]] = await Promise.all([info({ type: 'metaAndAssetCtxs' }), info({ type: 'spotMetaAndAssetCtxs' })]);
  const perps = meta.universe.map((m, i) => ({ name: m.name, ctx: ctxs[i] as PerpAssetCtx }));
  fillTable(byId('markets'), ['PERP', 'MARK', 'ORACLE', 'FUNDING/H', 'OPEN INTEREST', '24H VOLUME'],
    perps.map((p) => [p.name, p.ctx.markPx, p.ctx.oraclePx, p.ctx.funding, p.ctx.openInterest, p.ctx.dayNtlVlm]), (i) => void selectCoin(perps[i]!.name));
  fillTable(byId('spot-markets'), ['SPOT', 'MARK', 'MID', '24H BASE VOLUME', 'SUPPLY'],
    spotCtxs.map((c) => [c.coin, c.markPx, c.midPx, c.dayBaseVlm, c.totalSupply]), (i) => void selectCoin(spotCtxs[i]!.coin));
  const figures = perps.find((p) => p.name === state.coin)?.ctx;
  byId('market-figures').textContent = figures === undefined ? '' : `mark ${figures.markPx}  oracle ${figures.oraclePx}  funding ${figures.funding}  OI ${figures.openInterest}`;
  const select = byId<HTMLSelectElement>('coin');
  const names = [...perps.map((p) => p.name), ...spot.universe.map((p) => p.name)];
  if (first || select.options.length !== names.length) {
    select.replaceChildren(...names.map((n) => new Option(n, n, false, n === state.coin)));
  }
}

async function selectCoin(coin: string): Promise<void> {
  state.coin = coin;
  byId<HTMLSelectElement>('coin').value = coin;
  for (const u of state.unsubs.splice(0)) u();
  state.trades = [];
  showBook(await info({ type: 'l2Book', coin }));
  renderTrades();
  const now = Date.now();
  const history = await info({ type: 'candleSnapshot', req: { coin, interval: '1m', startTime: now - 6 * 3_600_000 } });
  candles.setData(history.map(bar));
  state.unsubs.push(
    await ws.subscribe({ type: 'l2Book', coin }, (b) => b.coin === state.coin && showBook(b)),
    await ws.subscribe({ type: 'trades', coin }, (ts) => {
      state.trades = [...ts.slice().reverse(), ...state.trades].slice(0, 40);
      renderTrades();
    }),
    await ws.subscribe({ type: 'candle', coin, interval: '1m' }, (c) => candles.update(bar(c))),
  );
  void refreshMarkets(false);
}

function bar(c: Candle) {
  return { time: Math.floor(c.t / 1000) as UTCTimestamp, open: Number(c.o), high: Number(c.h), low: Number(c.l), close: Number(c.c) };
}

function showBook(book: L2Book): void {
  const [bids, asks] = book.levels;
  const rows = (levels: typeof bids): Cell[][] => levels.slice(0, 12).map((l) => [l.px, l.sz, l.n]);
  fillTable(byId('book-asks'), ['PRICE', 'SIZE', 'ORDERS'], rows(asks).reverse());
  fillTable(byId('book-bids'), [], rows(bids));
  byId('book-spread').textContent = bids[0] !== undefined && asks[0] !== undefined ? `spread ${(Number(asks[0].px) - Number(bids[0].px)).toPrecision(5)}` : 'no spread';
  drawDepth(byId('depth') as unknown as SVGSVGElement, bids, asks);
}

function renderTrades(): void {
  fillTable(byId('trades'), ['TIME', 'PRICE', 'SIZE'], state.trades.map((t) => [clock(t.time), { text: t.px, cls: t.side === 'B' ? 'buy' : 'sell' }, t.sz]));
}

async function showAccount(address: string): Promise<void> {
  const box = byId('account');
  for (const u of state.accountUnsubs.splice(0)) u();
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) {
    box.replaceChildren(Object.assign(document.createElement('p'), { className: 'error', textContent: 'Enter an address: 0x and 40 hex digits.' }));
    return;
  }
  const user = address.toLowerCase();
  state.account = user;
  await renderAccount(user);
  const again = throttle(() => void (state.account === user && renderAccount(user)), 200);
  state.accountUnsubs.push(
    await ws.subscribe({ type: 'userFills', user }, again),
    await ws.subscribe({ type: 'orderUpdates', user }, again),
  );
}

async function renderAccount(user: string): Promise<void> {
  const [perp, spot, orders, fills] = await Promise.all([
    info({ type: 'clearinghouseState', user }), info({ type: 'spotClearinghouseState', user }), info({ type: 'openOrders', user }), info({ type: 'userFills', user }),
  ]);
  const table = (id: string) => Object.assign(document.createElement('table'), { id });
  const heading = (text: string) => Object.assign(document.createElement('h3'), { textContent: text });
  const summary = Object.assign(document.createElement('p'), {
    id: 'account-summary',
    textContent: `account value ${perp.marginSummary.accountValue}  withdrawable ${perp.withdrawable}  margin used ${perp.marginSummary.totalMarginUsed}`,
  });
  const balances = table('account-balances');
  fillTable(balances, ['TOKEN', 'TOTAL', 'HOLD'], spot.balances.map((b) => [b.coin, b.total, b.hold]));
  const positions = table('account-positions');
  fillTable(positions, ['COIN', 'SIZE', 'ENTRY', 'UNREALIZED PNL', 'LEVERAGE', 'LIQ. PRICE'], perp.assetPositions.map(({ position: p }) => [p.coin, p.szi, p.entryPx, p.unrealizedPnl, `${p.leverage.value}x ${p.leverage.type}`, p.liquidationPx ?? '-']));
  const open = table('account-orders');
  fillTable(open, ['OID', 'COIN', 'SIDE', 'PRICE', 'SIZE', 'PLACED'], orders.map((o) => [o.oid, o.coin, { text: o.side === 'B' ? 'buy' : 'sell', cls: o.side === 'B' ? 'buy' : 'sell' }, o.limitPx, o.sz, clock(o.timestamp)]));
  const filled = table('account-fills');
  fillTable(filled, ['TIME', 'COIN', 'SIDE', 'PRICE', 'SIZE', 'DIRECTION', 'FEE'], fills.slice(0, 50).map((f) => [clock(f.time), f.coin, { text: f.side === 'B' ? 'buy' : 'sell', cls: f.side === 'B' ? 'buy' : 'sell' }, f.px, f.sz, f.dir, f.fee]));
  byId('account').replaceChildren(summary, heading('Balances'), balances, heading('Positions'), positions, heading('Open orders'), open, heading('Fills'), filled);
}

main().catch((err: unknown) => {
  document.body.prepend(Object.assign(document.createElement('p'), { className: 'error', textContent: `explorer: ${String(err)}` }));
});
