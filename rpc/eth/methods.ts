// The eth_* method table: each method checks its params (-32602 on a bad one) and answers from
// the EVM's committed blocks and state. One table serves HTTP, batches and WebSocket.
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { bigIntToHex, bytesToHex, createAddressFromString, hexToBytes, setLengthLeft, bigIntToBytes } from '@ethereumjs/util';
import { CallSession, type CallRequest, type DevnetOp, type EvmChain, type StateOverrides, type StoredEvmBlock } from '../../evm/index.ts';
import {
  EXECUTION_REVERTED, INVALID_PARAMS, LIMIT_EXCEEDED, RpcError, SERVER_ERROR, invalidParams, revertMessage,
} from './errors.ts';
import { blockJson, logsOf, receiptJson, txJson } from './format.ts';
import { address, arity, blockRef, bool, data, dataBytes, hash, quantity, storageKey, type BlockRef } from './params.ts';
import type { FilterRegistry, LogFilter } from './filters.ts';
import { getMerkleStateProof } from '@ethereumjs/statemanager';
import { keccak256 as keccak } from '../../primitives/index.ts';

/** What the JSON-RPC server needs from the node; node/ supplies it. */
export interface EthBackend {
  readonly chain: EvmChain;
  readonly clientVersion: string;
  /** Admits a raw transaction; resolves with its hash or throws an RpcError with geth's wording. */
  sendRawTransaction(bytes: Uint8Array): Promise<string>;
  /** Next nonce counting admitted transactions, when the sender has any waiting. */
  pendingNonce(address: string): bigint | undefined;
  pendingTx(hash: string): { tx: TypedTransaction; sender: string } | undefined;
  /** Told of each transaction admitted to the pool (pending-transaction filters and subscriptions). */
  onPendingTx?(listener: (hash: string) => void): () => void;
  /** The devnet's methods (rpc/eth/devnet.ts); absent on a network's node, where they do not exist. */
  readonly devnet?: DevnetBackend;
}

/** What the devnet methods need from the node. */
export interface DevnetBackend {
  /** Carries `op` in a block as a devnet system transaction; resolves once that block is committed. */
  submit(op: DevnetOp): Promise<void>;
}

export type Handler = (params: unknown[], ctx: MethodContext) => Promise<unknown> | unknown;

export interface MethodContext {
  readonly backend: EthBackend;
  readonly filters: FilterRegistry;
  /** Senders eth_sendTransaction may send for (anvil_impersonateAccount): node-local, devnet only. */
  readonly impersonated: Set<string>;
}

/** Blocks eth_getLogs scans at most in one request. */
export const MAX_LOG_RANGE = 10_000n;
/** eth_feeHistory answers at most this many blocks. */
const MAX_FEE_HISTORY = 1024n;

type Found = { block: Block; stored: StoredEvmBlock };

/**
 * The block a reference names, up to `head`. Blocks themselves (by number, hash or tag, logs,
 * `eth_blockNumber`) are shown up to the newest durable one (`readHeight`): blocks are
 * pipelined, and the one or two executed after it could still be lost to a crash. State reads
 * (balances, nonces, code, storage, calls) at `latest` read the executed head, as a wallet
 * expects its nonce right after a receipt, and from its cached records.
 */
async function resolve(chain: EvmChain, ref: BlockRef, head = chain.readHeight): Promise<Found | undefined> {
  if ('hash' in ref) {
    const found = await chain.blockByHash(ref.hash);
    return found !== undefined && Number(found.block.header.number) <= head ? found : undefined;
  }
  const n = 'number' in ref ? ref.number : ref.tag === 'earliest' ? 0n : BigInt(head);
  if (n > BigInt(head)) return undefined;
  return chain.blockAt(Number(n));
}

/** A block for a state read (see `resolve`): `latest` is the executed head. */
export async function mustResolve(chain: EvmChain, ref: BlockRef, head = chain.height): Promise<Found> {
  const found = await resolve(chain, ref, head);
  if (found === undefined) throw new RpcError(SERVER_ERROR, 'header not found');
  return found;
}

