// The node's level database: blocks with their commits, the committed head, state snapshots and
// the indexer's records. One block and everything derived from it are written in one batch.
import { Level } from 'level';
import { evidenceKey, type Block, type Commit } from '../consensus/index.ts';
import type { FillRecord, FundingRateRecord, FundingRecord, LiquidationRecord } from '../exchange/index.ts';
import { GROWING_STORE_OPTIONS, prepareBatch, sublevelPrefix, type Json, type PreparedBatch, type RawBatch } from '../primitives/index.ts';
import type { StoredCandle } from './candles.ts';
import type { PortfolioRow, PortfolioSample } from './portfolio.ts';
import { decodeChainBlock, encodeChainBlock, type StoredBlock } from './stored-block.ts';
import { packFills, packOrderStatus, unpackFills, unpackOrderStatus, type OrderStatusRecord } from './stored-records.ts';
import { RecordBytes } from './stored-record-bytes.ts';
import { STORED_FILLS, STORED_ORDER_STATUS, STORED_ORDER_STATUSES, readStoredFills, readStoredOrderStatus, readStoredOrderStatuses } from './app-hash-records.ts';
import type { WrittenOutputs } from './app-hash.ts';

export type { OrderStatusRecord } from './stored-records.ts';
export type { StoredBlock } from './stored-block.ts';

export interface StoredHead {
  readonly height: number;
  readonly hash: string;
  readonly time: number;
  readonly appHash: string;
  /** Fills indexed so far; the next fill's sequence number. */
  readonly fillSeq: number;
}

export interface StoredSnapshot {
  readonly head: StoredHead;
  readonly state: Json;
  /** `stateHash` of the state (absent in snapshots of older versions): checked when it is restored. */
  readonly stateHash?: string;
}

/** An order's status: the record the app hash wrote as event `at` of `written`, or the record itself. */
export type StatusWrite =
  | { readonly user: string; readonly oid: number; readonly at: number }
  | { readonly user: string; readonly record: OrderStatusRecord };

export interface BlockWrite {
  readonly block: Block;
  readonly signers: readonly string[];
  readonly commit: Commit;
  readonly head: StoredHead;
  /** `at`: the event's index in `written`. */
  readonly fills: readonly { user: string; seq: number; fill: FillRecord; at?: number }[];
  /** Each order's last status of the block (an oid at most once). */
  readonly orderStatuses: readonly StatusWrite[];
  readonly fundings: readonly { user: string; seq: number; funding: FundingRecord }[];
  readonly fundingRates: readonly FundingRateRecord[];
  readonly liquidations: readonly LiquidationRecord[];
  readonly candles: readonly StoredCandle[];
  readonly portfolio: readonly PortfolioRow[];
  readonly snapshot: StoredSnapshot | null;
  /** fsync before resolving: set when the block acknowledges actions. */
  readonly sync: boolean;
  /**
   * The block's outputs as the app hash wrote them (versions 2 and 3): fills and order statuses
   * are stored as those records (node/app-hash-records.ts), copied while the batch is prepared.
   */
  readonly written?: WrittenOutputs;
}

/** A small key-value store of node-local records (a sublevel of the node's database). */
export interface LocalKv {
  put(key: string, value: unknown): Promise<void>;
  del(key: string): Promise<void>;
  entries(range: { gt?: string; lt?: string }): AsyncIterable<[string, unknown]>;
}

const key = (n: number) => n.toString(16).padStart(16, '0');

/** The order status the app hash wrote as event `at`, read back (through the block's `bytes`). */
function writtenStatus(bytes: RecordBytes, written: WrittenOutputs | undefined, at: number): OrderStatusRecord {
  if (written === undefined) throw new Error('invariant: an order status given as a written record without the written outputs');
  return readStoredOrderStatuses(bytes.records(STORED_ORDER_STATUSES, written, [at]))[0] as OrderStatusRecord;
}

/**
 * Order statuses are stored by user, oid bucket and height: oids `b * ORDER_BUCKET` up to
 * `(b + 1) * ORDER_BUCKET - 1` share bucket `b`. A user's statuses of a block take one entry a
 * bucket they touch (a 20-order action's orders share one), and finding an order's last status
 * reads that user's entries of its bucket, newest first: at most a few per order of the bucket.
 */
