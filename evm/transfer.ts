// The fast path for plain value transfers: a transaction without data or access list, to an
// account without code, from an account without code, that can pay, with the right nonce. Its
// effects are fully known without the interpreter: 21,000 gas, the sender pays gas at the
// effective price plus the value and its nonce advances, the recipient gains the value, the
// coinbase gains the priority fee, status 1, no logs. Anything outside that (including every
// failure, whose error message the VM words) is left to ethereumjs's runTx by returning null.
// Held equal to the VM (state roots, receipts, blooms, gas) in test/evm/fast-transfer.test.ts.
import { RLP } from '@ethereumjs/rlp';
import { TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { KECCAK256_NULL, bigIntToBytes, bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util';
import { EMPTY_TRIE_ROOT } from './trie-batch.ts';
import { encodeStrings } from './rlp-write.ts';

/** An account as the state trie holds it (RLP [nonce, balance, storageRoot, codeHash]). */
export interface AccountRecord {
  nonce: bigint;
  balance: bigint;
  readonly storageRoot: Uint8Array;
  readonly codeHash: Uint8Array;
}

export function decodeAccount(rlp: Uint8Array): AccountRecord {
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(rlp) as Uint8Array[];
  return { nonce: bytesToBigInt(nonce as Uint8Array), balance: bytesToBigInt(balance as Uint8Array), storageRoot: storageRoot as Uint8Array, codeHash: codeHash as Uint8Array };
}

export function encodeAccount(a: AccountRecord): Uint8Array {
  return encodeStrings([bigIntToUnpaddedBytes(a.nonce), bigIntToUnpaddedBytes(a.balance), a.storageRoot, a.codeHash]);
}

export function copyAccount(a: AccountRecord): AccountRecord {
  return { nonce: a.nonce, balance: a.balance, storageRoot: a.storageRoot, codeHash: a.codeHash };
}

export function newAccount(): AccountRecord {
  return { nonce: 0n, balance: 0n, storageRoot: EMPTY_TRIE_ROOT, codeHash: KECCAK256_NULL };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function hasCode(a: AccountRecord): boolean {
  return !sameBytes(a.codeHash, KECCAK256_NULL);
}

/** EIP-161 emptiness: a touched empty account is deleted, which this path does not do. */
function isEmpty(a: AccountRecord | null): boolean {
  return a === null || (a.nonce === 0n && a.balance === 0n && !hasCode(a));
}

export const TRANSFER_GAS = 21_000n;
/** EIP-7825 (Osaka): at most 2^24 gas per transaction. */
const MAX_TX_GAS = 1n << 24n;

/**
 * The recipient of a transaction the fast path may take, as a lowercase 0x address, or null.
 * Static checks only (the transaction's own fields); the accounts are checked by `applyTransfer`.
 * Addresses below 2^16 are left to the VM: precompiles (standard and the exchange's) live there.
 */
export function transferRecipient(tx: TypedTransaction): string | null {
  if (tx.type !== TransactionType.Legacy && tx.type !== TransactionType.AccessListEIP2930 && tx.type !== TransactionType.FeeMarketEIP1559) return null;
  if (tx.to === undefined || tx.data.length !== 0 || tx.gasLimit < TRANSFER_GAS || tx.gasLimit > MAX_TX_GAS) return null;
  if ('accessList' in tx && tx.accessList.length !== 0) return null;
  const to = tx.to.bytes;
  let high = 0;
  for (let i = 0; i < 18; i++) high |= to[i] as number;
  if (high === 0) return null;
  return `0x${Buffer.from(to.buffer, to.byteOffset, to.byteLength).toString('hex')}`;
}

export interface TransferParties {
  readonly from: AccountRecord | null;
  readonly to: AccountRecord | null;
  readonly coinbase: AccountRecord | null;
}

export interface TransferEffect {
  /** The accounts after the transaction, to store (same objects when addresses coincide). */
  readonly from: AccountRecord;
  readonly to: AccountRecord;
  readonly coinbase: AccountRecord | null;
  /** Gas price paid per gas (base fee plus the effective tip). */
  readonly gasPrice: bigint;
}

/**
 * Applies a transfer to the parties' records (mutated in place; pass the same object for an
 * address that is two parties), or returns null without touching them when the VM must run it.
 * `tx` passed `transferRecipient`.
 */
export function applyTransfer(tx: TypedTransaction, baseFee: bigint, p: TransferParties): TransferEffect | null {
  const { from } = p;
  const feeCap = 'maxFeePerGas' in tx ? tx.maxFeePerGas : (tx as { gasPrice: bigint }).gasPrice;
  if (from === null || hasCode(from) || from.nonce !== tx.nonce || feeCap < baseFee) return null;
  // ethereumjs's two balance checks (up-front cost at the effective price, value plus the fee cap) are both below this.
  if (from.balance < tx.gasLimit * feeCap + tx.value) return null;
  if (p.to !== null && hasCode(p.to)) return null;
  if (tx.value === 0n && isEmpty(p.to)) return null;
  const tip = 'maxFeePerGas' in tx
    ? (tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee)
    : feeCap - baseFee;
  const minerValue = TRANSFER_GAS * tip;
  if (minerValue === 0n && p.coinbase !== null && isEmpty(p.coinbase)) return null;
  const gasPrice = baseFee + tip;
  from.nonce += 1n;
  from.balance -= TRANSFER_GAS * gasPrice + tx.value;
  const to = p.to ?? newAccount();
  to.balance += tx.value;
  let coinbase: AccountRecord | null = null;
  if (minerValue !== 0n) {
    coinbase = p.coinbase ?? newAccount();
    coinbase.balance += minerValue;
  }
  return { from, to, coinbase, gasPrice };
}

/** status 1 (0x01), then the cumulative gas (a string), an empty bloom (256 zero bytes, 0xb90100) and no logs (0xc0). */
const BLOOM_AND_LOGS = (() => {
  const out = new Uint8Array(3 + 256 + 1);
  out.set([0xb9, 0x01, 0x00]);
  out[259] = 0xc0;
  return out;
})();

/**
 * The receipt of a fast transfer as encodeReceipt encodes it (type byte, then RLP [status 1,
 * cumulative gas, empty bloom, no logs]), written directly. The cumulative gas is at least 21,000,
 * so never a single byte under 0x80 nor longer than 55 bytes.
 */
export function transferReceipt(type: TransactionType, cumulativeGas: bigint): Uint8Array {
  const gas = bigIntToBytes(cumulativeGas);
  const payload = 1 + 1 + gas.length + BLOOM_AND_LOGS.length;
  const typed = type === TransactionType.Legacy ? 0 : 1;
  const out = new Uint8Array(typed + 3 + payload);
  let at = 0;
  if (typed === 1) out[at++] = type;
  out.set([0xf9, payload >> 8, payload & 255, 0x01, 0x80 + gas.length], at);
  out.set(gas, at + 5);
  out.set(BLOOM_AND_LOGS, at + 5 + gas.length);
  return out;
}