/** An account's nonce and balance at a block; at the head from the chain's committed records. */
async function accountAt(chain: EvmChain, ref: unknown, a: string): Promise<{ nonce: bigint; balance: bigint } | null> {
  const found = await mustResolve(chain, blockRef(ref));
  if (found.block === chain.head) return chain.headAccount(a);
  return (await (await chain.stateAt(found.block.header.stateRoot)).getAccount(createAddressFromString(a))) ?? null;
}

async function stateFor(chain: EvmChain, ref: unknown) {
  const found = await mustResolve(chain, blockRef(ref));
  return found.block === chain.head ? chain.headState() : chain.stateAt(found.block.header.stateRoot);
}

export function callRequest(v: unknown): CallRequest {
  if (typeof v !== 'object' || v === null) throw invalidParams('invalid argument 0: transaction object expected');
  const o = v as Record<string, unknown>;
  const opt = <T>(key: string, f: (x: unknown, w: string) => T): T | undefined => (o[key] === undefined || o[key] === null ? undefined : f(o[key], key));
  const input = opt('input', data) ?? opt('data', data);
  const accessList = opt('accessList', accessListParam);
  return {
    ...(accessList === undefined ? {} : { accessList }),
    from: opt('from', address),
    to: opt('to', address) ?? null,
    gas: opt('gas', quantity),
    gasPrice: opt('gasPrice', quantity),
    maxFeePerGas: opt('maxFeePerGas', quantity),
    maxPriorityFeePerGas: opt('maxPriorityFeePerGas', quantity),
    value: opt('value', quantity),
    data: input,
  };
}

function accessListParam(v: unknown): { address: string; storageKeys: string[] }[] {
  if (!Array.isArray(v)) throw invalidParams('accessList must be an array');
  return v.map((e: unknown) => {
    const o = (typeof e === 'object' && e !== null ? e : {}) as { address?: unknown; storageKeys?: unknown };
    if (!Array.isArray(o.storageKeys ?? [])) throw invalidParams('storageKeys must be an array');
    return { address: address(o.address, 'accessList address'), storageKeys: ((o.storageKeys ?? []) as unknown[]).map((k) => `0x${storageKey(k).toString(16).padStart(64, '0')}`) };
  });
}

/**
 * geth's eth_createAccessList: run the call with the list found so far until the list it touches
 * (apart from the sender, the recipient's own entry and the precompiles) stops changing.
 */
async function createAccessList(params: unknown[], ctx: MethodContext): Promise<unknown> {
  const { req, s } = await callSession(ctx, params.slice(0, 2));
  s.accessList = true;
  let list = req.accessList ?? [];
  for (let i = 0; ; i++) {
    let r;
    try {
      r = await s.run({ ...req, accessList: list }, req.gas ?? s.gasCap);
    } catch (err) {
      throw runError(err);
    }
    const next = (r.accessList ?? []).map((e) => ({ address: e.address.toLowerCase(), storageKeys: e.storageKeys.map((k) => k.toLowerCase()) }));
    if (JSON.stringify(next) === JSON.stringify(list) || i === 10) {
      const err = r.execResult.exceptionError;
      return { accessList: next, gasUsed: bigIntToHex(r.totalGasSpent), ...(err === undefined ? {} : { error: err.error === 'revert' ? revertMessage(r.execResult.returnValue) : err.error }) };
    }
    list = next;
  }
}

/** EIP-1186: the account and storage proofs against the state root of the block asked. */
async function getProof(params: unknown[], ctx: MethodContext): Promise<unknown> {
  arity(params, 2, 3);
  const a = address(params[0], '0');
  if (!Array.isArray(params[1])) throw invalidParams('invalid argument 1: storage keys must be an array');
  const keys = params[1].map((k) => storageKey(k));
  const found = await mustResolve(ctx.backend.chain, blockRef(params[2], '2'));
  const sm = await ctx.backend.chain.stateAt(found.block.header.stateRoot);
  const proof = await getMerkleStateProof(sm, createAddressFromString(a), keys.map((k) => setLengthLeft(bigIntToBytes(k), 32)));
  return {
    ...proof,
    address: a,
    storageProof: proof.storageProof.map((p, i) => ({ ...p, key: params[1] === undefined ? p.key : (params[1] as string[])[i] })),
  };
}

