// `svc verify`: checks a stopped node's data directory. The state is rebuilt twice, on a copy:
// the way start-up does (the last snapshot, then replay of the blocks after it) and from the
// blocks alone (genesis, then every block), each block checked against the app hash the chain
// recorded; the two must end in the same head, state hash and EVM state root. The databases'
// write-ahead logs are checked first, as a start checks them.
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ValidatorKey } from '../consensus/index.ts';
import { stateHash } from '../exchange/index.ts';
import { loadGenesis, type GenesisFile, type LoadedGenesis } from '../genesis/index.ts';
import { bridgeSignerKey } from './bridge/signer-key.ts';
import { CandleBook } from './candles.ts';
import { Chain } from './chain.ts';
import { checkDataDirLogs } from './data-check.ts';
import { DataDirLockedError, DataLock } from './data-lock.ts';
import { EventBus } from './event-bus.ts';
import { ExchangeViewWindow } from './exchange-view.ts';
import { Mempool } from './mempool.ts';
import { authConfig, NodeStartError, openChainState, openEvm, openStore } from './node.ts';
import { readKeyFile, VALIDATOR_KEY } from './key-files.ts';
import { InlineRecovery } from './signer-pool.ts';
import { DataDirDamagedError } from './start-error.ts';
import { decodeRequest } from './tx-codec.ts';

/** The state one way of rebuilding it ends in. */
export interface RebuiltState {
  /** The height replay started from (the snapshot's; 0 from genesis). */
  readonly from: number;
  readonly height: number;
  readonly appHash: string;
  readonly stateHash: string;
  readonly evmStateRoot: string;
  readonly blocksReplayed: number;
}

export interface VerifyReport {
  readonly dataDir: string;
  readonly chainId: number;
  /** As start-up rebuilds it. */
  readonly startup: RebuiltState;
  /** From genesis and the stored blocks only. */
  readonly fromGenesis: RebuiltState;
  /** What differs between the two; empty when the directory verifies. */
  readonly problems: readonly string[];
}

export interface VerifyOptions {
  /** The chain's genesis (default: the data directory's genesis.json). */
  readonly genesis?: GenesisFile;
  /** The node's snapshot interval: part of the app hash (node default 1000). */
  readonly snapshotInterval?: number;
  /** Work on the directory itself rather than a copy (it is then changed as a start would change it). */
  readonly inPlace?: boolean;
  readonly log?: (line: string) => void;
}

