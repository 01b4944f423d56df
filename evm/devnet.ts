// Devnet operations on EVM state (anvil_setBalance, anvil_setCode, anvil_setStorageAt, the block
// clock, impersonated transactions). They reach the EVM only as devnet system transactions of a
// consensus block (node/devnet-tx.ts), in block order with the EVM transactions, so replaying the
// stored blocks applies them again at the same points: execution stays a function of the blocks.
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { createTx } from '@ethereumjs/tx';
import { bigIntToBytes, createAddressFromString, setLengthLeft } from '@ethereumjs/util';
import { hexToBytes } from '../primitives/index.ts';

export type DevnetOp =
  | { readonly kind: 'setBalance'; readonly address: string; readonly balance: bigint }
  | { readonly kind: 'setNonce'; readonly address: string; readonly nonce: bigint }
  | { readonly kind: 'setCode'; readonly address: string; readonly code: string }
  | { readonly kind: 'setStorageAt'; readonly address: string; readonly slot: bigint; readonly value: bigint }
  /** The next EVM block's timestamp (seconds); later blocks keep the same offset from consensus time. */
  | { readonly kind: 'setNextTimestamp'; readonly timestamp: bigint }
  /** Moves the EVM clock forward from the next block on. */
  | { readonly kind: 'increaseTime'; readonly seconds: bigint }
  /** Nothing but a block (evm_mine). */
  | { readonly kind: 'mine' }
  /** A transaction of an impersonated sender: its bytes carry a placeholder signature; `from` is its sender. */
  | { readonly kind: 'sendAs'; readonly from: string; readonly raw: string };

/**
 * The EVM's block clock: timestamp = consensus seconds + offset, or `next` for the block after a
 * setNextTimestamp (the offset then becomes what that block needed). Never below the parent's.
 */
export interface EvmClock {
  readonly offset: bigint;
  readonly next: bigint | null;
}

export const NO_CLOCK_SHIFT: EvmClock = { offset: 0n, next: null };

/** The clock as a stored block records it (absent: no shift), and back. */
export function clockRecord(c: EvmClock): { offset: string; next?: string } | undefined {
  if (c.offset === 0n && c.next === null) return undefined;
  return { offset: c.offset.toString(), ...(c.next === null ? {} : { next: c.next.toString() }) };
}

export function clockOf(r: { offset: string; next?: string } | undefined): EvmClock {
  return r === undefined ? NO_CLOCK_SHIFT : { offset: BigInt(r.offset), next: r.next === undefined ? null : BigInt(r.next) };
}

/** A block's timestamp and the clock after it takes it. */
export function blockTime(clock: EvmClock, consensusSeconds: bigint, parentTimestamp: bigint): { timestamp: bigint; clock: EvmClock } {
  let timestamp = clock.next ?? consensusSeconds + clock.offset;
  if (timestamp < parentTimestamp) timestamp = parentTimestamp;
  return { timestamp, clock: clock.next === null ? clock : { offset: timestamp - consensusSeconds, next: null } };
}

/** The clock after `op` (for the blocks after the one carrying it). */
export function clockAfter(clock: EvmClock, op: DevnetOp): EvmClock {
  if (op.kind === 'setNextTimestamp') return { offset: clock.offset, next: op.timestamp };
  if (op.kind === 'increaseTime') return { offset: clock.offset + op.seconds, next: clock.next === null ? null : clock.next + op.seconds };
  return clock;
}

/** Applies a state operation through the state manager (inside the block's checkpoint). */
export async function applyStateOp(state: MerkleStateManager, op: DevnetOp): Promise<void> {
  switch (op.kind) {
    case 'setBalance':
      await state.modifyAccountFields(createAddressFromString(op.address), { balance: op.balance });
      return;
    case 'setNonce':
      await state.modifyAccountFields(createAddressFromString(op.address), { nonce: op.nonce });
      return;
    case 'setCode':
      await state.putCode(createAddressFromString(op.address), hexToBytes(op.code));
      return;
    case 'setStorageAt': {
      const a = createAddressFromString(op.address);
      // An account must exist for its storage to be kept.
      if ((await state.getAccount(a)) === undefined) await state.modifyAccountFields(a, { nonce: 0n });
      await state.putStorage(a, setLengthLeft(bigIntToBytes(op.slot), 32), op.value === 0n ? new Uint8Array(0) : bigIntToBytes(op.value));
      return;
    }
    default:
      return;
  }
}

export interface ImpersonatedFields {
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  readonly to: string | null;
  readonly value: bigint;
  readonly data: string;
  /** Legacy (EIP-155) when set, else EIP-1559 with the two caps. */
  readonly gasPrice?: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/**
 * The bytes of an impersonated sender's transaction: no key signs for it, so it carries a
 * placeholder signature that names the sender (yParity 0, r = the sender address + 1, s = 1), which
 * keeps the hashes of equal transactions from different senders apart. Its sender is never
 * recovered: the devnet transaction carries it and the block stores it.
 */
export function impersonatedTxBytes(f: ImpersonatedFields, from: string, common: Common): Uint8Array {
  const base = { nonce: f.nonce, gasLimit: f.gasLimit, value: f.value, data: hexToBytes(f.data), ...(f.to === null ? {} : { to: f.to as `0x${string}` }) };
  const r = BigInt(from) + 1n;
  const tx = f.gasPrice !== undefined
    ? createTx({ ...base, type: 0, gasPrice: f.gasPrice, v: common.chainId() * 2n + 35n, r, s: 1n }, { common })
    : createTx({ ...base, type: 2, maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas, v: 0n, r, s: 1n }, { common });
  return tx.serialize();
}