export const ORDER_BUCKET = 1024;
const utf8 = new TextDecoder();
const parseJson = (bytes: Uint8Array): unknown => JSON.parse(utf8.decode(bytes));

export class ChainStore {
  private readonly db: Level<string, unknown>;
  private readonly blocks;
  private readonly meta;
  private readonly fills;
  private readonly orders;
  private readonly statuses;
  private readonly fundings;
  private readonly rates;
  private readonly liquidations;
  private readonly candles;
  private readonly portfolio;
  private readonly evidence;

  constructor(readonly path: string) {
    this.db = new Level<string, unknown>(path, { ...GROWING_STORE_OPTIONS, valueEncoding: 'json' });
    this.blocks = this.db.sublevel<string, Uint8Array>('block', { valueEncoding: 'view' });
    this.meta = this.db.sublevel<string, unknown>('meta', { valueEncoding: 'json' });
    // Packed entries (stored-records.ts): a user's fills of one block under its first fill's
    // sequence number; a user's order statuses of one block and oid bucket under the bucket and
    // the height (`ostat`, one entry an order under its oid, is what earlier versions wrote).
    // Each entry is JSON text (stored-records.ts) or, on chains of app hash version 2 or 3, the
    // app hash's records after a marker byte (app-hash-records.ts).
    this.fills = this.db.sublevel<string, Uint8Array>('fill', { valueEncoding: 'view' });
    this.orders = this.db.sublevel<string, Uint8Array>('ostat', { valueEncoding: 'view' });
    this.statuses = this.db.sublevel<string, Uint8Array>('ostatb', { valueEncoding: 'view' });
    this.fundings = this.db.sublevel<string, FundingRecord>('fund', { valueEncoding: 'json' });
    this.rates = this.db.sublevel<string, FundingRateRecord>('frate', { valueEncoding: 'json' });
    this.liquidations = this.db.sublevel<string, LiquidationRecord>('liq', { valueEncoding: 'json' });
    this.candles = this.db.sublevel<string, StoredCandle>('candle', { valueEncoding: 'json' });
    this.portfolio = this.db.sublevel<string, PortfolioSample>('pf', { valueEncoding: 'json' });
    this.evidence = this.db.sublevel<string, number>('evid', { valueEncoding: 'json' });
  }

  /**
   * Node-local records outside the chain (API keys, node/api-keys.ts): never part of consensus
   * state or of a block's batch; written with fsync.
   */
  localStore(name: string): LocalKv {
    const sub = this.db.sublevel<string, unknown>(`local-${name}`, { valueEncoding: 'json' });
    return {
      put: (k, v) => sub.put(k, v, { sync: true } as never),
      del: (k) => sub.del(k, { sync: true } as never),
      entries: (range) => sub.iterator(range),
    };
  }

  /** Keys (`evidenceKey`) of all committed evidence; few, so held in memory by the chain. */
  async evidenceKeys(): Promise<string[]> {
    return this.evidence.keys().all();
  }

  open(): Promise<void> {
    return this.db.open();
  }

  close(): Promise<void> {
    return this.db.close();
  }

  async genesisHash(): Promise<string | undefined> {
    return (await this.meta.get('genesis')) as string | undefined;
  }

  setGenesisHash(hash: string): Promise<void> {
    return this.meta.put('genesis', hash);
  }

  async head(): Promise<StoredHead | undefined> {
    return (await this.meta.get('head')) as StoredHead | undefined;
  }

  async snapshot(): Promise<StoredSnapshot | undefined> {
    return (await this.meta.get('snapshot')) as StoredSnapshot | undefined;
  }

  putSnapshot(s: StoredSnapshot): Promise<void> {
    return this.meta.put('snapshot', s, { sync: true } as never);
  }

  async block(height: number): Promise<StoredBlock | undefined> {
    const v = await this.blocks.get(key(height));
    return v === undefined ? undefined : decodeChainBlock(v);
  }

  /**
   * A block and everything derived from it as one batch, built now: each entry is copied into
   * LevelDB's batch as it is made (`prepareBatch`), so nothing of `w` need live on until the
   * write, which waits for the blocks before it.
   */
  prepareBlock(w: BlockWrite): PreparedBatch {
    return prepareBatch(this.db as never, (batch) => this.blockOps(w, batch), w.sync);
  }

  /** Writes a block at once. */
  writeBlock(w: BlockWrite): Promise<void> {
    return this.prepareBlock(w).write();
  }

