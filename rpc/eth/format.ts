// Blocks, transactions, receipts and logs in the JSON-RPC shapes of the execution-apis schema.
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bigIntToHex, bytesToHex } from '@ethereumjs/util';
import type { StoredEvmBlock, StoredReceipt } from '../../evm/index.ts';

const hex = (n: bigint | number) => bigIntToHex(BigInt(n));
/** A receipt without logs is stored without its (all-zero) bloom. */
const EMPTY_BLOOM_HEX = `0x${'00'.repeat(256)}`;

export function blockJson(block: Block, stored: StoredEvmBlock, full: boolean): Record<string, unknown> {
  const h = block.header;
  return {
    number: hex(h.number),
    hash: stored.hash,
    parentHash: bytesToHex(h.parentHash),
    nonce: bytesToHex(h.nonce),
    sha3Uncles: bytesToHex(h.uncleHash),
    logsBloom: bytesToHex(h.logsBloom),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    stateRoot: bytesToHex(h.stateRoot),
    receiptsRoot: bytesToHex(h.receiptTrie),
    miner: h.coinbase.toString(),
    difficulty: hex(h.difficulty),
    totalDifficulty: '0x0',
    extraData: bytesToHex(h.extraData),
    size: hex(block.serialize().length),
    gasLimit: hex(h.gasLimit),
    gasUsed: hex(h.gasUsed),
    timestamp: hex(h.timestamp),
    mixHash: bytesToHex(h.mixHash),
    baseFeePerGas: hex(h.baseFeePerGas ?? 0n),
    withdrawalsRoot: h.withdrawalsRoot === undefined ? undefined : bytesToHex(h.withdrawalsRoot),
    withdrawals: [],
    blobGasUsed: hex(h.blobGasUsed ?? 0n),
    excessBlobGas: hex(h.excessBlobGas ?? 0n),
    parentBeaconBlockRoot: h.parentBeaconBlockRoot === undefined ? undefined : bytesToHex(h.parentBeaconBlockRoot),
    requestsHash: h.requestsHash === undefined ? undefined : bytesToHex(h.requestsHash),
    transactions: full
      ? block.transactions.map((tx, i) => txJson(tx, stored.senders[i] as string, { block, stored, index: i }))
      : block.transactions.map((tx) => bytesToHex(tx.hash())),
    uncles: [],
  };
}

export interface TxPlace {
  readonly block: Block;
  readonly stored: StoredEvmBlock;
  readonly index: number;
}

export function txJson(tx: TypedTransaction, from: string, place: TxPlace | null): Record<string, unknown> {
  const t = tx as TypedTransaction & { gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; accessList?: unknown; chainId?: bigint };
  const json = tx.toJSON() as Record<string, unknown>;
  const out: Record<string, unknown> = {
    blockHash: place === null ? null : place.stored.hash,
    blockNumber: place === null ? null : hex(place.block.header.number),
    transactionIndex: place === null ? null : hex(place.index),
    hash: bytesToHex(tx.hash()),
    type: hex(tx.type),
    from,
    to: tx.to === undefined ? null : tx.to.toString(),
    nonce: hex(tx.nonce),
    gas: hex(tx.gasLimit),
    value: hex(tx.value),
    input: bytesToHex(tx.data),
    v: hex(tx.v ?? 0n),
    r: hex(tx.r ?? 0n),
    s: hex(tx.s ?? 0n),
  };
  if (t.maxFeePerGas !== undefined) {
    out.maxFeePerGas = hex(t.maxFeePerGas);
    out.maxPriorityFeePerGas = hex(t.maxPriorityFeePerGas ?? 0n);
    const baseFee = place?.block.header.baseFeePerGas;
    const tip = t.maxPriorityFeePerGas ?? 0n;
    out.gasPrice = baseFee === undefined ? hex(t.maxFeePerGas) : hex(baseFee + (tip < t.maxFeePerGas - baseFee ? tip : t.maxFeePerGas - baseFee));
    out.yParity = hex(tx.v ?? 0n);
  } else {
    out.gasPrice = hex(t.gasPrice ?? 0n);
    if (tx.type === 1) out.yParity = hex(tx.v ?? 0n);
  }
  if (tx.type !== 0) {
    out.chainId = hex(t.chainId ?? 0n);
    out.accessList = json.accessList ?? [];
  } else if (tx.supports(155)) {
    out.chainId = hex(tx.common.chainId());
  }
  if (json.authorizationList !== undefined) out.authorizationList = json.authorizationList;
  return out;
}

/** Index of the first log of each receipt within the block (logIndex is block-wide). */
function firstLogIndex(stored: StoredEvmBlock, index: number): number {
  let n = 0;
  for (let i = 0; i < index; i++) n += (stored.receipts[i] as StoredReceipt).logs.length;
  return n;
}

export function logsOf(block: Block, stored: StoredEvmBlock, index: number): Record<string, unknown>[] {
  const r = stored.receipts[index] as StoredReceipt;
  const base = firstLogIndex(stored, index);
  const txHash = bytesToHex((block.transactions[index] as TypedTransaction).hash());
  return r.logs.map((l, i) => ({
    address: l.address,
    topics: l.topics,
    data: l.data,
    blockNumber: hex(block.header.number),
    blockHash: stored.hash,
    blockTimestamp: hex(block.header.timestamp),
    transactionHash: txHash,
    transactionIndex: hex(index),
    logIndex: hex(base + i),
    removed: false,
  }));
}

export function receiptJson(block: Block, stored: StoredEvmBlock, index: number): Record<string, unknown> {
  const tx = block.transactions[index] as TypedTransaction;
  const r = stored.receipts[index] as StoredReceipt;
  return {
    transactionHash: bytesToHex(tx.hash()),
    transactionIndex: hex(index),
    blockHash: stored.hash,
    blockNumber: hex(block.header.number),
    from: stored.senders[index],
    to: tx.to === undefined ? null : tx.to.toString(),
    cumulativeGasUsed: hex(r.cumulativeGasUsed),
    gasUsed: hex(r.gasUsed),
    contractAddress: r.contractAddress,
    logs: logsOf(block, stored, index),
    logsBloom: r.logsBloom ?? EMPTY_BLOOM_HEX,
    status: hex(r.status),
    effectiveGasPrice: hex(r.effectiveGasPrice),
    type: hex(tx.type),
  };
}
