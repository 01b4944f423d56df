// A WebSocket test client on the `ws` package.
import WebSocket from 'ws';

/** A client that collects messages and waits (bounded) for one matching a predicate. */
export async function connect(url: string) {
  const ws = new WebSocket(url);
  const inbox: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    const text = data.toString();
    let m: unknown = text; // a text frame that is not JSON stays a string
    try {
      m = JSON.parse(text);
    } catch {
      // kept as text
    }
    inbox.push(m);
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    send: (m: unknown) => ws.send(JSON.stringify(m)),
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async next(pred: (m: any) => boolean, timeoutMs = 5000): Promise<any> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const i = inbox.findIndex(pred);
        if (i >= 0) return inbox.splice(i, 1)[0];
        if (Date.now() > deadline) throw new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(inbox).slice(0, 500)}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
    },
  };
}
