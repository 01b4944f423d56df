// New blocks as they commit, from the node's JSON-RPC WebSocket (`eth_subscribe newHeads`: the
// embedded EVM makes one block per consensus block). Reconnects after a drop.

/** Calls `onHead(height)` for each new block until the page closes. */
export function followHeads(url: string, onHead: (height: number) => void): void {
  let delay = 500;
  const open = () => {
    const ws = new WebSocket(url);
    ws.onopen = () => {
      delay = 500;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    };
    ws.onmessage = (ev) => {
      const msg = JSON.parse(String(ev.data)) as { method?: string; params?: { result?: { number?: string } } };
      const n = msg.method === 'eth_subscription' ? msg.params?.result?.number : undefined;
      if (typeof n === 'string') onHead(Number.parseInt(n, 16));
    };
    ws.onclose = () => {
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 10_000);
    };
  };
  open();
}