export function overridesOf(v: unknown): StateOverrides | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object') throw invalidParams('invalid argument 2: state override object expected');
  const out: Record<string, { balance?: bigint; nonce?: bigint; code?: string; state?: Record<string, string>; stateDiff?: Record<string, string> }> = {};
  for (const [addr, raw] of Object.entries(v as Record<string, Record<string, unknown>>)) {
    const a = address(addr, 'state override address');
    if (raw.state !== undefined && raw.stateDiff !== undefined) throw invalidParams(`account ${a} has both 'state' and 'stateDiff'`);
    const slots = (m: unknown) => Object.fromEntries(Object.entries((m ?? {}) as Record<string, unknown>).map(([k, val]) => [`0x${storageKey(k).toString(16)}`, `0x${storageKey(val).toString(16)}`]));
    out[a] = {
      ...(raw.balance === undefined ? {} : { balance: quantity(raw.balance, 'balance') }),
      ...(raw.nonce === undefined ? {} : { nonce: quantity(raw.nonce, 'nonce') }),
      ...(raw.code === undefined ? {} : { code: data(raw.code, 'code') }),
      ...(raw.state === undefined ? {} : { state: slots(raw.state) }),
      ...(raw.stateDiff === undefined ? {} : { stateDiff: slots(raw.stateDiff) }),
    };
  }
  return out;
}

function failure(result: { execResult: { exceptionError?: { error: string }; returnValue: Uint8Array } }): RpcError | null {
  const err = result.execResult.exceptionError;
  if (err === undefined) return null;
  if (err.error === 'revert') {
    return new RpcError(EXECUTION_REVERTED, revertMessage(result.execResult.returnValue), bytesToHex(result.execResult.returnValue));
  }
  return new RpcError(SERVER_ERROR, err.error);
}

/** The RpcError a run that threw answers (geth's words). */
export function runError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  const msg = (err as Error).message ?? String(err);
  if (/sender doesn't have enough funds|insufficient/i.test(msg)) return new RpcError(SERVER_ERROR, 'insufficient funds for gas * price + value');
  if (/gasLimit is too low|intrinsic/i.test(msg)) return new RpcError(SERVER_ERROR, 'intrinsic gas too low');
  return new RpcError(SERVER_ERROR, msg.split(' (block')[0] as string);
}

export async function callSession(ctx: MethodContext, params: unknown[]): Promise<{ req: CallRequest; s: CallSession }> {
  arity(params, 1, 3);
  const req = callRequest(params[0]);
  const at = await mustResolve(ctx.backend.chain, blockRef(params[1], 'block'));
  const withFees = req.gasPrice !== undefined || req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined;
  return { req, s: await CallSession.open(ctx.backend.chain, at.block, overridesOf(params[2]), withFees) };
}

async function ethCall(params: unknown[], ctx: MethodContext): Promise<string> {
  const { req, s } = await callSession(ctx, params);
  let result;
  try {
    result = await s.run(req, req.gas ?? s.gasCap);
  } catch (err) {
    throw runError(err);
  }
  const failed = failure(result);
  if (failed !== null) throw failed;
  return bytesToHex(result.execResult.returnValue);
}