  private blockOps(w: BlockWrite, batch: RawBatch): void {
    const stored: StoredBlock = {
      header: w.block.header,
      txs: w.block.txs,
      signers: w.signers,
      commit: w.commit,
      ...(w.block.evidence !== undefined && w.block.evidence.length > 0 ? { evidence: [...w.block.evidence] } : {}),
    };
    // One batch, written as the sublevels' encodings store it (several entries per action).
    batch.put(sublevelPrefix(this.blocks) + key(w.block.header.height), encodeChainBlock(stored));
    const put = (k: string, value: unknown, sublevel: object) => batch.put(sublevelPrefix(sublevel) + k, JSON.stringify(value));
    put('head', w.head, this.meta);
    const written = w.written;
    const fillsOf = new Map<string, { seq: number; fills: FillRecord[]; at: number[] | null }>();
    for (const f of w.fills) {
      const mine = fillsOf.get(f.user);
      if (mine === undefined) fillsOf.set(f.user, { seq: f.seq, fills: [f.fill], at: written !== undefined && f.at !== undefined ? [f.at] : null });
      else {
        mine.fills.push(f.fill);
        if (mine.at !== null && f.at !== undefined) mine.at.push(f.at);
        else mine.at = null;
      }
    }
    // The common entries as bytes (stored-record-bytes.ts); one it cannot write goes as text.
    const bytes = new RecordBytes();
    const putBytes = (k: Uint8Array | null, v: Uint8Array | null): boolean => {
      if (k === null || v === null) return false;
      batch.put(k, v);
      return true;
    };
    const fillsPrefix = sublevelPrefix(this.fills);
    for (const [user, mine] of fillsOf) {
      const k = bytes.key(fillsPrefix, user, mine.seq);
      const v = k === null ? null : written !== undefined && mine.at !== null ? bytes.records(STORED_FILLS, written, mine.at) : bytes.fills(mine.fills);
      if (!putBytes(k, v)) put(`${user}!${key(mine.seq)}`, packFills(mine.fills), this.fills);
    }
    // By user, then oid bucket, in the order given. A group of written records only is copied as
    // the app hash wrote them; any other is written as text, its written records read back.
    const statusesOf = new Map<string, Map<number, StatusWrite[]>>();
    for (const o of w.orderStatuses) {
      let mine = statusesOf.get(o.user);
      if (mine === undefined) statusesOf.set(o.user, (mine = new Map()));
      const bucket = Math.floor(('record' in o ? o.record.order.oid : o.oid) / ORDER_BUCKET);
      const group = mine.get(bucket);
      if (group === undefined) mine.set(bucket, [o]);
      else group.push(o);
    }
    const statusesPrefix = sublevelPrefix(this.statuses);
    const height = w.block.header.height;
    for (const [user, mine] of statusesOf) {
      for (const [bucket, group] of mine) {
        const k = bytes.key(statusesPrefix, user, bucket, height);
        if (k !== null && written !== undefined && group.every((o) => !('record' in o))) {
          putBytes(k, bytes.records(STORED_ORDER_STATUSES, written, group.map((o) => (o as { at: number }).at)));
          continue;
        }
        const records = group.map((o) => ('record' in o ? o.record : writtenStatus(bytes, written, o.at)));
        if (!putBytes(k, k === null ? null : bytes.orderStatuses(records))) put(`${user}!${key(bucket)}!${key(height)}`, records.map(packOrderStatus), this.statuses);
      }
    }
    for (const f of w.fundings) put(`${f.user}!${key(f.seq)}`, f.funding, this.fundings);
    for (const r of w.fundingRates) put(`${r.coin}!${key(r.time)}`, r, this.rates);
    w.liquidations.forEach((l, i) => put(`${key(l.time)}!${key(w.block.header.height)}!${key(i)}`, l, this.liquidations));
    for (const c of w.candles) put(`${c.coin}!${c.interval}!${key(c.t)}`, c, this.candles);
    for (const p of w.portfolio) put(`${p.user}!${key(p.sample[0])}`, p.sample, this.portfolio);
    for (const e of w.block.evidence ?? []) put(evidenceKey(e), w.block.header.height, this.evidence);
    if (w.snapshot !== null) put('snapshot', w.snapshot, this.meta);
  }

