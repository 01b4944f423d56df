// The devnet's methods, as Foundry (anvil_*) and Hardhat (hardhat_*, evm_*) test scripts call
// them. Each change of state or clock goes through a block as a devnet system transaction (the
// node's DevnetBackend), so a replay of the stored blocks reaches the same state; the method
// answers once that block is committed. A network's node has no DevnetBackend: these names answer
// method-not-found there. What a chain that only moves forward cannot do answers UNSUPPORTED.
import { bigIntToHex, bytesToHex } from '@ethereumjs/util';
import { impersonatedTxBytes, type DevnetOp } from '../../evm/index.ts';
import { keccak256 } from '../../primitives/index.ts';
import { RpcError, SERVER_ERROR, invalidParams } from './errors.ts';
import { callRequest, estimateGas, type DevnetBackend, type Handler, type MethodContext } from './methods.ts';
import { address, arity, data, quantity, storageKey } from './params.ts';

/** Blocks one anvil_mine / hardhat_mine may ask for (each is a consensus block). */
export const MAX_MINE_BLOCKS = 1000;

function backend(ctx: MethodContext): DevnetBackend {
  return ctx.backend.devnet as DevnetBackend;
}

async function submit(ctx: MethodContext, op: DevnetOp): Promise<void> {
  await backend(ctx).submit(op);
}

/** anvil and hardhat accept a quantity as hex or a plain number. */
function qty(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return quantity(v, what);
}

const setBalance: Handler = async (p, ctx) => {
  arity(p, 2, 2);
  await submit(ctx, { kind: 'setBalance', address: address(p[0], '0'), balance: qty(p[1], '1') });
  return null;
};

const setNonce: Handler = async (p, ctx) => {
  arity(p, 2, 2);
  const nonce = qty(p[1], '1');
  if (nonce >= 1n << 64n) throw invalidParams('nonce above 2^64 - 1');
  await submit(ctx, { kind: 'setNonce', address: address(p[0], '0'), nonce });
  return null;
};

const setCode: Handler = async (p, ctx) => {
  arity(p, 2, 2);
  await submit(ctx, { kind: 'setCode', address: address(p[0], '0'), code: data(p[1], '1') });
  return null;
};

const setStorageAt: Handler = async (p, ctx) => {
  arity(p, 3, 3);
  await submit(ctx, { kind: 'setStorageAt', address: address(p[0], '0'), slot: storageKey(p[1]), value: storageKey(p[2]) });
  return true;
};

const impersonate: Handler = (p, ctx) => {
  arity(p, 1, 1);
  ctx.impersonated.add(address(p[0], '0'));
  return null;
};

const stopImpersonating: Handler = (p, ctx) => {
  arity(p, 1, 1);
  ctx.impersonated.delete(address(p[0], '0'));
  return null;
};

/** The latest block's timestamp: the clock never goes below it. */
function checkTimestamp(ctx: MethodContext, ts: bigint): void {
  const latest = ctx.backend.chain.head.header.timestamp;
  if (ts < latest) throw new RpcError(SERVER_ERROR, `timestamp ${ts} is below the latest block's timestamp ${latest}: the EVM clock only moves forward`);
  if (ts >= 1n << 63n) throw invalidParams('timestamp too large');
}

const setNextBlockTimestamp: Handler = async (p, ctx) => {
  arity(p, 1, 1);
  const ts = qty(p[0], '0');
  checkTimestamp(ctx, ts);
  await submit(ctx, { kind: 'setNextTimestamp', timestamp: ts });
  return null;
};

const increaseTime: Handler = async (p, ctx) => {
  arity(p, 1, 1);
  const seconds = qty(p[0], '0');
  if (seconds >= 1n << 62n) throw invalidParams('time increase too large');
  await submit(ctx, { kind: 'increaseTime', seconds });
  return bigIntToHex(ctx.backend.chain.clockShift.offset);
};

/** evm_mine [timestamp]: one block (with that timestamp when given). */
const evmMine: Handler = async (p, ctx) => {
  arity(p, 0, 1);
  const ts = p[0] === undefined || p[0] === null ? null : qty(p[0], '0');
  if (ts !== null) {
    checkTimestamp(ctx, ts);
    await submit(ctx, { kind: 'setNextTimestamp', timestamp: ts });
  }
  await submit(ctx, { kind: 'mine' });
  return '0x0';
};

/** anvil_mine / hardhat_mine [count, interval]: `count` blocks, `interval` seconds apart when given. */
const mineBlocks: Handler = async (p, ctx) => {
  arity(p, 0, 2);
  const count = p[0] === undefined || p[0] === null ? 1n : qty(p[0], '0');
  const gap = p[1] === undefined || p[1] === null ? 0n : qty(p[1], '1');
  const interval = gap === 0n ? null : gap;
  if (count > BigInt(MAX_MINE_BLOCKS)) throw invalidParams(`at most ${MAX_MINE_BLOCKS} blocks a call (each is a consensus block)`);
  for (let i = 0n; i < count; i++) {
    if (interval !== null && i > 0n) await submit(ctx, { kind: 'setNextTimestamp', timestamp: ctx.backend.chain.head.header.timestamp + interval });
    await submit(ctx, { kind: 'mine' });
  }
  return null;
};