/** geth's estimate: the least gas with which the call succeeds, by binary search under the cap. */
export async function estimateGas(params: unknown[], ctx: MethodContext): Promise<string> {
  const { req, s } = await callSession(ctx, params);
  const cap = req.gas !== undefined && req.gas < s.gasCap ? req.gas : s.gasCap;
  const attempt = async (gas: bigint) => {
    try {
      const r = await s.run(req, gas);
      return { ok: r.execResult.exceptionError === undefined, result: r };
    } catch (err) {
      const e = runError(err);
      if (e.message === 'intrinsic gas too low') return { ok: false, result: null };
      throw e;
    }
  };
  const top = await attempt(cap);
  if (!top.ok) {
    const failed = top.result === null ? null : failure(top.result);
    if (failed !== null && failed.code === EXECUTION_REVERTED) throw failed;
    throw new RpcError(SERVER_ERROR, `gas required exceeds allowance (${cap})`);
  }
  const used = (top.result as NonNullable<typeof top.result>).totalGasSpent;
  let lo = used - 1n;
  let hi = cap;
  // Most calls succeed with what they used plus the 1/64 kept back by CALL: try that first.
  const guess = (used + (top.result as NonNullable<typeof top.result>).gasRefund + 2300n) * 64n / 63n;
  if (guess < hi) {
    if ((await attempt(guess)).ok) hi = guess;
    else lo = guess;
  }
  while (lo + 1n < hi) {
    const mid = (lo + hi) / 2n;
    if ((await attempt(mid)).ok) hi = mid;
    else lo = mid;
  }
  return bigIntToHex(hi);
}

async function sendRaw(params: unknown[], ctx: MethodContext): Promise<string> {
  arity(params, 1, 1);
  const raw = dataBytes(params[0], '0');
  if (raw.length === 0) throw invalidParams('typed transaction too short');
  return ctx.backend.sendRawTransaction(raw);
}

async function txByHash(params: unknown[], ctx: MethodContext): Promise<unknown> {
  arity(params, 1, 1);
  const h = hash(params[0], '0');
  const found = await ctx.backend.chain.findTx(h);
  if (found !== undefined) {
    return txJson(found.block.transactions[found.index] as TypedTransaction, found.stored.senders[found.index] as string, found);
  }
  const pending = ctx.backend.pendingTx(h);
  return pending === undefined ? null : txJson(pending.tx, pending.sender, null);
}

async function receipt(params: unknown[], ctx: MethodContext): Promise<unknown> {
  arity(params, 1, 1);
  const found = await ctx.backend.chain.findTx(hash(params[0], '0'));
  return found === undefined ? null : receiptJson(found.block, found.stored, found.index);
}

async function blockBy(ref: BlockRef, fullParam: unknown, ctx: MethodContext): Promise<unknown> {
  const full = fullParam === undefined ? false : bool(fullParam, '1');
  if ('tag' in ref && ref.tag === 'pending') return null;
  const found = await resolve(ctx.backend.chain, ref);
  return found === undefined ? null : blockJson(found.block, found.stored, full);
}

async function txCount(params: unknown[], ctx: MethodContext): Promise<string> {
  arity(params, 1, 2);
  const a = address(params[0], '0');
  if (params[1] === 'pending') {
    const pending = ctx.backend.pendingNonce(a);
    if (pending !== undefined) return bigIntToHex(pending);
  }
  return bigIntToHex((await accountAt(ctx.backend.chain, params[1] === 'pending' ? 'latest' : params[1], a))?.nonce ?? 0n);
}

/** Gas price suggestion: the next block's base fee (tips buy no priority: blocks are first come, first served). */
function gasPrice(ctx: MethodContext): string {
  return bigIntToHex(ctx.backend.chain.nextBaseFee());
}