async function readJson<T>(path: string): Promise<T> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (err) {
    throw new NodeStartError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

async function readKey(dataDir: string): Promise<ValidatorKey> {
  const key = await readKeyFile(dataDir, VALIDATOR_KEY); // one that does not parse is refused, named
  if (key === null) throw new NodeStartError(`${join(dataDir, VALIDATOR_KEY.name)} is missing: this is not a node's data directory`);
  return key;
}

/** Rebuilds the state of `dir` (holding db/ and, for start-up's way, evm/) and closes it again. */
async function rebuild(dir: string, genesis: LoadedGenesis, bft: boolean, snapshotInterval: number, useSnapshot: boolean, warn: (line: string) => void): Promise<RebuiltState> {
  const store = await openStore(dir);
  try {
    const { exchange, from, to } = await openChainState(store, genesis, { useSnapshot, warn });
    const views = new ExchangeViewWindow(exchange);
    const bus = new EventBus((err) => warn(`event subscriber failed: ${String(err)}`));
    bus.onExecuted(() => views.record());
    const evm = await openEvm(dir, genesis, views, to?.height ?? 0, from.height);
    try {
      const auth = authConfig(genesis);
      // Stored blocks carry their signers: replay recovers none.
      const recovery = new InlineRecovery(auth);
      const chain = new Chain(store, exchange, from, new Mempool(1), bus, {
        snapshotInterval, chainId: genesis.file.chainId, appHashVersion: genesis.appHashVersion, ...(bft ? { bft: { auth, recovery } } : { devnet: genesis.file.network !== 'mainnet' }),
      }, new CandleBook(exchange), evm);
      if (to !== undefined && to.height > from.height) await chain.replay(to);
      await evm.flushed();
      const head = chain.storedHead;
      return {
        from: from.height, height: head.height, appHash: head.appHash, stateHash: stateHash(exchange.state), evmStateRoot: evm.stateRoot,
        blocksReplayed: head.height - from.height,
      };
    } finally {
      // A replay that failed leaves earlier blocks' writes queued: they land before the store closes.
      await evm.close();
    }
  } finally {
    await store.close();
  }
}

/**
 * Verifies a data directory no node is using (its lock is taken for the duration). Throws
 * `NodeStartError` when the directory cannot be read or a block does not replay to the app hash
 * the chain recorded (the message names the block).
 */
export async function verifyDataDir(dataDir: string, opts: VerifyOptions = {}): Promise<VerifyReport> {
  const log = opts.log ?? (() => {});
  if (!existsSync(join(dataDir, 'db'))) throw new NodeStartError(`${dataDir} holds no chain database (db/)`);
  let lock: DataLock | null = null;
  try {
    if (opts.inPlace !== true) lock = DataLock.acquire(dataDir);
  } catch (err) {
    throw err instanceof DataDirLockedError ? new NodeStartError(err.message) : err;
  }
  const work = await mkdtemp(join(tmpdir(), 'svc-verify-'));
  try {
    const file = opts.genesis ?? (await readJson<GenesisFile>(join(dataDir, 'genesis.json')));
    const key = await readKey(dataDir);
    const genesis = loadGenesis(file, { localValidator: key.publicKey, localBridgeSigner: bridgeSignerKey(key).address });
    // A home of `svc start` (config.json) runs the BFT engine; a devnet directory the single validator.
    const bft = existsSync(join(dataDir, 'config.json'));
    const interval = opts.snapshotInterval ?? 1000;
    let base = dataDir;
    if (opts.inPlace !== true) {
      base = join(work, 'startup');
      await cp(join(dataDir, 'db'), join(base, 'db'), { recursive: true });
      if (existsSync(join(dataDir, 'evm'))) await cp(join(dataDir, 'evm'), join(base, 'evm'), { recursive: true });
    }
    // The databases' write-ahead logs, as a start checks them (node/data-check.ts), named as in the directory verified.
    const named = (text: string) => text.split(base).join(dataDir);
    try {
      await checkDataDirLogs(base, (line) => log(`warning: ${named(line)}`));
    } catch (err) {
      if (err instanceof DataDirDamagedError) throw new DataDirDamagedError(named(err.file), named(err.message));
      throw err;
    }
    const failed = (way: string) => (err: unknown): never => {
      throw new NodeStartError(`${dataDir}: rebuilding the state ${way} failed: ${(err as Error).message}`);
    };
    log('rebuilding the state as start-up does (snapshot, then replay)');
    const startup = await rebuild(base, genesis, bft, interval, true, log).catch(failed('as start-up does'));
    log(`at height ${startup.height}; rebuilding it from genesis and the stored blocks`);
    // The same blocks, a fresh EVM store: the EVM replays every block too.
    const fresh = join(work, 'genesis');
    await cp(join(base, 'db'), join(fresh, 'db'), { recursive: true });
    const fromGenesis = await rebuild(fresh, genesis, bft, interval, false, log).catch(failed('from genesis'));
    const problems: string[] = [];
    for (const k of ['height', 'appHash', 'stateHash', 'evmStateRoot'] as const) {
      if (startup[k] !== fromGenesis[k]) problems.push(`${k}: ${startup[k]} at start-up, ${fromGenesis[k]} from genesis`);
    }
    return { dataDir, chainId: genesis.file.chainId, startup, fromGenesis, problems };
  } finally {
    await rm(work, { recursive: true, force: true });
    lock?.release();
  }
}

/**
 * Calls `onAction` with the signer and nonce of every signed action the stored blocks of a data
 * directory hold, in block order (no node may use the directory). Returns the stored head's height.
 */
export async function scanStoredActions(dataDir: string, onAction: (height: number, signer: string, nonce: number) => void): Promise<number> {
  const store = await openStore(dataDir);
  try {
    const head = (await store.head())?.height ?? 0;
    for (let h = 1; h <= head; h++) {
      const block = await store.block(h);
      if (block === undefined) throw new NodeStartError(`block ${h} is missing from ${store.path} (head ${head})`);
      block.txs.forEach((tx, i) => {
        const signer = block.signers[i];
        if (signer === undefined || signer === '' || signer.length !== 42) return; // system and EVM transactions
        const req = decodeRequest(tx);
        if (req !== null) onAction(h, signer.toLowerCase(), req.nonce);
      });
    }
    return head;
  } finally {
    await store.close();
  }
}
