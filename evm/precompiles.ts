// Read precompiles: the EVM's view of the exchange, at fixed addresses from 0x…0800 (the
// addresses and argument layout of Hyperliquid's HyperEVM read precompiles, so contracts written
// for those read ours). Input is the ABI encoding of the arguments, without a selector; output
// is ABI-encoded (a struct with a string or an array as one dynamic tuple, as L1Read decodes it).
// Gas: 2000 + 65 per input and output byte (HyperEVM's current rule). Invalid input (wrong
// length, a value out of its type's range, an unknown perp, pair or token) consumes all gas and
// fails the call.
//
// The view is the exchange state at the end of the exchange part of the current block: a block's
// EVM transactions run after its exchange actions, so every EVM transaction of block H reads the
// same, deterministic state. Calls at an older block read that block's view through `viewAt`.
import { EVMError, type CustomPrecompile, type ExecResult, type PrecompileInput } from '@ethereumjs/evm';
import { bigIntToBytes, bytesToBigInt, bytesToHex, setLengthLeft } from '@ethereumjs/util';

/** A delegation as the `delegations` precompile returns it. */
export interface DelegationView {
  /** The validator's address: its operator account, or for one without, its CometBFT address (sha256(key)[0..20]). */
  readonly validator: string;
  /** Staking token units (10^-8). */
  readonly amount: bigint;
  /** Block time (ms) before which it cannot be undelegated. */
  readonly lockedUntil: bigint;
}

/** What the EVM reads from the exchange; declared here, supplied by node/. Units are the exchange's (docs/evm.md). */
export interface ExchangeView {
  /** Oracle price of perp `perp` in 10^-(6 - szDecimals) USD, null for an unknown perp. */
  oraclePx(perp: number): bigint | null;
  /** Mark price, same units. */
  markPx(perp: number): bigint | null;
  /** Perp position: signed size in lots (10^-szDecimals) and entry notional in 10^-8 USD; null for an unknown perp. */
  position(user: string, perp: number): { szi: bigint; entryNtl: bigint; leverage: number; isolated: boolean; isolatedRawUsd: bigint } | null;
  /** Spot balance and the part held by resting orders, in 10^-8 token units; null for an unknown token. */
  spotBalance(user: string, token: number): { total: bigint; hold: bigint } | null;
  /** USDC the account could withdraw (10^-8 USD). */
  withdrawable(user: string): bigint;
  /** Delegations by validator address order. */
  delegations(user: string): DelegationView[];
  delegatorSummary(user: string): { delegated: bigint; undelegated: bigint; totalPendingWithdrawal: bigint; nPendingWithdrawals: bigint };
  /** Mark price of spot pair `spot` in 10^-(8 - base szDecimals) quote units; null for an unknown pair. */
  spotPx(spot: number): bigint | null;
  /** The exchange's block height. */
  l1BlockNumber(): bigint;
  perpAssetInfo(perp: number): { coin: string; marginTableId: bigint; szDecimals: bigint; maxLeverage: bigint; onlyIsolated: boolean } | null;
  spotInfo(spot: number): { name: string; tokens: readonly [bigint, bigint] } | null;
  tokenInfo(token: number): {
    name: string; spots: bigint[]; deployerTradingFeeShare: bigint; deployer: string; evmContract: string; szDecimals: bigint; weiDecimals: bigint; evmExtraWeiDecimals: bigint;
  } | null;
  /** Best bid and ask of an asset (perp index, or 10000 + pair), in its price units, 0 for an empty side; null for an unknown asset. */
  bbo(asset: number): { bid: bigint; ask: bigint } | null;
  /** Cross margin figures (10^-8 USD) of perp dex `dex` (only 0 exists); null for another dex. */
  accountMarginSummary(dex: number, user: string): { accountValue: bigint; marginUsed: bigint; ntlPos: bigint; rawUsd: bigint } | null;
  /** Whether the address has an exchange account. */
  coreUserExists(user: string): boolean;
}

