// A load generator process for the crash campaign (test/support/crash.ts): the hot-path load
// generator's order flow (bench/load-flow.ts: quotes, cancels by cloid, takers, batches), signed
// as it goes and posted over WebSocket connections to one or more nodes at a fixed rate, with a
// bounded number in flight. It reports every acknowledged action (status ok) by signer and
// nonce, in batches over IPC, and ends when told to or when every connection has closed (the
// node was killed). An action whose answer never came is not acknowledged.
import WebSocket from 'ws';
import { loadAction, type LoadMix } from '../../bench/load-flow.ts';
import { flowAccounts, orderSigner } from '../../bench/order-flow.ts';

export interface CrashSenderConfig {
  /** ws://host:port/ws of each node; account i goes to node i mod n. */
  readonly urls: readonly string[];
  readonly mix: LoadMix;
  /** Actions a second. */
  readonly rate: number;
  /** Posts in flight per connection at most. */
  readonly window: number;
  /** Devnet accounts [first, count]. */
  readonly accounts: readonly [number, number];
  /** The flow's action index to start from (continues the book across runs). */
  readonly firstAction: number;
  /** The last nonce each account used before (nonces keep rising across runs). */
  readonly lastNonces: readonly number[];
  readonly cloidBase: number;
}

export type CrashSenderMessage =
  | { readonly kind: 'ready' }
  | { readonly kind: 'acks'; readonly acks: readonly (readonly [string, number])[] }
  | { readonly kind: 'done'; readonly sent: number; readonly acked: number; readonly refused: Record<string, number>; readonly nextAction: number; readonly lastNonces: readonly number[] };

async function main(): Promise<void> {
  const cfg = JSON.parse(process.env.CRASH_SENDER as string) as CrashSenderConfig;
  const accounts = flowAccounts(cfg.accounts[0], cfg.accounts[1]);
  accounts.forEach((a, i) => (a.nonce = cfg.lastNonces[i] ?? 0));
  const sign = orderSigner();
  const addresses = accounts.map((a) => a.signer.address.toLowerCase());
  const sockets = await Promise.all(cfg.urls.map((url) => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws)).once('error', reject);
  })));
  // Post id -> [signer, nonce]: answered or dropped when its connection closes.
  const pending = sockets.map(() => new Map<number, readonly [string, number]>());
  const refused: Record<string, number> = {};
  let acks: (readonly [string, number])[] = [];
  let sent = 0;
  let acked = 0;
  let k = cfg.firstAction;
  let open = sockets.length;
  let stopping = false;
  const flush = () => {
    if (acks.length === 0) return;
    process.send?.({ kind: 'acks', acks } satisfies CrashSenderMessage);
    acks = [];
  };
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  sockets.forEach((ws, c) => {
    ws.on('message', (data: Buffer) => {
      const msg = JSON.parse(data.toString()) as { channel?: string; data?: { id?: number; response?: { status?: string; response?: unknown } } };
      if (msg.channel !== 'post' || typeof msg.data?.id !== 'number') return;
      const who = pending[c]?.get(msg.data.id);
      if (who === undefined) return;
      pending[c]?.delete(msg.data.id);
      const answer = msg.data.response;
      if (answer?.status === 'ok') {
        acked++;
        acks.push(who);
      } else {
        const why = JSON.stringify(answer?.response ?? answer).slice(0, 80);
        refused[why] = (refused[why] ?? 0) + 1;
      }
    });
    // A killed node closes (or resets) the connection: what is in flight was never answered.
    const closed = () => {
      pending[c]?.clear();
      if (--open === 0) finish();
    };
    ws.once('close', closed);
    ws.on('error', () => {});
  });
  process.on('message', (m: { kind: string }) => {
    if (m.kind === 'stop') {
      stopping = true;
      finish();
    }
  });
  process.send?.({ kind: 'ready' } satisfies CrashSenderMessage);
  const start = performance.now();
  let due = 0;
  const timer = setInterval(() => {
    flush();
    if (stopping || open < sockets.length) return;
    due = Math.floor(((performance.now() - start) * cfg.rate) / 1000);
    while (sent < due) {
      const { acct, action } = loadAction(cfg.mix, k, accounts, cfg.cloidBase);
      const i = accounts.indexOf(acct);
      const c = i % sockets.length;
      if ((pending[c]?.size ?? 0) >= cfg.window) break;
      const body = sign(acct, action);
      const id = sent;
      pending[c]?.set(id, [addresses[i] as string, body.nonce]);
      sockets[c]?.send(`{"method":"post","id":${id},"request":{"type":"exchange","payload":${JSON.stringify(body)}}}`);
      sent++;
      k++;
    }
  }, 2);
  await finished;
  clearInterval(timer);
  flush();
  for (const ws of sockets) ws.terminate();
  const done: CrashSenderMessage = { kind: 'done', sent, acked, refused, nextAction: k, lastNonces: accounts.map((a) => a.nonce) };
  process.send?.(done, () => process.exit(0));
}

await main();
