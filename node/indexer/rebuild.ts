// Bringing the history up to the chain's head from the stored blocks: the exchange is rebuilt
// beside the node's own (from the state snapshot when the history is at or past it, else from
// genesis) and the blocks the history lacks are re-executed through it (the EVM part is read
// from the EVM store, not run again), each checked against the app hash the chain recorded.
import { Exchange, restoreExchange, stateHash } from '../../exchange/index.ts';
import type { LoadedGenesis } from '../../genesis/index.ts';
import type { EvmChain } from '../../evm/index.ts';
import { CandleBook } from '../candles.ts';
import { Chain } from '../chain.ts';
import { EventBus } from '../event-bus.ts';
import { Mempool } from '../mempool.ts';
import type { ChainStore, StoredHead } from '../storage.ts';
import type { IndexProgress } from './indexer.ts';
import { sampleBlock, type IndexedBlock } from './indexed-block.ts';

/** Blocks handed to the indexer before waiting for it to write them (bounds memory). */
const WINDOW = 2000;

/** Where blocks go: the indexer, in this thread or another. */
export interface IndexerSink {
  readonly height: number;
  push(block: IndexedBlock): void;
  flushed(): Promise<void>;
}

export async function rebuildHistory(deps: {
  readonly indexer: IndexerSink;
  readonly store: ChainStore;
  readonly genesis: LoadedGenesis;
  readonly evm: EvmChain;
  readonly head: StoredHead;
  readonly snapshotInterval: number;
  readonly progress: IndexProgress;
}): Promise<void> {
  const { indexer, store, genesis, head } = deps;
  const from = indexer.height;
  if (from >= head.height) return;
  const snapshot = await store.snapshot();
  let exchange: Exchange;
  let base: StoredHead;
  if (snapshot !== undefined && snapshot.head.height <= from) {
    exchange = restoreExchange(genesis.exchange, snapshot.state);
    base = snapshot.head;
  } else {
    exchange = Exchange.fromGenesis(genesis.exchange, genesis.balances, genesis.file.genesisTime);
    base = { height: 0, hash: genesis.hash, time: genesis.file.genesisTime, appHash: stateHash(exchange.state), fillSeq: 0 };
  }
  const chain = new Chain(store, exchange, base, new Mempool(1), new EventBus(() => {}), { snapshotInterval: deps.snapshotInterval, chainId: genesis.file.chainId, appHashVersion: genesis.appHashVersion }, new CandleBook(exchange), deps.evm);
  await chain.replay(head, async (height, time, prevTime, events) => {
    if (height <= from) return;
    indexer.push(sampleBlock(exchange.state, height, time, prevTime, events));
    if (height % WINDOW === 0 || height === head.height) {
      await indexer.flushed();
      deps.progress(height, head.height);
    }
  });
}

/** A progress bar on a terminal; a line every tenth of the way otherwise. */
export function progressReporter(log: (line: string) => void, stream: NodeJS.WriteStream = process.stderr): IndexProgress {
  let lastDraw = 0;
  let lastTenth = -1;
  return (height, target) => {
    const done = target === 0 ? 1 : height / target;
    if (stream.isTTY) {
      const now = Date.now();
      if (now - lastDraw < 100 && height < target) return;
      lastDraw = now;
      const width = 30;
      const filled = Math.round(done * width);
      stream.write(`\rindexing history [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${height}/${target}${height >= target ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor(done * 10);
    if (tenth !== lastTenth) {
      lastTenth = tenth;
      log(`indexing history: block ${height} of ${target}`);
    }
  };
}
