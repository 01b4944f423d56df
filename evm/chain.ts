// The EVM side of the chain: one EVM block per consensus block (same height, time in seconds),
// executed with ethereumjs on a Merkle Patricia state trie persisted in level. Deterministic: the
// height, the time and the transactions come from the consensus block; nothing else is read.
import { Block, createBlock, createBlockFromRLP, createBlockHeader, type HeaderData } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { CustomPrecompile } from '@ethereumjs/evm';
import { createMPT, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { TransactionType, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import {
  Account, Address, KECCAK256_RLP, createAddressFromString,
} from '@ethereumjs/util';
import { Bloom, createVM, encodeReceipt, runTx, type VM } from '@ethereumjs/vm';
import { bytesToHex, hexToBytes, keccak256, keccak256Hex } from '../primitives/index.ts';
import { makeCommon, makeFastCommon } from './common.ts';
import { orderedTrieRoot } from './ordered-trie.ts';
import { LevelTrieDB } from './level-db.ts';
import { AccountCache, BlockAccounts } from './block-accounts.ts';
import { blockRlp } from './block-rlp.ts';
import { RecentBlocks } from './recent-blocks.ts';
import { CORE_WRITER, CORE_WRITER_CODE } from './core-writer.ts';
import { decodeTransaction } from './tx-decode.ts';
import { TRANSFER_GAS, applyTransfer, transferReceipt, transferRecipient, type AccountRecord } from './transfer.ts';
import type { EvmStore, StoredEvmBlock, StoredReceipt } from './store.ts';
import { NO_CLOCK_SHIFT, applyStateOp, blockTime, clockAfter, clockOf, clockRecord, type DevnetOp, type EvmClock } from './devnet.ts';

export interface EvmGenesis {
  readonly chainId: number;
  /** Milliseconds, as the consensus genesis time. */
  readonly genesisTime: number;
  readonly gasLimit: bigint;
  /** The base fee never falls below this (wei); also the genesis block's base fee. */
  readonly minBaseFee: bigint;
  readonly alloc: readonly { readonly address: string; readonly balance: bigint }[];
}

/** A transaction of a consensus block as the EVM receives it. */
export type EvmTxInput = EvmSignedInput | EvmDevnetInput;

export interface EvmSignedInput {
  readonly bytes: Uint8Array;
  /** Sender public key (64 bytes, hex) recovered at admission, or null to recover here. */
  readonly publicKey: string | null;
  /** The transaction as admission decoded these bytes, and its sender (lowercase 0x); else decoded here. */
  readonly decoded?: DecodedEvmTx;
}

/** A transaction decoded from its bytes (EvmChain.decodeTx) and its sender, recovered from its signature. */
export interface DecodedEvmTx {
  readonly tx: TypedTransaction;
  readonly sender: string;
  /** keccak256 of the transaction's bytes (lowercase 0x hex), when admission computed it. */
  readonly hash?: string;
}

/** A devnet system transaction's operation (evm/devnet.ts), at its place among the block's transactions. */
export interface EvmDevnetInput {
  readonly devnet: DevnetOp;
}

export interface EvmTxOutcome {
  readonly hash: string;
  /** Null when the transaction was included; otherwise why it was not (it is left out of the EVM block). */
  readonly error: string | null;
}

/**
 * An ERC-20 `transfer(to, wei)` the chain makes from a linked token's system address after the
 * block's transactions (the exchange already took the amount; docs/evm.md, "Linked tokens").
 */
export interface EvmRelease {
  readonly contract: string;
  readonly system: string;
  readonly to: string;
  readonly wei: bigint;
}

/** Gas each release's call may use. */
export const RELEASE_GAS = 200_000n;

/**
 * A turn given to other work while a block commits (the node passes one turn of the event loop);
 * it must not execute or commit on the chain.
 */
export type Pause = () => Promise<void>;

/**
 * An EVM block whose transactions and releases have run, not yet committed (EvmChain.runBlock):
 * what the exchange needs from it is known. Its state changes are held until `commit`, which
 * computes the roots, queues the block's write and makes it the head.
 */
export interface RanEvmBlock {
  readonly height: number;
  readonly outcomes: EvmTxOutcome[];
  /** Whether each release succeeded. */
  readonly released: boolean[];
  /** The included transactions' receipts and hashes, in block order. */
  readonly receipts: StoredReceipt[];
  readonly hashes: string[];
  /** `pause`, if given, is taken between the commit's steps of a large block. */
  commit(pause?: Pause): Promise<ExecutedEvmBlock>;
}

/** A block commits with pauses from this many transactions on (smaller ones are quick). */
const PAUSE_FROM_TXS = 64;

export interface ExecutedEvmBlock {
  /** Whether each release of the block succeeded (a failed one is refunded on the exchange). */
  readonly released: boolean[];
  readonly height: number;
  readonly hash: string;
  readonly stateRoot: string;
  readonly outcomes: EvmTxOutcome[];
  /** How many transactions took the plain-transfer fast path (tests, benches). */
  readonly fastTxs: number;
  /** The block and its receipts, for subscribers. */
  readonly block: Block;
  readonly stored: StoredEvmBlock;
  /** Settles once the block is in the store (writes are applied in block order). */
  readonly written: Promise<void>;
}

const ZERO_32 = new Uint8Array(32);
/** Every block's coinbase: priority fees go to the zero address (burned). */
const COINBASE = `0x${'00'.repeat(20)}`;
/** A log as receipts carry it: [address, topics, data]. */
type Log = [Uint8Array, Uint8Array[], Uint8Array];

/** Seconds of an EVM block for a consensus time in ms; several blocks may share a second. */
export function evmTimestamp(ms: number): bigint {
  return BigInt(Math.floor(ms / 1000));
}

export class EvmChain {
  private headBlock!: Block;
  private headStored!: StoredEvmBlock;
  /** Executed blocks whose writes are in flight: reads find them here until the store has them. */
  private readonly unwritten = new Map<number, StoredEvmBlock>();
  /**
   * The last block whose consensus block is durable (told by the node): a transaction's receipt,
   * its acknowledgement, is found only up to it, never while its block could still be lost.
   */
  private durableHeight = 0;
  /** The last block write queued: each waits for the one before (the store's head record moves in order). */
  private writes: Promise<void> = Promise.resolve();
  /** Recently decoded blocks by height, so reads do not decode RLP again. */
  private readonly recent = new RecentBlocks();
  private fastTransfers = true;
  private precompilesAt: ((height: number) => CustomPrecompile[]) | null = null;
  /** The devnet's shift of the EVM block clock after the head (evm/devnet.ts); none elsewhere. */
  private clock: EvmClock = NO_CLOCK_SHIFT;
  /** The head state's accounts the fast transfer path has read or written. */
  private readonly committed = new AccountCache();
  /** Decodes transactions and blocks (see makeFastCommon). */
  readonly txCommon: Common;

  private constructor(
    readonly common: Common,
    readonly store: EvmStore,
    private readonly trie: MerklePatriciaTrie,
    private readonly trieDb: LevelTrieDB,
    private readonly state: MerkleStateManager,
    readonly vm: VM,
    readonly genesis: EvmGenesis,
    readonly precompiles: CustomPrecompile[],
    private readonly hashes: BlockHashes,
  ) {
    this.txCommon = makeFastCommon(genesis.chainId);
  }

  /** Decodes raw transaction bytes as execution will. */
  decodeTx(bytes: Uint8Array): TypedTransaction {
    return decodeTransaction(bytes, this.txCommon);
  }


  /**
   * `fastTransfers: false` runs every transaction through the VM (the reference the fast path is
   * tested against). `precompilesAt(height)`: the precompiles calls at an older block run with
   * (the exchange as it was after that block); without it, calls read `precompiles`.
   */
  static async open(store: EvmStore, genesis: EvmGenesis, precompiles: CustomPrecompile[] = [], opts: { fastTransfers?: boolean; precompilesAt?: (height: number) => CustomPrecompile[] } = {}): Promise<EvmChain> {
    const common = makeCommon(genesis.chainId);
    const trieDb = new LevelTrieDB(store.trie);
    const trie = await createMPT({ db: trieDb, useKeyHashing: true, common });
    const state = new MerkleStateManager({ trie, common, caches: new Caches() });
    const hashes = new BlockHashes();
    const vm = await createVM({ common, stateManager: state, blockchain: hashes as never, evmOpts: { customPrecompiles: precompiles } });
    const chain = new EvmChain(common, store, trie, trieDb, state, vm, genesis, precompiles, hashes);
    hashes.chain = chain;
    chain.fastTransfers = opts.fastTransfers ?? true;
    chain.precompilesAt = opts.precompilesAt ?? null;
    const head = await store.head();
    if (head === undefined) await chain.writeGenesis();
    else await chain.setHead(head);
    chain.durableHeight = chain.height; // what the store holds at start-up
    return chain;
  }

  get height(): number {
    return Number(this.headBlock.header.number);
  }

  /**
   * The newest block readers may see: the executed head once its consensus block is durable.
   * Up to two blocks above it are executed but could still be lost to a crash (blocks are
   * pipelined), so JSON-RPC answers `latest` and heights from here, never from `height`.
   */
  get readHeight(): number {
    return Math.min(this.durableHeight, this.height);
  }

  /** The devnet's EVM clock shift after the head. */
  get clockShift(): EvmClock {
    return this.clock;
  }

  get head(): Block {
    return this.headBlock;
  }

  get stateRoot(): string {
    return bytesToHex(this.headBlock.header.stateRoot);
  }

  private async writeGenesis(): Promise<void> {
    await this.state.checkpoint();
    for (const a of this.genesis.alloc) {
      await this.state.putAccount(createAddressFromString(a.address), new Account(0n, a.balance));
    }
    // The write system contract is in every chain's genesis state (docs/evm.md).
    await this.state.putCode(createAddressFromString(CORE_WRITER), CORE_WRITER_CODE);
    await this.state.commit();
    const stateRoot = await this.state.getStateRoot();
    const block = createBlock({
      header: { ...this.headerBase(0, evmTimestamp(this.genesis.genesisTime), ZERO_32, this.genesis.minBaseFee), stateRoot },
    }, { common: this.common });
    const stored: StoredEvmBlock = { rlp: block.serialize(), hash: bytesToHex(block.hash()), senders: [], receipts: [] };
    await this.store.writeBlock(0, stored, [], true);
    this.adoptHead(block, stored);
  }

  /**
   * Queues a block's write behind the ones before it; execution does not wait for the disk (the
   * consensus block's write waits for it). A block written above the consensus head by a crash is
   * rewound at start-up; one missing below it is executed again by replay.
   */
  private queueWrite(height: number, stored: StoredEvmBlock, txHashes: readonly string[], sync: boolean): Promise<void> {
    this.unwritten.set(height, stored);
    const written = this.writes.then(() => this.store.writeBlock(height, stored, txHashes, sync));
    this.writes = written.then(() => void this.unwritten.delete(height));
    return this.writes;
  }

  /** Blocks up to `height` are durable with their consensus blocks (the node calls this as they commit). */
  markDurable(height: number): void {
    this.durableHeight = Math.max(this.durableHeight, height);
  }

  /** Settles once every block executed so far is in the store. */
  flushed(): Promise<void> {
    return this.writes;
  }

  /**
   * Closes the store once the writes queued so far have landed (or failed: a failed write has
   * already failed its block), so none runs against a closed store.
   */
  async close(): Promise<void> {
    await this.writes.catch(() => {});
    await this.store.close();
  }

  private adoptHead(block: Block, stored: StoredEvmBlock): void {
    this.headBlock = block;
    this.headStored = stored;
    const n = Number(block.header.number);
    this.recent.set(n, block);
  }

  /** Makes stored block `height` the head: its state root becomes the state (start-up, or rewinding above the consensus head). */
  async setHead(height: number): Promise<void> {
    await this.flushed();
    const stored = await this.store.block(height);
    if (stored === undefined) throw new Error(`EVM block ${height} is missing from the store`);
    const block = this.decode(stored);
    await this.state.setStateRoot(block.header.stateRoot);
    this.committed.clear();
    this.clock = clockOf(stored.clock);
    this.adoptHead(block, stored);
    this.durableHeight = height;
  }

  decode(stored: StoredEvmBlock): Block {
    return createBlockFromRLP(stored.rlp, { common: this.txCommon });
  }

  private headerBase(height: number, timestamp: bigint, parentHash: Uint8Array, baseFee: bigint): HeaderData {
    return {
      number: BigInt(height),
      parentHash,
      timestamp,
      gasLimit: this.genesis.gasLimit,
      baseFeePerGas: baseFee,
      coinbase: new Address(new Uint8Array(20)),
      difficulty: 0n,
      nonce: new Uint8Array(8),
      // No randomness source: PREVRANDAO reads the parent hash (documented; not for lotteries).
      mixHash: parentHash,
      excessBlobGas: 0n,
      blobGasUsed: 0n,
      parentBeaconBlockRoot: ZERO_32,
      extraData: new Uint8Array(0),
    };
  }

  private nextFee: { head: Block; fee: bigint } | null = null;

  /** EIP-1559 next base fee of the head, floored at the genesis minimum (computed once per head: admission asks per transaction). */
  nextBaseFee(): bigint {
    if (this.nextFee?.head !== this.headBlock) {
      const next = this.headBlock.header.calcNextBaseFee();
      this.nextFee = { head: this.headBlock, fee: next > this.genesis.minBaseFee ? next : this.genesis.minBaseFee };
    }
    return this.nextFee.fee;
  }

  /**
   * Executes the EVM transactions of consensus block `height` (in block order) and persists the
   * EVM block. A transaction that cannot run (bad nonce, unaffordable, does not decode) is left
   * out of the EVM block, as a block builder would have left it out; the consensus block still
   * carries it, so every node leaves it out the same way.
   *
   * Plain transfers take the fast path (evm/transfer.ts) on an overlay of account records; the
   * rest run through ethereumjs's VM. A block of fast transfers only is committed with one
   * TrieBatch pass; once the VM has run in a block, the overlay is handed to the state manager
   * before each VM transaction and the block commits through it.
   */
  async executeBlock(height: number, timeMs: number, txs: readonly EvmTxInput[], sync: boolean, releases: readonly EvmRelease[] = []): Promise<ExecutedEvmBlock> {
    return (await this.runBlock(height, timeMs, txs, sync, releases)).commit();
  }

  /**
   * executeBlock in two steps: the transactions and releases run, then `commit` (see RanEvmBlock).
   * Nothing else may run or commit a block on this chain until the commit has settled; reads see
   * the head before the block until then.
   */
  async runBlock(height: number, timeMs: number, txs: readonly EvmTxInput[], sync: boolean, releases: readonly EvmRelease[] = []): Promise<RanEvmBlock> {
    if (height !== this.height + 1) throw new Error(`invariant: EVM block ${height} executed on head ${this.height}`);
    const time = blockTime(this.clock, evmTimestamp(timeMs), this.headBlock.header.timestamp);
    let clock = time.clock;
    const headerData = this.headerBase(height, time.timestamp, this.headBlock.hash(), this.nextBaseFee());
    // Most consensus blocks carry no EVM transaction: the state root stays, both tries are empty.
    if (txs.length === 0 && releases.length === 0) {
      return { height, outcomes: [], released: [], receipts: [], hashes: [], commit: async () => this.emptyBlock(height, headerData, sync, clock) };
    }
    const baseFee = headerData.baseFeePerGas as bigint;
    const accounts = new BlockAccounts(this.state, this.committed);
    let template: Block | null = null;
    const included: IncludedTx[] = [];
    const outcomes: EvmTxOutcome[] = [];
    let gasUsed = 0n;
    let fastTxs = 0;
    for (let input of txs) {
      let hash = '';
      let impersonated: string | null = null;
      let known: DecodedEvmTx | undefined;
      if ('devnet' in input) {
        const op = input.devnet;
        if (op.kind !== 'sendAs') {
          if (op.kind.startsWith('set') && op.kind !== 'setNextTimestamp') {
            await accounts.handOver();
            await applyStateOp(this.state, op);
          }
          clock = clockAfter(clock, op);
          continue;
        }
        impersonated = op.from;
        input = { bytes: hexToBytes(op.raw), publicKey: null };
        try {
          // Unfrozen, so the VM can be told its sender (no key signed it).
          known = { tx: createTxFromRLP(input.bytes, { common: this.txCommon, freeze: false }), sender: op.from };
        } catch (err) {
          outcomes.push({ hash: keccak256Hex(input.bytes), error: (err as Error).message });
          continue;
        }
      } else known = input.decoded;
      try {
        const tx = known?.tx ?? this.decodeTx(input.bytes);
        // keccak256 of the bytes, which admission computed for what came through this node's pool.
        hash = known?.hash ?? keccak256Hex(input.bytes);
        if (tx.type === TransactionType.BlobEIP4844) throw new Error('blob transactions are not supported');
        // runTx checks each transaction against the block gas limit, not their sum: that is ours.
        if (gasUsed + tx.gasLimit > this.genesis.gasLimit) throw new Error('block gas limit reached');
        const sender = impersonated ?? known?.sender ?? (input.publicKey !== null ? addressOfKey(input.publicKey) : tx.getSenderAddress().toString());
        const fast = await this.tryTransfer(tx, sender, baseFee, accounts);
        if (fast !== null) {
          gasUsed += TRANSFER_GAS;
          fastTxs++;
          included.push({ tx, bytes: input.bytes, hash, sender, gasUsed: TRANSFER_GAS, cumulative: gasUsed, status: 1, logs: [], bloom: null, createdAddress: null, gasPrice: fast, fast: true });
        } else {
          // The VM reads the sender from the key recovered at admission instead of recovering it.
          if (input.publicKey !== null) tx.cache.senderPubKey = hexToBytes(input.publicKey);
          if (impersonated !== null) impersonate(tx, impersonated);
          await accounts.handOver();
          template ??= createBlock({ header: headerData }, { common: this.common });
          const r = await runTx(this.vm, { tx, block: template, blockGasUsed: gasUsed });
          gasUsed += r.totalGasSpent;
          const status = 'status' in r.receipt ? (r.receipt.status as 0 | 1) : 1;
          included.push({
            tx, bytes: input.bytes, hash, sender, gasUsed: r.totalGasSpent, cumulative: gasUsed, status, logs: r.receipt.logs, bloom: r.bloom.bitvector,
            createdAddress: r.createdAddress === undefined ? null : r.createdAddress.toString(), gasPrice: effectiveGasPrice(tx, baseFee), fast: false,
          });
        }
        outcomes.push({ hash, error: null });
      } catch (err) {
        outcomes.push({ hash: hash === '' ? keccak256Hex(input.bytes) : hash, error: (err as Error).message });
      }
    }
    const released: boolean[] = [];
    for (const r of releases) {
      await accounts.handOver();
      template ??= createBlock({ header: headerData }, { common: this.common });
      released.push(await systemTransfer(this.vm, this.state, template, r));
    }
    const receipts = included.map((t) => storedReceipt(t));
    const commit = async (pause?: Pause) => {
      const step = included.length >= PAUSE_FROM_TXS ? pause : undefined;
      return this.commitBlock({ height, headerData, sync, clock, accounts, included, outcomes, released, receipts, gasUsed, fastTxs, hasReleases: releases.length > 0 }, step);
    };
    return { height, outcomes, released, receipts, hashes: included.map((t) => t.hash), commit };
  }

  /** The second step of executeBlock (see RanEvmBlock). */
  private async commitBlock(b: BlockToCommit, pause: Pause | undefined): Promise<ExecutedEvmBlock> {
    const { height, headerData, sync, clock, accounts, included, outcomes, released, receipts, gasUsed, fastTxs } = b;
    const stateRoot = await accounts.commit(this.trieDb, this.headBlock.header.stateRoot, pause);
    await pause?.();
    const bloom = new Bloom(undefined, this.common);
    for (const t of included) if (t.bloom !== null) bloom.or(new Bloom(t.bloom, this.common));
    const header = createBlockHeader({
      ...headerData,
      stateRoot,
      gasUsed,
      logsBloom: bloom.bitvector,
      transactionsTrie: orderedTrieRoot(included.map((t) => t.bytes)),
      receiptTrie: orderedTrieRoot(included.map((t) => (t.fast ? transferReceipt(t.tx.type, t.cumulative) : encodeReceipt({ status: t.status, cumulativeBlockGasUsed: t.cumulative, bitvector: t.bloom ?? EMPTY_BLOOM, logs: t.logs }, t.tx.type)))),
    }, { common: this.txCommon });
    await pause?.();
    // The Block constructor keeps the transaction objects (createBlock would copy each one).
    const block = new Block(header, included.map((t) => t.tx), [], [], { common: this.txCommon });
    const rlp = blockRlp(header.serialize(), included.map((t) => t.bytes));
    const clockRec = clockRecord(clock);
    const stored: StoredEvmBlock = {
      rlp, hash: bytesToHex(block.hash()), senders: included.map((t) => t.sender), receipts,
      ...(b.hasReleases ? { released } : {}), ...(clockRec === undefined ? {} : { clock: clockRec }),
    };
    const written = this.queueWrite(height, stored, included.map((t) => t.hash), sync);
    accounts.publish();
    this.clock = clock;
    this.adoptHead(block, stored);
    return { height, hash: stored.hash, stateRoot: bytesToHex(stateRoot), outcomes, fastTxs, block, stored, released, written };
  }

  /** Runs `tx` as a plain transfer if it is one the fast path takes; its gas price, or null for the VM. */
  private async tryTransfer(tx: TypedTransaction, sender: string, baseFee: bigint, accounts: BlockAccounts): Promise<bigint | null> {
    const to = this.fastTransfers ? transferRecipient(tx) : null;
    if (to === null) return null;
    const from = await accounts.get(sender);
    const toAccount = to === sender ? from : await accounts.get(to);
    const coinbase = COINBASE === sender ? from : COINBASE === to ? toAccount : await accounts.get(COINBASE);
    const effect = applyTransfer(tx, baseFee, { from, to: toAccount, coinbase });
    if (effect === null) return null;
    accounts.set(sender, effect.from);
    accounts.set(to, effect.to);
    if (effect.coinbase !== null) accounts.set(COINBASE, effect.coinbase);
    return effect.gasPrice;
  }

  /** An EVM block without transactions: the block the general path builds for none, without the trie work. */
  private async emptyBlock(height: number, headerData: HeaderData, sync: boolean, clock: EvmClock): Promise<ExecutedEvmBlock> {
    const stateRoot = this.headBlock.header.stateRoot;
    // As the non-empty path builds it: the header on the decoding Common (its parameters merged
    // once, not per header), the block without createBlock's copies.
    const header = createBlockHeader({ ...headerData, stateRoot, gasUsed: 0n, transactionsTrie: KECCAK256_RLP, receiptTrie: KECCAK256_RLP }, { common: this.txCommon });
    const block = new Block(header, [], [], [], { common: this.txCommon });
    const clockRec = clockRecord(clock);
    const stored: StoredEvmBlock = { rlp: blockRlp(header.serialize(), []), hash: bytesToHex(block.hash()), senders: [], receipts: [], ...(clockRec === undefined ? {} : { clock: clockRec }) };
    const written = this.queueWrite(height, stored, [], sync);
    this.clock = clock;
    this.adoptHead(block, stored);
    return { height, hash: stored.hash, stateRoot: bytesToHex(stateRoot), outcomes: [], fastTxs: 0, block, stored, released: [], written };
  }

  /** Block at `height` with its stored record, or undefined. */
  async blockAt(height: number): Promise<{ block: Block; stored: StoredEvmBlock } | undefined> {
    if (height > this.height || height < 0) return undefined;
    if (height === this.height) return { block: this.headBlock, stored: this.headStored };
    const stored = this.unwritten.get(height) ?? (await this.store.block(height));
    if (stored === undefined) return undefined;
    const block = this.recent.get(height) ?? this.decode(stored);
    this.recent.set(height, block);
    return { block, stored };
  }

  async blockByHash(hash: string): Promise<{ block: Block; stored: StoredEvmBlock } | undefined> {
    for (const [h, stored] of this.unwritten) if (stored.hash === hash.toLowerCase()) return this.blockAt(h);
    const height = await this.store.heightOfHash(hash);
    if (height === undefined) return undefined;
    const found = await this.blockAt(height);
    return found?.stored.hash === hash.toLowerCase() ? found : undefined;
  }

  /** Where a transaction was included, checked against the block (the index may name a block that was rewound). */
  async findTx(hash: string): Promise<{ block: Block; stored: StoredEvmBlock; index: number } | undefined> {
    const loc = await this.store.txLocation(hash);
    if (loc === undefined || loc[0] > this.durableHeight) return undefined;
    const found = await this.blockAt(loc[0]);
    const tx = found?.block.transactions[loc[1]];
    if (found === undefined || tx === undefined || bytesToHex(tx.hash()) !== hash.toLowerCase()) return undefined;
    return { ...found, index: loc[1] };
  }

  private headRead: { root: Uint8Array; state: Promise<MerkleStateManager> } | null = null;

  /**
   * An account at the head (admission checks): from the committed records when there, else read
   * from the head state and kept, unless the head moved meanwhile. Null: no account.
   */
  async headAccount(address: string): Promise<Readonly<AccountRecord> | null> {
    const key = address.toLowerCase();
    const cached = this.committed.get(key);
    if (cached !== undefined) return cached;
    const root = this.headBlock.header.stateRoot;
    const a = await (await this.headState()).getAccount(createAddressFromString(key));
    const record = a === undefined ? null : { nonce: a.nonce, balance: a.balance, storageRoot: a.storageRoot, codeHash: a.codeHash };
    if (this.headBlock.header.stateRoot === root) this.committed.set(key, record);
    return record;
  }

  /**
   * The committed head state for reads (admission checks, eth_getBalance at latest): one cached
   * state manager per head, so repeated reads of hot accounts do not walk the trie again.
   */
  headState(): Promise<MerkleStateManager> {
    const root = this.headBlock.header.stateRoot;
    if (this.headRead === null || this.headRead.root !== root) {
      const state = new MerkleStateManager({ trie: this.trie.shallowCopy(false), common: this.common, caches: new Caches() });
      this.headRead = { root, state: state.setStateRoot(root).then(() => state) };
    }
    return this.headRead.state;
  }

  /** A state manager reading the committed state at `stateRoot`, independent of the block in flight. */
  async stateAt(stateRoot: Uint8Array): Promise<MerkleStateManager> {
    const sm = new MerkleStateManager({ trie: this.trie.shallowCopy(false), common: this.common });
    await sm.setStateRoot(stateRoot);
    return sm;
  }

  /**
   * A VM over a throw-away copy of the state at `stateRoot` (calls, estimates); with `height`,
   * its read precompiles see the exchange as it was after that block (see `open`).
   */
  async vmAt(stateRoot: Uint8Array, height?: number): Promise<VM> {
    const customPrecompiles = height === undefined || this.precompilesAt === null ? this.precompiles : this.precompilesAt(height);
    return createVM({ common: this.common, stateManager: await this.stateAt(stateRoot), blockchain: this.hashes as never, evmOpts: { customPrecompiles } });
  }
}

/**
 * BLOCKHASH's source: the stored blocks (the opcode itself limits lookups to the 256 blocks below
 * the one executing, all committed before it).
 */
class BlockHashes {
  chain: EvmChain | null = null;

  async getBlock(height: number): Promise<{ hash(): Uint8Array }> {
    const found = await this.chain?.blockAt(height);
    const hash = found === undefined ? ZERO_32 : hexToBytes(found.stored.hash);
    return { hash: () => hash };
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): BlockHashes {
    return this;
  }
}

/** What runBlock hands its commit. */
interface BlockToCommit {
  readonly height: number;
  readonly headerData: HeaderData;
  readonly sync: boolean;
  readonly clock: EvmClock;
  readonly accounts: BlockAccounts;
  readonly included: readonly IncludedTx[];
  readonly outcomes: EvmTxOutcome[];
  readonly released: boolean[];
  readonly receipts: StoredReceipt[];
  readonly gasUsed: bigint;
  readonly fastTxs: number;
  readonly hasReleases: boolean;
}

/** A transaction of the block in flight, with what its receipt needs. */
interface IncludedTx {
  readonly tx: TypedTransaction;
  readonly bytes: Uint8Array;
  readonly hash: string;
  readonly sender: string;
  readonly gasUsed: bigint;
  readonly cumulative: bigint;
  readonly status: 0 | 1;
  readonly logs: Log[];
  /** The logs bloom, or null for none (no logs). */
  readonly bloom: Uint8Array | null;
  readonly createdAddress: string | null;
  readonly gasPrice: bigint;
  /** Took the transfer fast path (its receipt has a fixed shape). */
  readonly fast: boolean;
}

function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  if (!('maxPriorityFeePerGas' in tx)) return (tx as { gasPrice: bigint }).gasPrice;
  const tip = tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee;
  return baseFee + tip;
}

/** Runs `tx` as sent by `from` (an impersonated sender; its bytes carry a placeholder signature). */
export function impersonate(tx: TypedTransaction, from: string): void {
  const sender = createAddressFromString(from);
  tx.getSenderAddress = () => sender;
}

/** The address of a 64-byte public key (hex). */
function addressOfKey(publicKey: string): string {
  return bytesToHex(keccak256(hexToBytes(publicKey)).subarray(12));
}

/**
 * `transfer(to, wei)` on the linked ERC-20, called by its system address with RELEASE_GAS and no
 * transaction (the caller's nonce does not move; the call's logs are in no receipt). True when the
 * contract has code, the call did not fail and it returned nothing or `true`; a failed call's
 * changes are reverted.
 */
async function systemTransfer(vm: VM, state: MerkleStateManager, block: Block, r: EvmRelease): Promise<boolean> {
  const to = createAddressFromString(r.contract);
  if ((await state.getCode(to)).length === 0) return false;
  const data = hexToBytes(`0xa9059cbb${r.to.slice(2).padStart(64, '0')}${r.wei.toString(16).padStart(64, '0')}`);
  await vm.evm.journal.cleanup();
  await vm.evm.journal.checkpoint();
  const res = await vm.evm.runCall({ caller: createAddressFromString(r.system), origin: createAddressFromString(r.system), to, data, gasLimit: RELEASE_GAS, block, skipNonceIncrement: true });
  await vm.evm.journal.commit();
  if (res.execResult.exceptionError !== undefined) return false;
  const ret = res.execResult.returnValue;
  return ret.length === 0 || (ret.length === 32 && ret[31] === 1 && ret.subarray(0, 31).every((b) => b === 0));
}

const EMPTY_BLOOM = new Uint8Array(256);

function storedReceipt(t: IncludedTx): StoredReceipt {
  return {
    status: t.status,
    cumulativeGasUsed: t.cumulative,
    gasUsed: t.gasUsed,
    effectiveGasPrice: t.gasPrice,
    logs: t.logs.map(([address, topics, data]) => ({ address: bytesToHex(address), topics: topics.map((x) => bytesToHex(x)), data: bytesToHex(data) })),
    // No logs, so an all-zero bloom: left out (read as zeros), whichever path ran the transaction.
    ...(t.bloom === null || t.logs.length === 0 ? {} : { logsBloom: bytesToHex(t.bloom) }),
    contractAddress: t.createdAddress,
  };
}
