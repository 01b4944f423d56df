// EVM blocks, receipts and the transaction index in level, beside the state trie. Keys:
// block!<height hex16> -> StoredEvmBlock (evm/stored-block.ts), hash!<block hash> -> height, tx!<tx hash> -> [height, index],
// meta!head -> height. Trie nodes live in their own sublevel `trie`.
import { Level } from 'level';
import { sublevelPrefix, writeRaw, type RawOp } from '../primitives/index.ts';
import type { AnyLevel } from './level-db.ts';
import { decodeStoredBlock, encodeStoredBlock } from './stored-block.ts';

export interface StoredLog {
  readonly address: string;
  readonly topics: string[];
  readonly data: string;
}

export interface StoredReceipt {
  readonly status: 0 | 1;
  readonly cumulativeGasUsed: bigint;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice: bigint;
  readonly logs: StoredLog[];
  /** Hex; absent when the receipt has no logs (all zeros). */
  readonly logsBloom?: string;
  readonly contractAddress: string | null;
}

export interface StoredEvmBlock {
  /** The block's RLP (header and transactions). */
  readonly rlp: Uint8Array;
  readonly hash: string;
  /** Sender of each transaction. */
  readonly senders: string[];
  readonly receipts: StoredReceipt[];
  /** Whether each release of linked tokens succeeded (absent when the block made none). */
  readonly released?: boolean[];
  /** The devnet's EVM clock shift after this block (evm/devnet.ts; absent: none). */
  readonly clock?: { readonly offset: string; readonly next?: string };
}

const key = (n: number) => n.toString(16).padStart(16, '0');

export class EvmStore {
  readonly db: Level<string, unknown>;
  private readonly blocks;
  private readonly hashes;
  private readonly txs;
  private readonly meta;
  readonly trie: AnyLevel;
  /** The sublevels' key prefixes, for writes that bypass abstract-level (primitives/level-write.ts). */
  private readonly prefix: { readonly block: string; readonly hash: string; readonly tx: string; readonly meta: string };

  constructor(readonly path: string) {
    this.db = new Level<string, unknown>(path, { valueEncoding: 'json' });
    this.blocks = this.db.sublevel<string, Uint8Array>('block', { valueEncoding: 'view' });
    this.hashes = this.db.sublevel<string, number>('hash', { valueEncoding: 'json' });
    this.txs = this.db.sublevel<string, [number, number]>('tx', { valueEncoding: 'json' });
    this.meta = this.db.sublevel<string, unknown>('meta', { valueEncoding: 'json' });
    this.trie = this.db.sublevel('trie', { keyEncoding: 'view', valueEncoding: 'view' }) as unknown as AnyLevel;
    this.prefix = { block: sublevelPrefix(this.blocks), hash: sublevelPrefix(this.hashes), tx: sublevelPrefix(this.txs), meta: sublevelPrefix(this.meta) };
  }

  open(): Promise<void> {
    return this.db.open();
  }

  close(): Promise<void> {
    return this.db.close();
  }

  async head(): Promise<number | undefined> {
    return (await this.meta.get('head')) as number | undefined;
  }

  async block(height: number): Promise<StoredEvmBlock | undefined> {
    const v = await this.blocks.get(key(height));
    return v === undefined ? undefined : decodeStoredBlock(v);
  }

  heightOfHash(hash: string): Promise<number | undefined> {
    return this.hashes.get(hash.toLowerCase());
  }

  txLocation(hash: string): Promise<[number, number] | undefined> {
    return this.txs.get(hash.toLowerCase());
  }

  /** Makes every earlier write durable (one fsync'd write flushes the log before it). */
  async sync(): Promise<void> {
    await this.meta.put('synced', 1, { sync: true } as never);
  }

  /**
   * Writes a block, its indexes and the new head in one batch. A block written above the
   * consensus head (a crash between this write and the consensus one) is overwritten when the
   * height is executed again; lookups through the indexes check the block they land on.
   */
  async writeBlock(height: number, b: StoredEvmBlock, txHashes: readonly string[], sync: boolean): Promise<void> {
    // One batch, written as the sublevels' encodings store it (one index entry per transaction).
    const p = this.prefix;
    const ops: RawOp[] = [
      { type: 'put', key: p.block + key(height), value: encodeStoredBlock(b) },
      { type: 'put', key: p.hash + b.hash, value: String(height) },
    ];
    for (let i = 0; i < txHashes.length; i++) ops.push({ type: 'put', key: p.tx + txHashes[i], value: `[${height},${i}]` });
    ops.push({ type: 'put', key: `${p.meta}head`, value: String(height) });
    await writeRaw(this.db as never, ops, sync);
  }
}
