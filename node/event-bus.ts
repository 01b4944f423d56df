// Committed blocks, published after they are durable, for API streams and indexers.
import { EventEmitter } from 'node:events';
import type { BlockHeader } from '../consensus/index.ts';
import type { ExchangeEvent, TxResult } from '../exchange/index.ts';
import type { CandleView } from './candles.ts';
import type { ExecutedEvmBlock } from '../evm/index.ts';

export interface CommittedBlockEvent {
  readonly header: BlockHeader;
  readonly hash: string;
  readonly results: readonly { hash: string; result: TxResult }[];
  readonly events: readonly ExchangeEvent[];
  /** Candles the block's trades changed (Hyperliquid's shape). */
  readonly candles: readonly CandleView[];
}

export class EventBus {
  private readonly emitter = new EventEmitter();

  /** `onListenerError`: a failing subscriber is reported, never allowed to fail the block. */
  constructor(private readonly onListenerError: (err: unknown) => void) {
    this.emitter.setMaxListeners(0);
  }

  onBlock(listener: (e: CommittedBlockEvent) => void): () => void {
    return this.subscribe('block', listener);
  }

  publishBlock(e: CommittedBlockEvent): void {
    this.emitter.emit('block', e);
  }

  /**
   * Each block right after it executes, with the state as the block left it (the next block has
   * not run yet; its write may still be in flight): for samples of that state.
   */
  onExecuted(listener: (e: { readonly header: BlockHeader; readonly events: readonly ExchangeEvent[] }) => void): () => void {
    return this.subscribe('executed', listener);
  }

  publishExecuted(e: { readonly header: BlockHeader; readonly events: readonly ExchangeEvent[] }): void {
    this.emitter.emit('executed', e);
  }

  /** The EVM block of each committed block, after it is durable (JSON-RPC subscriptions and filters). */
  onEvmBlock(listener: (e: ExecutedEvmBlock) => void): () => void {
    return this.subscribe('evm', listener);
  }

  publishEvmBlock(e: ExecutedEvmBlock): void {
    this.emitter.emit('evm', e);
  }

  private subscribe<T>(event: 'block' | 'evm' | 'executed', listener: (e: T) => void): () => void {
    const guarded = (e: T) => {
      try {
        listener(e);
      } catch (err) {
        this.onListenerError(err);
      }
    };
    this.emitter.on(event, guarded);
    return () => this.emitter.off(event, guarded);
  }
}
