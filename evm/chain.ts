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
  Account, Address, KECCAK256_RLP, bigIntToHex, bytesToHex, createAddressFromString, hexToBytes,
} from '@ethereumjs/util';
import { Bloom, createVM, encodeReceipt, runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import { keccak256 } from '../primitives/index.ts';
import { makeCommon, makeFastCommon } from './common.ts';
import { orderedTrieRoot } from './ordered-trie.ts';
import { LevelTrieDB } from './level-db.ts';
import type { EvmStore, StoredEvmBlock, StoredReceipt } from './store.ts';

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
export interface EvmTxInput {
  readonly bytes: Uint8Array;
  /** Sender public key (64 bytes, hex) recovered at admission, or null to recover here. */
  readonly publicKey: string | null;
}

export interface EvmTxOutcome {
  readonly hash: string;
  /** Null when the transaction was included; otherwise why it was not (it is left out of the EVM block). */
  readonly error: string | null;
}

export interface ExecutedEvmBlock {
  readonly height: number;
  readonly hash: string;
  readonly stateRoot: string;
  readonly outcomes: EvmTxOutcome[];
  /** The block and its receipts, for subscribers. */
  readonly block: Block;
  readonly stored: StoredEvmBlock;
}

const ZERO_32 = new Uint8Array(32);

/** Seconds of an EVM block for a consensus time in ms; several blocks may share a second. */
export function evmTimestamp(ms: number): bigint {
  return BigInt(Math.floor(ms / 1000));
}

export class EvmChain {
  private headBlock!: Block;
  private headStored!: StoredEvmBlock;
  /** Recently decoded blocks by height, so reads do not decode RLP again. */
  private readonly recent = new Map<number, Block>();
  /** Transactions decoded (and their senders recovered) at admission, by their block bytes. */
  private readonly decoded = new WeakMap<Uint8Array, TypedTransaction>();
  /** Decodes transactions and blocks (see makeFastCommon). */
  readonly txCommon: Common;

  private constructor(
    readonly common: Common,
    readonly store: EvmStore,
    private readonly trie: MerklePatriciaTrie,
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
    return createTxFromRLP(bytes, { common: this.txCommon });
  }

  /** Hands a transaction decoded at admission to execution, keyed by the bytes the block will carry. */
  remember(bytes: Uint8Array, tx: TypedTransaction): void {
    this.decoded.set(bytes, tx);
  }

  static async open(store: EvmStore, genesis: EvmGenesis, precompiles: CustomPrecompile[] = []): Promise<EvmChain> {
    const common = makeCommon(genesis.chainId);
    const trie = await createMPT({ db: new LevelTrieDB(store.trie), useKeyHashing: true, common });
    const state = new MerkleStateManager({ trie, common, caches: new Caches() });
    const hashes = new BlockHashes();
    const vm = await createVM({ common, stateManager: state, blockchain: hashes as never, evmOpts: { customPrecompiles: precompiles } });
    const chain = new EvmChain(common, store, trie, state, vm, genesis, precompiles, hashes);
    hashes.chain = chain;
    const head = await store.head();
    if (head === undefined) await chain.writeGenesis();
    else await chain.setHead(head);
    return chain;
  }

  get height(): number {
    return Number(this.headBlock.header.number);
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
    await this.state.commit();
    const stateRoot = await this.state.getStateRoot();
    const block = createBlock({
      header: { ...this.headerBase(0, this.genesis.genesisTime, ZERO_32, this.genesis.minBaseFee), stateRoot },
    }, { common: this.common });
    const stored: StoredEvmBlock = { rlp: bytesToHex(block.serialize()), hash: bytesToHex(block.hash()), senders: [], receipts: [] };
    await this.store.writeBlock(0, stored, [], true);
    this.adoptHead(block, stored);
  }

  private adoptHead(block: Block, stored: StoredEvmBlock): void {
    this.headBlock = block;
    this.headStored = stored;
    const n = Number(block.header.number);
    this.recent.set(n, block);
    this.recent.delete(n - 512);
  }

  /** Makes stored block `height` the head: its state root becomes the state (start-up, or rewinding above the consensus head). */
  async setHead(height: number): Promise<void> {
    const stored = await this.store.block(height);
    if (stored === undefined) throw new Error(`EVM block ${height} is missing from the store`);
    const block = this.decode(stored);
    await this.state.setStateRoot(block.header.stateRoot);
    this.adoptHead(block, stored);
  }

  decode(stored: StoredEvmBlock): Block {
    return createBlockFromRLP(hexToBytes(stored.rlp as `0x${string}`), { common: this.txCommon });
  }

  private headerBase(height: number, timeMs: number, parentHash: Uint8Array, baseFee: bigint): HeaderData {
    return {
      number: BigInt(height),
      parentHash,
      timestamp: evmTimestamp(timeMs),
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

  /** EIP-1559 next base fee of the head, floored at the genesis minimum. */
  nextBaseFee(): bigint {
    const next = this.headBlock.header.calcNextBaseFee();
    return next > this.genesis.minBaseFee ? next : this.genesis.minBaseFee;
  }

  /**
   * Executes the EVM transactions of consensus block `height` (in block order) and persists the
   * EVM block. A transaction that cannot run (bad nonce, unaffordable, does not decode) is left
   * out of the EVM block, as a block builder would have left it out; the consensus block still
   * carries it, so every node leaves it out the same way.
   */
  async executeBlock(height: number, timeMs: number, txs: readonly EvmTxInput[], sync: boolean): Promise<ExecutedEvmBlock> {
    if (height !== this.height + 1) throw new Error(`invariant: EVM block ${height} executed on head ${this.height}`);
    const headerData = this.headerBase(height, timeMs, this.headBlock.hash(), this.nextBaseFee());
    // Most consensus blocks carry no EVM transaction: the state root stays, both tries are empty.
    if (txs.length === 0) return this.emptyBlock(height, headerData, sync);
    const template = createBlock({ header: headerData }, { common: this.common });
    const included: TypedTransaction[] = [];
    const results: RunTxResult[] = [];
    const senders: string[] = [];
    const outcomes: EvmTxOutcome[] = [];
    let gasUsed = 0n;
    await this.state.checkpoint();
    for (const input of txs) {
      let hash = '';
      let tx: TypedTransaction;
      try {
        tx = this.decoded.get(input.bytes) ?? this.decodeTx(input.bytes);
        hash = bytesToHex(tx.hash());
        if (tx.type === TransactionType.BlobEIP4844) throw new Error('blob transactions are not supported');
        // runTx checks each transaction against the block gas limit, not their sum: that is ours.
        if (gasUsed + tx.gasLimit > this.genesis.gasLimit) throw new Error('block gas limit reached');
        if (input.publicKey !== null) tx.cache.senderPubKey = hexToBytes(input.publicKey as `0x${string}`);
        const result = await runTx(this.vm, { tx, block: template, blockGasUsed: gasUsed });
        gasUsed += result.totalGasSpent;
        included.push(tx);
        results.push(result);
        senders.push(tx.getSenderAddress().toString());
        outcomes.push({ hash, error: null });
      } catch (err) {
        outcomes.push({ hash: hash === '' ? bytesToHex(keccak256(input.bytes)) : hash, error: (err as Error).message });
      }
    }
    await this.state.commit();
    const stateRoot = await this.state.getStateRoot();
    const bloom = new Bloom(undefined, this.common);
    for (const r of results) bloom.or(r.bloom);
    const header = createBlockHeader({
      ...headerData,
      stateRoot,
      gasUsed,
      logsBloom: bloom.bitvector,
      transactionsTrie: orderedTrieRoot(included.map((tx) => tx.serialize())),
      receiptTrie: orderedTrieRoot(results.map((r, i) => encodeReceipt(r.receipt, (included[i] as TypedTransaction).type))),
    }, { common: this.txCommon });
    // The Block constructor keeps the transaction objects (createBlock would copy each one).
    const block = new Block(header, included, [], [], { common: this.txCommon });
    const baseFee = headerData.baseFeePerGas as bigint;
    const receipts = results.map((r, i) => storedReceipt(r, included[i] as TypedTransaction, baseFee));
    const stored: StoredEvmBlock = { rlp: bytesToHex(block.serialize()), hash: bytesToHex(block.hash()), senders, receipts };
    await this.store.writeBlock(height, stored, included.map((t) => bytesToHex(t.hash())), sync);
    this.adoptHead(block, stored);
    return { height, hash: stored.hash, stateRoot: bytesToHex(stateRoot), outcomes, block, stored };
  }

  /** An EVM block without transactions: the block the general path builds for none, without the trie work. */
  private async emptyBlock(height: number, headerData: HeaderData, sync: boolean): Promise<ExecutedEvmBlock> {
    const stateRoot = this.headBlock.header.stateRoot;
    const block = createBlock({ header: { ...headerData, stateRoot, gasUsed: 0n, transactionsTrie: KECCAK256_RLP, receiptTrie: KECCAK256_RLP } }, { common: this.common });
    const stored: StoredEvmBlock = { rlp: bytesToHex(block.serialize()), hash: bytesToHex(block.hash()), senders: [], receipts: [] };
    await this.store.writeBlock(height, stored, [], sync);
    this.adoptHead(block, stored);
    return { height, hash: stored.hash, stateRoot: bytesToHex(stateRoot), outcomes: [], block, stored };
  }

  /** Block at `height` with its stored record, or undefined. */
  async blockAt(height: number): Promise<{ block: Block; stored: StoredEvmBlock } | undefined> {
    if (height > this.height || height < 0) return undefined;
    if (height === this.height) return { block: this.headBlock, stored: this.headStored };
    const stored = await this.store.block(height);
    if (stored === undefined) return undefined;
    const block = this.recent.get(height) ?? this.decode(stored);
    this.recent.set(height, block);
    return { block, stored };
  }

  async blockByHash(hash: string): Promise<{ block: Block; stored: StoredEvmBlock } | undefined> {
    const height = await this.store.heightOfHash(hash);
    if (height === undefined) return undefined;
    const found = await this.blockAt(height);
    return found?.stored.hash === hash.toLowerCase() ? found : undefined;
  }

  /** Where a transaction was included, checked against the block (the index may name a block that was rewound). */
  async findTx(hash: string): Promise<{ block: Block; stored: StoredEvmBlock; index: number } | undefined> {
    const loc = await this.store.txLocation(hash);
    if (loc === undefined) return undefined;
    const found = await this.blockAt(loc[0]);
    const tx = found?.block.transactions[loc[1]];
    if (found === undefined || tx === undefined || bytesToHex(tx.hash()) !== hash.toLowerCase()) return undefined;
    return { ...found, index: loc[1] };
  }

  private headRead: { root: Uint8Array; state: Promise<MerkleStateManager> } | null = null;

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

  /** A VM over a throw-away copy of the state at `stateRoot` (calls, estimates). */
  async vmAt(stateRoot: Uint8Array): Promise<VM> {
    return createVM({ common: this.common, stateManager: await this.stateAt(stateRoot), blockchain: this.hashes as never, evmOpts: { customPrecompiles: this.precompiles } });
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
    const hash = found === undefined ? ZERO_32 : hexToBytes(found.stored.hash as `0x${string}`);
    return { hash: () => hash };
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): BlockHashes {
    return this;
  }
}

function storedReceipt(r: RunTxResult, tx: TypedTransaction, baseFee: bigint): StoredReceipt {
  const tip = 'maxPriorityFeePerGas' in tx ? (tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee) : (tx as { gasPrice: bigint }).gasPrice - baseFee;
  return {
    status: 'status' in r.receipt ? (r.receipt.status as 0 | 1) : 1,
    cumulativeGasUsed: bigIntToHex(r.receipt.cumulativeBlockGasUsed),
    gasUsed: bigIntToHex(r.totalGasSpent),
    effectiveGasPrice: bigIntToHex(baseFee + tip),
    logs: r.receipt.logs.map(([address, topics, data]) => ({ address: bytesToHex(address), topics: topics.map((t) => bytesToHex(t)), data: bytesToHex(data) })),
    logsBloom: bytesToHex(r.bloom.bitvector),
    contractAddress: r.createdAddress === undefined ? null : r.createdAddress.toString(),
  };
}
