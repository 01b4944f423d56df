// Polling filters (eth_newFilter, eth_newBlockFilter, eth_getFilterChanges): each collects what
// committed blocks bring until polled. Filters not polled for FILTER_TTL_MS are dropped, as geth does.
import type { Block } from '@ethereumjs/block';
import type { StoredEvmBlock } from '../../evm/index.ts';
import { RpcError, SERVER_ERROR } from './errors.ts';

export type LogFilter =
  | { readonly blockHash: string; readonly addresses: string[]; readonly topics: (string[] | null)[] }
  | { readonly from: bigint; readonly to: bigint; readonly addresses: string[]; readonly topics: (string[] | null)[] };

type Entry =
  | { kind: 'block'; changes: string[]; polled: number }
  | { kind: 'pending'; changes: string[]; polled: number }
  | { kind: 'logs'; filter: LogFilter; changes: Record<string, unknown>[]; polled: number };

export const FILTER_TTL_MS = 5 * 60_000;
/** Changes one filter keeps between polls; older ones are dropped. */
const MAX_CHANGES = 10_000;
const MAX_FILTERS = 10_000;

export class FilterRegistry {
  private readonly filters = new Map<string, Entry>();
  private seq = 0;
  /** Pending-transaction filters installed (admission tells each transaction only when there are some). */
  private pendingFilters = 0;

  constructor(
    private readonly now: () => number,
    private readonly logsOf: (block: Block, stored: StoredEvmBlock, f: LogFilter) => Record<string, unknown>[],
  ) {}

  private id(): string {
    this.seq += 1;
    return `0x${this.seq.toString(16)}`;
  }

  private add(e: Entry): string {
    this.expire();
    if (this.filters.size >= MAX_FILTERS) throw new RpcError(SERVER_ERROR, 'too many filters');
    const id = this.id();
    this.filters.set(id, e);
    return id;
  }

  newBlockFilter(): string {
    return this.add({ kind: 'block', changes: [], polled: this.now() });
  }

  newPendingTransactionFilter(): string {
    const id = this.add({ kind: 'pending', changes: [], polled: this.now() });
    this.pendingFilters += 1;
    return id;
  }

  /** A transaction entered the pool: pending-transaction filters collect its hash. */
  onPendingTx(hash: string): void {
    if (this.pendingFilters === 0) return;
    for (const e of this.filters.values()) {
      if (e.kind !== 'pending') continue;
      e.changes.push(hash);
      if (e.changes.length > MAX_CHANGES) e.changes.splice(0, e.changes.length - MAX_CHANGES);
    }
  }

  newLogFilter(filter: LogFilter): string {
    return this.add({ kind: 'logs', filter, changes: [], polled: this.now() });
  }

  uninstall(id: string): boolean {
    return this.remove(id);
  }

  private remove(id: string): boolean {
    if (this.filters.get(id)?.kind === 'pending') this.pendingFilters -= 1;
    return this.filters.delete(id);
  }

  /** The log filter of `id` (eth_getFilterLogs). */
  logFilter(id: string): LogFilter {
    const e = this.filters.get(id);
    if (e === undefined || e.kind !== 'logs') throw new RpcError(SERVER_ERROR, 'filter not found');
    e.polled = this.now();
    return e.filter;
  }

  changes(id: string): unknown[] {
    const e = this.filters.get(id);
    if (e === undefined) throw new RpcError(SERVER_ERROR, 'filter not found');
    e.polled = this.now();
    const out = e.changes;
    e.changes = [];
    return out;
  }

  onBlock(block: Block, stored: StoredEvmBlock): void {
    this.expire();
    const n = block.header.number;
    for (const e of this.filters.values()) {
      if (e.kind === 'pending') continue;
      if (e.kind === 'block') e.changes.push(stored.hash);
      else {
        const f = e.filter;
        if ('blockHash' in f ? f.blockHash !== stored.hash : n < f.from || n > f.to) continue;
        e.changes.push(...this.logsOf(block, stored, f));
      }
      if (e.changes.length > MAX_CHANGES) e.changes.splice(0, e.changes.length - MAX_CHANGES);
    }
  }

  private expire(): void {
    const cutoff = this.now() - FILTER_TTL_MS;
    for (const [id, e] of this.filters) if (e.polled < cutoff) this.remove(id);
  }
}