async function feeHistory(params: unknown[], ctx: MethodContext): Promise<unknown> {
  arity(params, 2, 3);
  const count = typeof params[0] === 'number' ? BigInt(params[0]) : quantity(params[0], '0');
  const newest = await mustResolve(ctx.backend.chain, blockRef(params[1] === 'pending' ? 'latest' : params[1], '1'), ctx.backend.chain.readHeight);
  const percentiles = params[2] === undefined || params[2] === null ? [] : params[2];
  if (!Array.isArray(percentiles) || percentiles.some((p, i) => typeof p !== 'number' || p < 0 || p > 100 || (i > 0 && p < (percentiles[i - 1] as number)))) {
    throw invalidParams('invalid reward percentiles');
  }
  const last = newest.block.header.number;
  const n = count > MAX_FEE_HISTORY ? MAX_FEE_HISTORY : count;
  const first = last + 1n - n < 0n ? 0n : last + 1n - n;
  const baseFees: string[] = [];
  const ratios: number[] = [];
  const rewards: string[][] = [];
  for (let h = first; h <= last && n > 0n; h++) {
    const b = (await ctx.backend.chain.blockAt(Number(h))) as Found;
    const baseFee = b.block.header.baseFeePerGas ?? 0n;
    baseFees.push(bigIntToHex(baseFee));
    ratios.push(Number(b.block.header.gasUsed) / Number(b.block.header.gasLimit));
    if (percentiles.length > 0) rewards.push(rewardPercentiles(b, baseFee, percentiles as number[]));
  }
  baseFees.push(bigIntToHex(last === BigInt(ctx.backend.chain.height) ? ctx.backend.chain.nextBaseFee() : ((await ctx.backend.chain.blockAt(Number(last) + 1))?.block.header.baseFeePerGas ?? 0n)));
  return {
    oldestBlock: bigIntToHex(first),
    baseFeePerGas: baseFees,
    gasUsedRatio: ratios,
    baseFeePerBlobGas: baseFees.map(() => '0x1'),
    blobGasUsedRatio: ratios.map(() => 0),
    ...(percentiles.length > 0 ? { reward: rewards } : {}),
  };
}

/** Effective tips at the given percentiles of the block's gas, as geth weighs them. */
function rewardPercentiles(b: Found, baseFee: bigint, percentiles: number[]): string[] {
  if (b.block.transactions.length === 0) return percentiles.map(() => '0x0');
  const items = b.block.transactions.map((tx, i) => ({
    tip: (b.stored.receipts[i]?.effectiveGasPrice ?? 0n) - baseFee,
    gas: b.stored.receipts[i]?.gasUsed ?? 0n,
  })).sort((x, y) => (x.tip < y.tip ? -1 : x.tip > y.tip ? 1 : 0));
  const total = Number(b.block.header.gasUsed);
  return percentiles.map((p) => {
    const threshold = (total * p) / 100;
    let sum = 0;
    for (const it of items) {
      sum += Number(it.gas);
      if (sum >= threshold) return bigIntToHex(it.tip);
    }
    return bigIntToHex((items[items.length - 1] as { tip: bigint }).tip);
  });
}

/**
 * A log filter; `latest` bounds resolve to `head`, except that a polling filter's `toBlock`
 * ('latest' or absent) stays open so blocks committed later still match.
 */
export function parseLogFilter(v: unknown, head: bigint, openEnded = false): LogFilter {
  if (typeof v !== 'object' || v === null) throw invalidParams('invalid argument 0: filter object expected');
  const o = v as Record<string, unknown>;
  const addresses = o.address === undefined || o.address === null ? [] : (Array.isArray(o.address) ? o.address : [o.address]).map((a) => address(a, 'address'));
  if (o.topics !== undefined && o.topics !== null && !Array.isArray(o.topics)) throw invalidParams('invalid argument 0: topics must be an array');
  const topics = ((o.topics ?? []) as unknown[]).map((t) => (t === null ? null : (Array.isArray(t) ? t : [t]).map((x) => hash(x, 'topic'))));
  if (topics.length > 4) throw invalidParams('too many topics (max 4)');
  if (o.blockHash !== undefined && o.blockHash !== null) {
    if (o.fromBlock !== undefined || o.toBlock !== undefined) throw invalidParams('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
    return { blockHash: hash(o.blockHash, 'blockHash'), addresses, topics };
  }
  const bound = (x: unknown, fallback: bigint): bigint => {
    const r = blockRef(x ?? 'latest');
    if ('number' in r) return r.number;
    if ('tag' in r) return r.tag === 'earliest' ? 0n : fallback;
    throw invalidParams('block hash not allowed as a range bound');
  };
  const from = bound(o.fromBlock, head);
  const to = bound(o.toBlock, openEnded ? 2n ** 64n : head);
  // As geth: a reversed range is an error when both ends are numbers; a tag end is resolved later.
  const numeric = (x: unknown) => typeof x === 'string' && x.startsWith('0x');
  if (numeric(o.fromBlock) && numeric(o.toBlock) && from > to) throw invalidParams('invalid block range params');
  return { from, to, addresses, topics };
}

export function logMatches(log: { address: string; topics: string[] }, f: LogFilter): boolean {
  if (f.addresses.length > 0 && !f.addresses.includes(log.address.toLowerCase())) return false;
  return f.topics.every((want, i) => want === null || want.length === 0 || (log.topics[i] !== undefined && want.includes((log.topics[i] as string).toLowerCase())));
}

export function blockLogs(found: Found, f: LogFilter): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  found.stored.receipts.forEach((r, i) => {
    if (r.logs.length === 0) return;
    for (const log of logsOf(found.block, found.stored, i)) if (logMatches(log as { address: string; topics: string[] }, f)) out.push(log);
  });
  return out;
}