  /** Visits the user's `count` most recent fills (or all it has), newest first, until `visit` answers false. */
  private async recentFills(user: string, count: number, visit: (f: FillRecord) => boolean): Promise<void> {
    let seen = 0;
    // An entry holds at least one fill, so `count` entries reach back far enough.
    for await (const entry of this.fills.values({ gt: `${user}!`, lt: `${user}!~`, reverse: true, limit: count })) {
      const fills = entry[0] === STORED_FILLS ? readStoredFills(entry) : unpackFills(parseJson(entry));
      for (let i = fills.length - 1; i >= 0; i--) {
        if (seen++ === count || !visit(fills[i] as FillRecord)) return;
      }
    }
  }

  /** The user's most recent fills, newest first. */
  async userFills(user: string, limit: number): Promise<FillRecord[]> {
    const out: FillRecord[] = [];
    await this.recentFills(user, limit, (f) => out.push(f) > 0);
    return out;
  }

  /**
   * The user's fills with start <= time < end, oldest first, at most `limit`, looking back through
   * the `reach` most recent fills (Hyperliquid serves the 10000 most recent this way).
   */
  async userFillsBetween(user: string, start: number, end: number, limit: number, reach: number): Promise<FillRecord[]> {
    const found: FillRecord[] = [];
    await this.recentFills(user, reach, (f) => {
      if (f.time < start) return false;
      if (f.time < end) found.push(f);
      return true;
    });
    return found.reverse().slice(0, limit);
  }

  /** A market's funding rates with startTime <= time < endTime, oldest first, at most `limit`. */
  async fundingHistory(coin: string, start: number, end: number, limit: number): Promise<FundingRateRecord[]> {
    const out: FundingRateRecord[] = [];
    for await (const r of this.rates.values({ gte: `${coin}!${key(start)}`, lt: `${coin}!${key(end)}`, limit })) out.push(r);
    return out;
  }

  /** The user's funding payments with startTime <= time < endTime, oldest first, at most `limit`. */
  async userFunding(user: string, start: number, end: number, limit: number): Promise<FundingRecord[]> {
    const out: FundingRecord[] = [];
    for await (const f of this.fundings.values({ gt: `${user}!`, lt: `${user}!~` })) {
      if (f.time >= start && f.time < end) out.push(f);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Candles of a coin and interval opening in [start, end], oldest first, at most `limit`. */
  async candleRange(coin: string, interval: string, start: number, end: number, limit: number): Promise<StoredCandle[]> {
    const out: StoredCandle[] = [];
    for await (const c of this.candles.values({ gte: `${coin}!${interval}!${key(Math.max(0, start))}`, lte: `${coin}!${interval}!${key(end)}`, limit })) out.push(c);
    return out;
  }

  /** The most recent candle of a coin and interval, if any. */
  async lastCandle(coin: string, interval: string): Promise<StoredCandle | undefined> {
    for await (const c of this.candles.values({ gte: `${coin}!${interval}!`, lt: `${coin}!${interval}!~`, reverse: true, limit: 1 })) return c;
    return undefined;
  }

  /** An account's portfolio samples, oldest first. */
  async portfolioSamples(user: string): Promise<PortfolioSample[]> {
    const out: PortfolioSample[] = [];
    for await (const s of this.portfolio.values({ gt: `${user}!`, lt: `${user}!~` })) out.push(s);
    return out;
  }

  /** The order's last status: from the newest entry of its user and bucket that holds it, else as an earlier version stored it. */
  async orderStatus(user: string, oid: number): Promise<OrderStatusRecord | undefined> {
    const bucket = `${user}!${key(Math.floor(oid / ORDER_BUCKET))}!`;
    for await (const entry of this.statuses.values({ gt: bucket, lt: `${bucket}~`, reverse: true })) {
      const records = entry[0] === STORED_ORDER_STATUSES ? readStoredOrderStatuses(entry) : (parseJson(entry) as unknown[]).map(unpackOrderStatus);
      for (let i = records.length - 1; i >= 0; i--) if ((records[i] as OrderStatusRecord).order.oid === oid) return records[i];
    }
    const stored = await this.orders.get(`${user}!${key(oid)}`);
    if (stored === undefined) return undefined;
    return stored[0] === STORED_ORDER_STATUS ? readStoredOrderStatus(stored) : unpackOrderStatus(parseJson(stored));
  }
}
