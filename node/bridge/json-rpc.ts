// A small JSON-RPC client for the bridge's external chains: every call has a timeout, and a
// failure (unreachable, bad answer, error object) is one typed error the relayer reports.
export class ChainRpcError extends Error {
  override readonly name = 'ChainRpcError';
}

export class ChainRpc {
  private id = 0;

  constructor(readonly url: string, private readonly timeoutMs = 5000) {}

  async call<T>(method: string, params: unknown[]): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new ChainRpcError(`${this.url} unreachable: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
    }
    let body: { result?: T; error?: { message?: string; data?: unknown } };
    try {
      body = (await res.json()) as typeof body;
    } catch {
      throw new ChainRpcError(`${this.url} answered ${method} with HTTP ${res.status} and no JSON`);
    }
    if (body.error !== undefined) throw new ChainRpcError(`${method}: ${body.error.message ?? JSON.stringify(body.error)}`);
    if (!('result' in body)) throw new ChainRpcError(`${method}: no result`);
    return body.result as T;
  }

  async blockNumber(): Promise<number> {
    return Number(BigInt(await this.call<string>('eth_blockNumber', [])));
  }

  async chainId(): Promise<number> {
    return Number(BigInt(await this.call<string>('eth_chainId', [])));
  }
}