export async function getLogs(f: LogFilter, chain: EvmChain): Promise<Record<string, unknown>[]> {
  if ('blockHash' in f) {
    const found = await chain.blockByHash(f.blockHash);
    if (found === undefined) throw new RpcError(SERVER_ERROR, 'unknown block');
    return blockLogs(found, f);
  }
  const head = BigInt(chain.readHeight);
  if (f.from > head) throw new RpcError(INVALID_PARAMS, 'block range extends beyond current head block');
  if (f.from > f.to) throw new RpcError(INVALID_PARAMS, 'invalid block range params');
  const to = f.to > head ? head : f.to;
  if (to - f.from >= MAX_LOG_RANGE) throw new RpcError(LIMIT_EXCEEDED, `block range too large: at most ${MAX_LOG_RANGE} blocks per request`);
  const out: Record<string, unknown>[] = [];
  for (let h = f.from; h <= to; h++) {
    const found = await chain.blockAt(Number(h));
    if (found !== undefined) out.push(...blockLogs(found, f));
  }
  return out;
}

async function blockReceipts(params: unknown[], ctx: MethodContext): Promise<unknown> {
  arity(params, 1, 1);
  const found = await resolve(ctx.backend.chain, blockRef(params[0]));
  return found === undefined ? null : found.block.transactions.map((_, i) => receiptJson(found.block, found.stored, i));
}

async function txByBlockAndIndex(ref: BlockRef, idx: unknown, ctx: MethodContext): Promise<unknown> {
  const i = Number(quantity(idx, '1'));
  const found = await resolve(ctx.backend.chain, ref);
  const tx = found?.block.transactions[i];
  return found === undefined || tx === undefined ? null : txJson(tx, found.stored.senders[i] as string, { ...found, index: i });
}

function quantityId(v: unknown): string {
  return `0x${quantity(v, '0').toString(16)}`;
}

