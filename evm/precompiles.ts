// Read precompiles: the EVM's view of the exchange, at fixed addresses from 0x…0800 (the
// addresses and argument layout of Hyperliquid's HyperEVM read precompiles, so contracts written
// for those read ours). Input is the ABI encoding of the arguments, without a selector; output
// is ABI-encoded. Gas: 2000 + 65 per output byte. Invalid input consumes all gas and fails.
//
// The view is the exchange state at the end of the exchange part of the current block: a block's
// EVM transactions run after its exchange actions, so every EVM transaction of block H reads the
// same, deterministic state.
import { EVMError, type CustomPrecompile, type ExecResult, type PrecompileInput } from '@ethereumjs/evm';
import { bigIntToBytes, bytesToBigInt, bytesToHex, setLengthLeft } from '@ethereumjs/util';

/** What the EVM reads from the exchange; declared here, supplied by node/. */
export interface ExchangeView {
  /** Oracle price of perp `perp` in 10^-(6 - szDecimals) USD, null for an unknown perp. */
  oraclePx(perp: number): bigint | null;
  /** Mark price, same units. */
  markPx(perp: number): bigint | null;
  /** Perp position: signed size in lots (10^-szDecimals) and entry notional in 10^-8 USD; null for an unknown perp. */
  position(user: string, perp: number): { szi: bigint; entryNtl: bigint; leverage: number } | null;
  /** Spot balance and the part held by resting orders, in 10^-8 token units; null for an unknown token. */
  spotBalance(user: string, token: number): { total: bigint; hold: bigint } | null;
}

export const PRECOMPILE = {
  position: '0x0000000000000000000000000000000000000800',
  spotBalance: '0x0000000000000000000000000000000000000801',
  markPx: '0x0000000000000000000000000000000000000806',
  oraclePx: '0x0000000000000000000000000000000000000807',
} as const;

const BASE_GAS = 2000n;
const GAS_PER_BYTE = 65n;
const WORD = 32;

function word(v: bigint): Uint8Array {
  // Two's complement for negative values (int64 fields).
  return setLengthLeft(bigIntToBytes(v < 0n ? (1n << 256n) + v : v), WORD);
}

function fail(gasLimit: bigint): ExecResult {
  return { returnValue: new Uint8Array(0), executionGasUsed: gasLimit, exceptionError: new EVMError(EVMError.errorMessages.INVALID_INPUT_LENGTH) };
}

function answer(input: PrecompileInput, words: bigint[]): ExecResult {
  const out = new Uint8Array(words.length * WORD);
  words.forEach((w, i) => out.set(word(w), i * WORD));
  const gas = BASE_GAS + GAS_PER_BYTE * BigInt(out.length);
  if (gas > input.gasLimit) return { returnValue: new Uint8Array(0), executionGasUsed: input.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
  return { returnValue: out, executionGasUsed: gas };
}

/** The i-th ABI word of the input as an unsigned integer below 2^bits, or null. */
function arg(data: Uint8Array, i: number, bits: number): bigint | null {
  const w = data.subarray(i * WORD, (i + 1) * WORD);
  if (w.length !== WORD) return null;
  const v = bytesToBigInt(w);
  return v < 1n << BigInt(bits) ? v : null;
}

function addressArg(data: Uint8Array, i: number): string | null {
  const v = arg(data, i, 160);
  return v === null ? null : bytesToHex(setLengthLeft(bigIntToBytes(v), 20));
}

export function exchangePrecompiles(view: ExchangeView): CustomPrecompile[] {
  const price = (read: (perp: number) => bigint | null) => (input: PrecompileInput): ExecResult => {
    const perp = input.data.length === WORD ? arg(input.data, 0, 32) : null;
    const px = perp === null ? null : read(Number(perp));
    return px === null ? fail(input.gasLimit) : answer(input, [px]);
  };
  return [
    {
      address: PRECOMPILE.position,
      // position(address user, uint16 perp) -> (int64 szi, uint64 entryNtl, int64 isolatedRawUsd, uint32 leverage, bool isIsolated)
      function: (input) => {
        const user = input.data.length === 2 * WORD ? addressArg(input.data, 0) : null;
        const perp = arg(input.data, 1, 16);
        const p = user === null || perp === null ? null : view.position(user, Number(perp));
        return p === null ? fail(input.gasLimit) : answer(input, [p.szi, p.entryNtl, 0n, BigInt(p.leverage), 0n]);
      },
    },
    {
      address: PRECOMPILE.spotBalance,
      // spotBalance(address user, uint64 token) -> (uint64 total, uint64 hold, uint64 entryNtl)
      function: (input) => {
        const user = input.data.length === 2 * WORD ? addressArg(input.data, 0) : null;
        const token = arg(input.data, 1, 64);
        const b = user === null || token === null ? null : view.spotBalance(user, Number(token));
        return b === null ? fail(input.gasLimit) : answer(input, [b.total, b.hold, 0n]);
      },
    },
    { address: PRECOMPILE.markPx, function: price((p) => view.markPx(p)) },
    { address: PRECOMPILE.oraclePx, function: price((p) => view.oraclePx(p)) },
  ];
}
