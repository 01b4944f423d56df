// Admission of EVM transactions (eth_sendRawTransaction): decode, recover the sender on the signer
// pool (native secp256k1, off the event loop), check against the head state with geth's wording,
// and order each sender's transactions by nonce before they enter the shared mempool, since
// recovery on several workers may finish out of order. A transaction whose nonce is ahead of the
// sender's next one waits here (bounded) until the gap is filled, as geth's queue does.
import { TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { signatureParts, type EvmChain, type ExecutedEvmBlock } from '../evm/index.ts';
import { keccak256Hex } from '../primitives/index.ts';
import { RpcError } from '../rpc/index.ts';
import type { Mempool } from './mempool.ts';
import type { SignerRecovery } from './signer-pool.ts';

/** A rejection with geth's message (ethers and viem classify errors by these words). */
function rejected(message: string, code = -32000): RpcError {
  return new RpcError(code, message);
}

interface PoolTx {
  readonly hash: string;
  readonly bytes: Uint8Array;
  readonly tx: TypedTransaction;
  readonly sender: string;
  readonly publicKey: string;
  readonly nonce: bigint;
}

interface SenderQueue {
  /** Next nonce the sender's next transaction must carry to enter the mempool. */
  next: bigint;
  /** Transactions in the mempool by nonce (replaceable until reaped). */
  readonly pending: Map<bigint, PoolTx>;
  /**
   * Transactions whose nonce is above `next`, waiting for the gap to fill; made when the first
   * one comes (a sender's queue lives from its first admission to the block that empties it).
   */
  future: Map<bigint, PoolTx> | null;
}

/** Future (gapped) transactions one sender may park. */
const MAX_FUTURE_PER_SENDER = 64;
/** A replacement must raise both fee caps by this percentage (geth's default price bump). */
const PRICE_BUMP_PERCENT = 10n;

function tipCap(tx: TypedTransaction): bigint {
  return 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : (tx as unknown as { gasPrice: bigint }).gasPrice;
}

function feeCap(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as unknown as { gasPrice: bigint }).gasPrice;
}

export class EvmPool {
  private readonly senders = new Map<string, SenderQueue>();
  private readonly byHash = new Map<string, PoolTx>();
  /** Told of each transaction's hash as it enters the mempool (pending-transaction filters). */
  private readonly pendingListeners = new Set<(hash: string) => void>();

  constructor(
    private readonly evm: EvmChain,
    private readonly mempool: Mempool,
    private readonly recovery: SignerRecovery,
    /** Told of each admitted transaction (to propose, and to gossip it to the validators). */
    private readonly onAdmitted: (bytes: Uint8Array) => void,
  ) {}

  /** Admits a raw transaction; resolves with its hash or throws an RpcError in geth's words. */
  async submit(bytes: Uint8Array): Promise<string> {
    const tx = this.decode(bytes);
    // The hash of the bytes as received: ethereumjs decodes only canonical encodings, so these are
    // the bytes tx.hash() would re-encode. It travels as text with the pool's record (the block
    // takes it from there); tx.hash() computes it again only for an RPC answer from a block in memory.
    const hash = keccak256Hex(bytes);
    // A transaction already in a block is refused by the nonce check below, as geth refuses it.
    if (this.byHash.has(hash)) throw rejected('already known');
    const signer = await this.recovery.recoverEvm(signatureParts(tx, bytes));
    if (signer === null) throw rejected('invalid sender');
    // The sender travels with the transaction (execution gives the VM the key from the block).
    const { publicKey, address: sender } = signer;
    const p: PoolTx = { hash, bytes, tx, sender, publicKey, nonce: tx.nonce };
    await this.checkState(p);
    this.place(p);
    return hash;
  }