export const METHODS: Record<string, Handler> = {
  eth_chainId: (p, ctx) => (arity(p, 0, 0), bigIntToHex(BigInt(ctx.backend.chain.genesis.chainId))),
  net_version: (p, ctx) => (arity(p, 0, 0), String(ctx.backend.chain.genesis.chainId)),
  net_listening: () => true,
  net_peerCount: () => '0x0',
  web3_clientVersion: (p, ctx) => (arity(p, 0, 0), ctx.backend.clientVersion),
  web3_sha3: (p) => {
    arity(p, 1, 1);
    return bytesToHex(keccak(hexToBytes(data(p[0], '0') as `0x${string}`)));
  },
  eth_blockNumber: (p, ctx) => (arity(p, 0, 0), bigIntToHex(BigInt(ctx.backend.chain.readHeight))),
  eth_syncing: () => false,
  eth_accounts: () => [],
  eth_mining: () => false,
  eth_hashrate: () => '0x0',
  eth_getBlockByNumber: (p, ctx) => (arity(p, 1, 2), blockBy(blockRef(p[0], '0'), p[1], ctx)),
  eth_getBlockByHash: (p, ctx) => (arity(p, 1, 2), blockBy({ hash: hash(p[0], '0') }, p[1], ctx)),
  eth_getBlockTransactionCountByNumber: async (p, ctx) => {
    arity(p, 1, 1);
    const found = await resolve(ctx.backend.chain, blockRef(p[0], '0'));
    return found === undefined ? null : bigIntToHex(BigInt(found.block.transactions.length));
  },
  eth_getBlockTransactionCountByHash: async (p, ctx) => {
    arity(p, 1, 1);
    const found = await resolve(ctx.backend.chain, { hash: hash(p[0], '0') });
    return found === undefined ? null : bigIntToHex(BigInt(found.block.transactions.length));
  },
  eth_getTransactionByBlockNumberAndIndex: (p, ctx) => (arity(p, 2, 2), txByBlockAndIndex(blockRef(p[0], '0'), p[1], ctx)),
  eth_getTransactionByBlockHashAndIndex: (p, ctx) => (arity(p, 2, 2), txByBlockAndIndex({ hash: hash(p[0], '0') }, p[1], ctx)),
  eth_getBalance: async (p, ctx) => {
    arity(p, 1, 2);
    const a = address(p[0], '0');
    return bigIntToHex((await accountAt(ctx.backend.chain, p[1], a))?.balance ?? 0n);
  },
  eth_getCode: async (p, ctx) => {
    arity(p, 1, 2);
    const a = address(p[0], '0');
    const sm = await stateFor(ctx.backend.chain, p[1]);
    return bytesToHex(await sm.getCode(createAddressFromString(a)));
  },
  eth_getStorageAt: async (p, ctx) => {
    arity(p, 2, 3);
    const a = address(p[0], '0');
    const slot = storageKey(p[1]);
    const sm = await stateFor(ctx.backend.chain, p[2]);
    const value = await sm.getStorage(createAddressFromString(a), setLengthLeft(bigIntToBytes(slot), 32));
    return bytesToHex(setLengthLeft(value, 32));
  },
  eth_getTransactionCount: txCount,
  eth_gasPrice: (p, ctx) => gasPrice(ctx),
  eth_baseFee: (p, ctx) => gasPrice(ctx),
  eth_maxPriorityFeePerGas: () => '0x0',
  // No blob transactions: the blob base fee stays at its minimum, 1 wei (EIP-4844).
  eth_blobBaseFee: () => '0x1',
  eth_feeHistory: feeHistory,
  eth_call: ethCall,
  eth_createAccessList: createAccessList,
  eth_getProof: getProof,
  eth_estimateGas: estimateGas,
  eth_sendRawTransaction: sendRaw,
  eth_getTransactionByHash: txByHash,
  eth_getTransactionReceipt: receipt,
  eth_getBlockReceipts: blockReceipts,
  eth_newFilter: (p, ctx) => (arity(p, 1, 1), ctx.filters.newLogFilter(parseLogFilter(p[0], BigInt(ctx.backend.chain.readHeight), true))),
  eth_newBlockFilter: (p, ctx) => (arity(p, 0, 0), ctx.filters.newBlockFilter()),
  eth_newPendingTransactionFilter: (p, ctx) => (arity(p, 0, 0), ctx.filters.newPendingTransactionFilter()),
  eth_getFilterChanges: (p, ctx) => (arity(p, 1, 1), ctx.filters.changes(quantityId(p[0]))),
  eth_getFilterLogs: (p, ctx) => {
    arity(p, 1, 1);
    const f = ctx.filters.logFilter(quantityId(p[0]));
    const head = BigInt(ctx.backend.chain.readHeight);
    return getLogs('blockHash' in f ? f : { ...f, to: f.to > head ? head : f.to }, ctx.backend.chain);
  },
  eth_uninstallFilter: (p, ctx) => (arity(p, 1, 1), ctx.filters.uninstall(quantityId(p[0]))),
  eth_getLogs: async (p, ctx) => {
    arity(p, 1, 1);
    return getLogs(parseLogFilter(p[0], BigInt(ctx.backend.chain.readHeight)), ctx.backend.chain);
  },
};
