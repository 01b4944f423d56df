// Drives the exchange state machine directly, block by block, with already-authenticated txs.
import { Exchange, type ExchangeTx, type TxOutcome } from '../../exchange/index.ts';
import { devnetGenesis, loadGenesis, type GenesisFile } from '../../genesis/index.ts';

export const USERS = loadGenesis(devnetGenesis()).balances.map((b) => b.address);

export class Harness {
  readonly ex: Exchange;
  private nonce = 0;
  private height = 0;
  time: number;

  constructor(genesis: GenesisFile = devnetGenesis()) {
    const g = loadGenesis(genesis);
    this.time = g.file.genesisTime + 1000;
    this.ex = Exchange.fromGenesis(g.exchange, g.balances, g.file.genesisTime);
  }

  /** Executes one transaction in its own block, one millisecond after the previous. */
  tx(signer: string, action: unknown, vaultAddress: string | null = null): TxOutcome {
    this.height += 1;
    this.time += 1;
    this.ex.beginBlock(this.height, this.time);
    const tx: ExchangeTx = { hash: `0x${this.height.toString(16).padStart(64, '0')}`, signer, nonce: this.time, vaultAddress, action };
    this.nonce += 1;
    return this.ex.execute(tx);
  }

  /** Statuses of an order action. */
  order(signer: string, ...orders: unknown[]): unknown[] {
    const out = this.tx(signer, { type: 'order', orders, grouping: 'na' });
    if (out.result.status !== 'ok') throw new Error(`order failed: ${out.result.error.message}`);
    return out.result.response.data.statuses;
  }

  cancel(signer: string, asset: number, oid: number): unknown {
    const out = this.tx(signer, { type: 'cancel', cancels: [{ a: asset, o: oid }] });
    if (out.result.status !== 'ok') throw new Error(`cancel failed: ${out.result.error.message}`);
    return out.result.response.data.statuses[0];
  }
}

export function lim(a: number, b: boolean, p: string, s: string, tif = 'Gtc', r = false, c?: string) {
  return { a, b, p, s, r, t: { limit: { tif } }, ...(c === undefined ? {} : { c }) };
}

/** mulberry32: a small seeded PRNG for replayable streams. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