  private decode(bytes: Uint8Array): TypedTransaction {
    let tx: TypedTransaction;
    try {
      tx = this.evm.decodeTx(bytes);
    } catch (err) {
      const msg = (err as Error).message;
      if (/chain ID|chainId/i.test(msg)) throw rejected('invalid chain id for signer');
      if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/.test(msg)) throw rejected('max priority fee per gas higher than max fee per gas');
      throw rejected(`invalid transaction: ${msg.split(' (')[0]}`, -32602);
    }
    if (tx.type === TransactionType.BlobEIP4844) throw rejected('transaction type not supported');
    if (!tx.isSigned()) throw rejected('invalid sender');
    if (tx.type === TransactionType.Legacy && !tx.supports(155)) throw rejected('only replay-protected (EIP-155) transactions allowed over RPC');
    if (tx.gasLimit < tx.getIntrinsicGas()) throw rejected('intrinsic gas too low');
    if (tx.gasLimit > this.evm.genesis.gasLimit) throw rejected('exceeds block gas limit');
    if (feeCap(tx) < this.evm.nextBaseFee()) throw rejected(`max fee per gas less than block base fee: maxFeePerGas: ${feeCap(tx)}, baseFee: ${this.evm.nextBaseFee()}`);
    return tx;
  }

  private async checkState(p: PoolTx): Promise<void> {
    const account = await this.evm.headAccount(p.sender);
    const nonce = account?.nonce ?? 0n;
    if (p.nonce < nonce) throw rejected(`nonce too low: next nonce ${nonce}, tx nonce ${p.nonce}`);
    const cost = p.tx.gasLimit * feeCap(p.tx) + p.tx.value;
    const balance = account?.balance ?? 0n;
    if (balance < cost) throw rejected(`insufficient funds for gas * price + value: address ${p.sender} have ${balance} want ${cost}`);
    const q = this.senders.get(p.sender);
    if (q === undefined) this.senders.set(p.sender, { next: nonce, pending: new Map(), future: null });
    else if (q.pending.size === 0 && q.next < nonce) q.next = nonce;
  }

  private place(p: PoolTx): void {
    const q = this.senders.get(p.sender) as SenderQueue;
    const existing = q.pending.get(p.nonce) ?? q.future?.get(p.nonce);
    if (existing !== undefined && q.pending.get(p.nonce) === existing && !this.mempool.has(existing.hash)) {
      throw rejected(`nonce too low: transaction with nonce ${p.nonce} is being included`);
    }
    if (existing === undefined && p.nonce < q.next) throw rejected(`nonce too low: next nonce ${q.next}, tx nonce ${p.nonce}`);
    if (existing !== undefined) {
      const bump = (v: bigint) => v + (v * PRICE_BUMP_PERCENT) / 100n;
      if (feeCap(p.tx) < bump(feeCap(existing.tx)) || tipCap(p.tx) < bump(tipCap(existing.tx))) throw rejected('replacement transaction underpriced');
      this.byHash.delete(existing.hash);
      if (q.pending.get(p.nonce) === existing) {
        this.mempool.drop(existing.hash);
        q.pending.delete(p.nonce);
        this.enter(q, p);
        return;
      }
      (q.future as Map<bigint, PoolTx>).set(p.nonce, p); // the existing one was waiting there
      this.byHash.set(p.hash, p);
      return;
    }
    if (p.nonce > q.next) {
      q.future ??= new Map();
      if (q.future.size >= MAX_FUTURE_PER_SENDER) throw rejected('txpool is full');
      q.future.set(p.nonce, p);
      this.byHash.set(p.hash, p);
      return;
    }
    this.enter(q, p);
    // Promote the waiting transactions the gap was holding back, while the mempool has room.
    for (let n = q.next; q.future?.has(n) === true && !this.mempool.full(); n = q.next) {
      const f = q.future.get(n) as PoolTx;
      q.future.delete(n);
      this.enter(q, f);
    }
  }

  private enter(q: SenderQueue, p: PoolTx): void {
    if (this.mempool.full()) throw rejected('txpool is full');
    q.pending.set(p.nonce, p);
    this.byHash.set(p.hash, p);
    if (p.nonce >= q.next) q.next = p.nonce + 1n;
    // Nobody awaits an EVM transaction's block: its outcome is read from receipts. The pool's
    // record is the decoded transaction the block's execution takes (one record a transaction).
    this.mempool.enqueue({ bytes: p.bytes, hash: p.hash, signer: p.publicKey, nonce: null, gas: p.tx.gasLimit, evm: p });
    this.onAdmitted(p.bytes);
    for (const l of this.pendingListeners) l(p.hash);
  }

  /** Listens for transactions entering the mempool; returns the unsubscribe. */
  onPending(listener: (hash: string) => void): () => void {
    this.pendingListeners.add(listener);
    return () => void this.pendingListeners.delete(listener);
  }

  /** The nonce after the sender's last admitted transaction (eth_getTransactionCount 'pending'). */
  pendingNonce(sender: string): bigint | undefined {
    const q = this.senders.get(sender.toLowerCase());
    return q === undefined || q.pending.size === 0 ? undefined : q.next;
  }

  /** A transaction admitted but not yet in a block. */
  pendingTx(hash: string): { tx: TypedTransaction; sender: string } | undefined {
    const p = this.byHash.get(hash.toLowerCase());
    return p === undefined ? undefined : { tx: p.tx, sender: p.sender };
  }

  /** A committed block took these transactions out of the mempool: forget them. */
  onBlock(b: ExecutedEvmBlock): void {
    for (const o of b.outcomes) {
      const p = this.byHash.get(o.hash);
      if (p === undefined) continue;
      this.byHash.delete(o.hash);
      const q = this.senders.get(p.sender);
      if (q === undefined) continue;
      q.pending.delete(p.nonce);
      // A transaction left out of its block leaves a gap: the sender's next nonce is read from state again.
      if (o.error !== null && q.pending.size === 0) q.next = 0n;
      if (q.pending.size === 0 && (q.future?.size ?? 0) === 0) this.senders.delete(p.sender);
    }
  }
}
