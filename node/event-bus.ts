// Committed blocks, published after they are durable, for API streams and indexers.
import { EventEmitter } from 'node:events';
import type { BlockHeader } from '../consensus/index.ts';
import type { ExchangeEvent, TxResult } from '../exchange/index.ts';

export interface CommittedBlockEvent {
  readonly header: BlockHeader;
  readonly hash: string;
  readonly results: readonly { hash: string; result: TxResult }[];
  readonly events: readonly ExchangeEvent[];
}

export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  onBlock(listener: (e: CommittedBlockEvent) => void): () => void {
    this.emitter.on('block', listener);
    return () => this.emitter.off('block', listener);
  }

  publishBlock(e: CommittedBlockEvent): void {
    this.emitter.emit('block', e);
  }
}