/**
 * eth_sendTransaction from an impersonated sender: the missing fields filled as a wallet would
 * (pending nonce, estimated gas, twice the next base fee), the transaction carried by a devnet
 * transaction and answered with its hash once its block is committed (anvil's automine).
 */
const sendTransaction: Handler = async (p, ctx) => {
  arity(p, 1, 1);
  const req = callRequest(p[0]);
  if (req.from === undefined) throw invalidParams('from is required');
  const from = req.from;
  if (!ctx.impersonated.has(from)) throw new RpcError(SERVER_ERROR, `unknown account ${from}: impersonate it first (anvil_impersonateAccount) or sign the transaction and use eth_sendRawTransaction`);
  const chain = ctx.backend.chain;
  const account = await chain.headAccount(from);
  const nonce = (p[0] as { nonce?: unknown }).nonce !== undefined ? quantity((p[0] as { nonce?: unknown }).nonce, 'nonce') : (ctx.backend.pendingNonce(from) ?? account?.nonce ?? 0n);
  const gasLimit = req.gas ?? BigInt(await estimateGas([{ ...(p[0] as object), from }, 'latest'], ctx) as string);
  const legacy = req.gasPrice !== undefined && req.maxFeePerGas === undefined;
  const maxFeePerGas = req.maxFeePerGas ?? req.gasPrice ?? chain.nextBaseFee() * 2n;
  const maxPriorityFeePerGas = req.maxPriorityFeePerGas ?? 0n;
  const cost = gasLimit * maxFeePerGas + (req.value ?? 0n);
  if ((account?.balance ?? 0n) < cost) throw new RpcError(SERVER_ERROR, `insufficient funds for gas * price + value: address ${from} have ${account?.balance ?? 0n} want ${cost}`);
  if (nonce < (account?.nonce ?? 0n)) throw new RpcError(SERVER_ERROR, `nonce too low: next nonce ${account?.nonce ?? 0n}, tx nonce ${nonce}`);
  let raw: Uint8Array;
  try {
    raw = impersonatedTxBytes({
      nonce, gasLimit, to: req.to ?? null, value: req.value ?? 0n, data: req.data ?? '0x', maxFeePerGas, maxPriorityFeePerGas, ...(legacy ? { gasPrice: req.gasPrice as bigint } : {}),
    }, from, chain.txCommon);
  } catch (err) {
    throw invalidParams(`invalid transaction: ${(err as Error).message.split(' (')[0]}`);
  }
  const hash = bytesToHex(keccak256(raw));
  await submit(ctx, { kind: 'sendAs', from, raw: bytesToHex(raw) });
  if ((await chain.findTx(hash)) === undefined) throw new RpcError(SERVER_ERROR, 'the transaction could not run in its block (nonce or funds changed meanwhile)');
  return hash;
};

/** What cannot be done on a chain whose exchange and EVM state only move forward through blocks. */
function unsupported(what: string): Handler {
  return () => {
    throw new RpcError(SERVER_ERROR, `${what} is not supported: the devnet's state (exchange and EVM together) only moves forward through blocks; start a fresh devnet (svc devnet --fresh) instead (docs/evm.md, "Devnet methods")`);
  };
}

export const DEVNET_METHODS: Record<string, Handler> = {
  anvil_setBalance: setBalance,
  hardhat_setBalance: setBalance,
  anvil_setNonce: setNonce,
  hardhat_setNonce: setNonce,
  anvil_setCode: setCode,
  hardhat_setCode: setCode,
  anvil_setStorageAt: setStorageAt,
  hardhat_setStorageAt: setStorageAt,
  anvil_impersonateAccount: impersonate,
  hardhat_impersonateAccount: impersonate,
  anvil_stopImpersonatingAccount: stopImpersonating,
  hardhat_stopImpersonatingAccount: stopImpersonating,
  eth_sendTransaction: sendTransaction,
  evm_mine: evmMine,
  anvil_mine: mineBlocks,
  hardhat_mine: mineBlocks,
  evm_setNextBlockTimestamp: setNextBlockTimestamp,
  anvil_setNextBlockTimestamp: setNextBlockTimestamp,
  evm_increaseTime: increaseTime,
  anvil_increaseTime: increaseTime,
  evm_snapshot: unsupported('evm_snapshot'),
  evm_revert: unsupported('evm_revert'),
  anvil_snapshot: unsupported('anvil_snapshot'),
  anvil_revert: unsupported('anvil_revert'),
  anvil_reset: unsupported('anvil_reset'),
  hardhat_reset: unsupported('hardhat_reset'),
  anvil_dumpState: unsupported('anvil_dumpState'),
  anvil_loadState: unsupported('anvil_loadState'),
};