/**
 * The views calls read: `at(null)` the view of the block executing (or the head, between
 * blocks); `at(height)` the view as it was after block `height`, or a string saying why the node
 * no longer has it (the call fails with that message).
 */
export interface ExchangeViews {
  at(height: number | null): ExchangeView | string;
}

export const PRECOMPILE = {
  position: '0x0000000000000000000000000000000000000800',
  spotBalance: '0x0000000000000000000000000000000000000801',
  userVaultEquity: '0x0000000000000000000000000000000000000802',
  withdrawable: '0x0000000000000000000000000000000000000803',
  delegations: '0x0000000000000000000000000000000000000804',
  delegatorSummary: '0x0000000000000000000000000000000000000805',
  markPx: '0x0000000000000000000000000000000000000806',
  oraclePx: '0x0000000000000000000000000000000000000807',
  spotPx: '0x0000000000000000000000000000000000000808',
  l1BlockNumber: '0x0000000000000000000000000000000000000809',
  perpAssetInfo: '0x000000000000000000000000000000000000080a',
  spotInfo: '0x000000000000000000000000000000000000080b',
  tokenInfo: '0x000000000000000000000000000000000000080c',
  bbo: '0x000000000000000000000000000000000000080e',
  accountMarginSummary: '0x000000000000000000000000000000000000080f',
  coreUserExists: '0x0000000000000000000000000000000000000810',
} as const;

const BASE_GAS = 2000n;
const GAS_PER_BYTE = 65n;
const WORD = 32;

/** A value of an ABI encoding: a word (uint, int, bool, address), a string, or an array of words. */
type Abi = bigint | boolean | string | readonly bigint[] | { readonly tuple: readonly Abi[] } | { readonly list: readonly (readonly bigint[])[] };

function word(v: bigint): Uint8Array {
  // Two's complement for negative values (int64 fields).
  return setLengthLeft(bigIntToBytes(v < 0n ? (1n << 256n) + v : v), WORD);
}

const isDynamic = (v: Abi): boolean => typeof v === 'string' || Array.isArray(v) || (typeof v === 'object' && 'list' in v) || (typeof v === 'object' && 'tuple' in v && v.tuple.some(isDynamic));

/** The ABI encoding of a tuple of values (heads, then tails of the dynamic ones). */
function encode(values: readonly Abi[]): Uint8Array[] {
  const heads: Uint8Array[][] = [];
  const tails: Uint8Array[][] = [];
  // The tails start after every head: a word per dynamic value, a static tuple's whole encoding.
  let tailSize = 0;
  for (const v of values) tailSize += !isDynamic(v) && typeof v === 'object' && 'tuple' in v ? encode(v.tuple).length * WORD : WORD;
  for (const v of values) {
    if (!isDynamic(v)) {
      heads.push(typeof v === 'object' && 'tuple' in v ? encode(v.tuple) : [encodeWord(v)]);
      continue;
    }
    heads.push([word(BigInt(tailSize))]);
    const tail = encodeDynamic(v);
    tails.push(tail);
    tailSize += tail.reduce((n, b) => n + b.length, 0);
  }
  return [...heads.flat(), ...tails.flat()];
}

function encodeWord(v: Abi): Uint8Array {
  if (typeof v === 'bigint') return word(v);
  if (typeof v === 'boolean') return word(v ? 1n : 0n);
  throw new Error('invariant: not a word');
}

function encodeDynamic(v: Abi): Uint8Array[] {
  if (typeof v === 'string') {
    const bytes = new TextEncoder().encode(v);
    const padded = new Uint8Array(Math.ceil(bytes.length / WORD) * WORD);
    padded.set(bytes);
    return [word(BigInt(bytes.length)), padded];
  }
  if (Array.isArray(v)) return [word(BigInt(v.length)), ...(v as bigint[]).map(word)];
  if (typeof v === 'object' && 'list' in v) return [word(BigInt(v.list.length)), ...v.list.flatMap((e) => e.map(word))];
  if (typeof v === 'object' && 'tuple' in v) return encode(v.tuple);
  throw new Error('invariant: not dynamic');
}

function fail(gasLimit: bigint): ExecResult {
  return { returnValue: new Uint8Array(0), executionGasUsed: gasLimit, exceptionError: new EVMError(EVMError.errorMessages.INVALID_INPUT_LENGTH) };
}

function answer(input: PrecompileInput, value: Abi): ExecResult {
  const parts = encode([value]);
  const out = new Uint8Array(parts.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  const gas = BASE_GAS + GAS_PER_BYTE * BigInt(input.data.length + out.length);
  if (gas > input.gasLimit) return { returnValue: new Uint8Array(0), executionGasUsed: input.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
  return { returnValue: out, executionGasUsed: gas };
}

/** The i-th ABI word of the input as an unsigned integer below 2^bits, or null. */
function arg(data: Uint8Array, i: number, bits: number): number | null {
  const w = data.subarray(i * WORD, (i + 1) * WORD);
  if (w.length !== WORD) return null;
  const v = bytesToBigInt(w);
  return v < 1n << BigInt(bits) ? Number(v) : null;
}

function addressArg(data: Uint8Array, i: number): string | null {
  const w = data.subarray(i * WORD, (i + 1) * WORD);
  if (w.length !== WORD || w.subarray(0, 12).some((b) => b !== 0)) return null;
  return bytesToHex(w.subarray(12));
}

/** `args` words exactly, else null (a wrong length fails the call). */
function exactly(input: PrecompileInput, args: number): Uint8Array | null {
  return input.data.length === args * WORD ? input.data : null;
}

/** Thrown to fail the whole call (not only the precompile frame) with a message: the view is gone. */
export class ExchangeViewUnavailable extends Error {
  override readonly name = 'ExchangeViewUnavailable';
}

/**
 * The read precompiles over `views`. `height` is the block the call reads at: null for the
 * block executing (transactions) and the head.
 */
export function exchangePrecompiles(views: ExchangeViews, height: number | null = null): CustomPrecompile[] {
  let cached: ExchangeView | null = null;
  const view = (): ExchangeView => {
    if (cached !== null) return cached;
    const v = views.at(height);
    if (typeof v === 'string') throw new ExchangeViewUnavailable(v);
    // The head's view is the live state: not cached (it moves); an older one is fixed.
    if (height !== null) cached = v;
    return v;
  };
  /** A precompile reading `args` words; `read` answers null for invalid input. */
  const def = (address: `0x${string}`, args: number, read: (d: Uint8Array, v: ExchangeView) => Abi | null): CustomPrecompile => ({
    address,
    function: (input) => {
      const d = exactly(input, args);
      const out = d === null ? null : read(d, view());
      return out === null ? fail(input.gasLimit) : answer(input, out);
    },
  });
  const price = (read: (v: ExchangeView, i: number) => bigint | null) => (d: Uint8Array, v: ExchangeView) => {
    const i = arg(d, 0, 32);
    return i === null ? null : read(v, i);
  };
  const user = (d: Uint8Array, i = 0) => addressArg(d, i);
  return [
    // position(address user, uint16 perp) -> (int64 szi, uint64 entryNtl, int64 isolatedRawUsd, uint32 leverage, bool isIsolated)
    def(PRECOMPILE.position, 2, (d, v) => {
      const u = user(d);
      const perp = arg(d, 1, 16);
      const p = u === null || perp === null ? null : v.position(u, perp);
      return p === null ? null : { tuple: [p.szi, p.entryNtl, p.isolatedRawUsd, BigInt(p.leverage), p.isolated] };
    }),
    // spotBalance(address user, uint64 token) -> (uint64 total, uint64 hold, uint64 entryNtl)
    def(PRECOMPILE.spotBalance, 2, (d, v) => {
      const u = user(d);
      const token = arg(d, 1, 64);
      const b = u === null || token === null ? null : v.spotBalance(u, token);
      return b === null ? null : { tuple: [b.total, b.hold, 0n] };
    }),
    // userVaultEquity(address user, address vault) -> (uint64 equity, uint64 lockedUntilTimestamp): no vaults exist here.
    def(PRECOMPILE.userVaultEquity, 2, (d) => (user(d, 0) === null || user(d, 1) === null ? null : { tuple: [0n, 0n] })),
    def(PRECOMPILE.withdrawable, 1, (d, v) => {
      const u = user(d);
      return u === null ? null : v.withdrawable(u);
    }),
    // delegations(address user) -> Delegation[](address validator, uint64 amount, uint64 lockedUntilTimestamp)
    def(PRECOMPILE.delegations, 1, (d, v) => {
      const u = user(d);
      return u === null ? null : { list: v.delegations(u).map((x) => [BigInt(x.validator), x.amount, x.lockedUntil]) };
    }),
    def(PRECOMPILE.delegatorSummary, 1, (d, v) => {
      const u = user(d);
      if (u === null) return null;
      const s = v.delegatorSummary(u);
      return { tuple: [s.delegated, s.undelegated, s.totalPendingWithdrawal, s.nPendingWithdrawals] };
    }),
    def(PRECOMPILE.markPx, 1, price((v, i) => v.markPx(i))),
    def(PRECOMPILE.oraclePx, 1, price((v, i) => v.oraclePx(i))),
    def(PRECOMPILE.spotPx, 1, price((v, i) => v.spotPx(i))),
    def(PRECOMPILE.l1BlockNumber, 0, (_d, v) => v.l1BlockNumber()),
    // perpAssetInfo(uint32 perp) -> (string coin, uint32 marginTableId, uint8 szDecimals, uint8 maxLeverage, bool onlyIsolated)
    def(PRECOMPILE.perpAssetInfo, 1, (d, v) => {
      const i = arg(d, 0, 32);
      const p = i === null ? null : v.perpAssetInfo(i);
      return p === null ? null : { tuple: [p.coin, p.marginTableId, p.szDecimals, p.maxLeverage, p.onlyIsolated] };
    }),
    // spotInfo(uint32 spot) -> (string name, uint64[2] tokens)
    def(PRECOMPILE.spotInfo, 1, (d, v) => {
      const i = arg(d, 0, 32);
      const p = i === null ? null : v.spotInfo(i);
      return p === null ? null : { tuple: [p.name, { tuple: [p.tokens[0], p.tokens[1]] }] };
    }),
    // tokenInfo(uint32 token) -> (string name, uint64[] spots, uint64 deployerTradingFeeShare, address deployer,
    //   address evmContract, uint8 szDecimals, uint8 weiDecimals, int8 evmExtraWeiDecimals)
    def(PRECOMPILE.tokenInfo, 1, (d, v) => {
      const i = arg(d, 0, 32);
      const t = i === null ? null : v.tokenInfo(i);
      return t === null ? null : { tuple: [t.name, t.spots, t.deployerTradingFeeShare, BigInt(t.deployer), BigInt(t.evmContract), t.szDecimals, t.weiDecimals, t.evmExtraWeiDecimals] };
    }),
    // bbo(uint32 asset) -> (uint64 bid, uint64 ask)
    def(PRECOMPILE.bbo, 1, (d, v) => {
      const i = arg(d, 0, 32);
      const b = i === null ? null : v.bbo(i);
      return b === null ? null : { tuple: [b.bid, b.ask] };
    }),
    // accountMarginSummary(uint32 perp_dex_index, address user) -> (int64 accountValue, uint64 marginUsed, uint64 ntlPos, int64 rawUsd)
    def(PRECOMPILE.accountMarginSummary, 2, (d, v) => {
      const dex = arg(d, 0, 32);
      const u = user(d, 1);
      const m = dex === null || u === null ? null : v.accountMarginSummary(dex, u);
      return m === null ? null : { tuple: [m.accountValue, m.marginUsed, m.ntlPos, m.rawUsd] };
    }),
    def(PRECOMPILE.coreUserExists, 1, (d, v) => {
      const u = user(d);
      return u === null ? null : v.coreUserExists(u);
    }),
  ];
}
