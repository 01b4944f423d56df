// Actions from the EVM (docs/evm.md, "Write system contract"): the `RawAction` logs the write
// system contract (CORE_WRITER, HyperEVM's CoreWriter layout) emitted in EVM block H, decoded and
// run on the exchange as actions of the log's `user` (the contract's msg.sender), in log order,
// right after block H's linked-token settlement, inside consensus block H. Every node reads the
// same receipts, so every node runs the same actions at the same point.
//
// Payload: byte 0 the version (1), bytes 1-3 the action id (big-endian), then the ABI encoding
// of the action's fields (static tuples as words; action 9's string as a dynamic tail). Each id
// becomes the exchange's own action (the same parser, checks, fees and messages as /exchange);
// ids with no counterpart here, malformed payloads and unknown versions are refused. A refused
// action changes nothing and does not revert the EVM transaction: its result is recorded (the
// block's results, folded into the app hash, and the `evmActions` info type).
import { rawActionOf, type StoredReceipt } from '../evm/index.ts';
import { USD_DECIMALS, USDC_TOKEN_INDEX, exchangeError, type Exchange, type ExchangeError, type ExchangeEvent, type TxResult } from '../exchange/index.ts';
import { bytesToHex, concatBytes, formatScaled, hexToBytes, keccak256 } from '../primitives/index.ts';
import { validatorAt } from './exchange-view.ts';

/** The payload version HyperEVM defines; any other is refused. */
export const ACTION_VERSION = 1;

/** Action ids (HyperEVM's numbering). */
export const ACTION_IDS = {
  limitOrder: 1, vaultTransfer: 2, tokenDelegate: 3, stakingDeposit: 4, stakingWithdraw: 5, spotSend: 6, usdClassTransfer: 7,
  finalizeEvmContract: 8, addApiWallet: 9, cancelByOid: 10, cancelByCloid: 11, approveBuilderFee: 12, sendAsset: 13,
  borrowLend: 15, setAbstraction: 16, outcome: 17,
} as const;

/** `encodedTif` of a limit order: 1 Alo, 2 Gtc, 3 Ioc. */
const TIFS = ['', 'Alo', 'Gtc', 'Ioc'] as const;
/** Prices and sizes of limit orders, and amounts of sends: the value times 10^8. */
const AMOUNT_DECIMALS = 8;
/** `sendAsset`'s dex index of the spot balance. */
const SPOT_DEX = 0xffffffffn;

/** What the payload asks for: a wire action of the exchange, or why it is refused before the exchange sees it. */
export type DecodedAction = { readonly id: number; readonly action: Record<string, unknown> } | { readonly id: number; readonly error: ExchangeError };

/** Lookups the translation needs from the state (token names, validators by operator). */
export interface ActionContext {
  tokenName(index: number): string | undefined;
  /** The consensus key of the validator `operator` registered, if any. */
  validatorOf(operator: string): string | undefined;
  /** The block time: actions that must repeat the request nonce repeat it. */
  readonly time: number;
}

class Malformed extends Error {}

/** The ABI words of a payload's arguments, read strictly (exact length, values in their type's range). */
class Words {
  constructor(private readonly data: Uint8Array) {}

  static exact(data: Uint8Array, words: number): Words {
    if (data.length !== words * 32) throw new Malformed(`expected ${words} ABI words (${words * 32} bytes) of arguments, got ${data.length} bytes`);
    return new Words(data);
  }

  word(i: number): bigint {
    const w = this.data.subarray(i * 32, (i + 1) * 32);
    if (w.length !== 32) throw new Malformed(`argument ${i} is missing`);
    return BigInt(bytesToHex(w));
  }

  uint(i: number, bits: number): bigint {
    const v = this.word(i);
    if (v >= 1n << BigInt(bits)) throw new Malformed(`argument ${i} does not fit a uint${bits}`);
    return v;
  }

  /** A uint that must also be a safe integer (ids, indices, oids). */
  safe(i: number, bits: number): number {
    const v = this.uint(i, bits);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Malformed(`argument ${i} (${v}) is above 2^53 - 1`);
    return Number(v);
  }

  bool(i: number): boolean {
    const v = this.word(i);
    if (v > 1n) throw new Malformed(`argument ${i} is not a bool`);
    return v === 1n;
  }

  address(i: number): string {
    return `0x${this.uint(i, 160).toString(16).padStart(40, '0')}`;
  }

  /** A dynamic `string` argument whose head is word i, as the only dynamic tail. */
  string(i: number, heads: number): string {
    const offset = this.word(i);
    if (offset !== BigInt(heads * 32)) throw new Malformed(`argument ${i}: string offset ${offset}, expected ${heads * 32}`);
    const len = this.uint(heads, 32);
    const end = (heads + 1) * 32 + Math.ceil(Number(len) / 32) * 32;
    if (this.data.length !== end) throw new Malformed(`argument ${i}: ${this.data.length} bytes for a string of ${len}`);
    const bytes = this.data.subarray((heads + 1) * 32, (heads + 1) * 32 + Number(len));
    const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    return text;
  }
}

const amount = (v: bigint) => formatScaled(v, AMOUNT_DECIMALS);
const cloidHex = (v: bigint) => `0x${v.toString(16).padStart(32, '0')}`;

/** The wire action of a payload's action id (throws Malformed on bad arguments). */
function translate(id: number, w: Uint8Array, ctx: ActionContext): Record<string, unknown> | ExchangeError {
  const refuse = (message: string) => exchangeError('INVALID_ACTION', message);
  switch (id) {
    case ACTION_IDS.limitOrder: {
      const a = Words.exact(w, 7);
      const tif = TIFS[Number(a.uint(5, 8))];
      if (tif === undefined || tif === '') return refuse(`encodedTif ${a.uint(5, 8)} is not 1 (Alo), 2 (Gtc) or 3 (Ioc)`);
      const cloid = a.uint(6, 128);
      const order = { a: a.safe(0, 32), b: a.bool(1), p: amount(a.uint(2, 64)), s: amount(a.uint(3, 64)), r: a.bool(4), t: { limit: { tif } }, ...(cloid === 0n ? {} : { c: cloidHex(cloid) }) };
      return { type: 'order', orders: [order], grouping: 'na' };
    }
    case ACTION_IDS.tokenDelegate: {
      const a = Words.exact(w, 3);
      const operator = a.address(0);
      const validator = ctx.validatorOf(operator);
      if (validator === undefined) return refuse(`no validator is registered with operator ${operator}`);
      return { type: 'tokenDelegate', validator, wei: a.safe(1, 64), isUndelegate: a.bool(2) };
    }
    case ACTION_IDS.stakingDeposit:
    case ACTION_IDS.stakingWithdraw: {
      const a = Words.exact(w, 1);
      return { type: id === ACTION_IDS.stakingDeposit ? 'cDeposit' : 'cWithdraw', wei: a.safe(0, 64) };
    }
    case ACTION_IDS.spotSend: {
      const a = Words.exact(w, 3);
      return send(a.address(0), a.safe(1, 64), a.uint(2, 64), ctx);
    }
    case ACTION_IDS.sendAsset: {
      const a = Words.exact(w, 6);
      if (a.uint(1, 160) !== 0n) return refuse('sendAsset from a sub-account is not available here (subAccount must be the zero address)');
      for (const i of [2, 3]) {
        const dex = a.uint(i, 32);
        if (dex !== 0n && dex !== SPOT_DEX) return refuse(`dex ${dex} does not exist here: spot (2^32 - 1) and the perp dex (0) share one balance`);
      }
      return send(a.address(0), a.safe(4, 64), a.uint(5, 64), ctx);
    }
    case ACTION_IDS.addApiWallet: {
      const a = new Words(w);
      const wallet = a.address(0);
      return { type: 'approveAgent', agentAddress: wallet, agentName: a.string(1, 2), nonce: ctx.time };
    }
    case ACTION_IDS.cancelByOid: {
      const a = Words.exact(w, 2);
      return { type: 'cancel', cancels: [{ a: a.safe(0, 32), o: a.safe(1, 64) }] };
    }
    case ACTION_IDS.cancelByCloid: {
      const a = Words.exact(w, 2);
      return { type: 'cancelByCloid', cancels: [{ asset: a.safe(0, 32), cloid: cloidHex(a.uint(1, 128)) }] };
    }
    case ACTION_IDS.approveBuilderFee: {
      const a = Words.exact(w, 2);
      return { type: 'approveBuilderFee', maxFeeRate: `${formatScaled(a.uint(0, 64), 3)}%`, builder: a.address(1), nonce: ctx.time };
    }
    case ACTION_IDS.vaultTransfer:
      Words.exact(w, 3);
      return refuse('vaults do not exist on this chain');
    case ACTION_IDS.usdClassTransfer:
      Words.exact(w, 2);
      return refuse('perps and spot share one USDC balance on this chain: usdClassTransfer has nothing to move');
    case ACTION_IDS.finalizeEvmContract:
      Words.exact(w, 3);
      return refuse('tokens are linked by spotDeploy\'s evmContract on this chain: there is no finalize step');
    case ACTION_IDS.borrowLend:
    case ACTION_IDS.setAbstraction:
    case ACTION_IDS.outcome:
      return refuse(`action id ${id} (${id === 15 ? 'borrow/lend' : id === 16 ? 'set abstraction' : 'outcome'}) is not available on this chain`);
    default:
      return refuse(`unknown action id ${id}`);
  }
}

/** A spot send of `wei` (10^-8 units) of token `token`: USDC (10000) as `usdTransfer`, any other as `spotSend`. */
function send(destination: string, token: number, wei: bigint, ctx: ActionContext): Record<string, unknown> | ExchangeError {
  if (token === USDC_TOKEN_INDEX) return { type: 'usdTransfer', destination, amount: formatScaled(wei, USD_DECIMALS) };
  const name = ctx.tokenName(token);
  if (name === undefined) return exchangeError('UNKNOWN_TOKEN', `token ${token} is not listed`);
  return { type: 'spotSend', destination, token: name, amount: amount(wei) };
}

/** Decodes a `sendRawAction` payload into a wire action, or the reason it is refused. */
export function decodeAction(data: Uint8Array, ctx: ActionContext): DecodedAction {
  if (data.length < 4) return { id: -1, error: exchangeError('INVALID_ACTION', `the payload has ${data.length} bytes, less than the 4 of the version and action id`) };
  const id = ((data[1] as number) << 16) | ((data[2] as number) << 8) | (data[3] as number);
  if (data[0] !== ACTION_VERSION) return { id, error: exchangeError('INVALID_ACTION', `unknown payload version ${data[0]} (only ${ACTION_VERSION} exists)`) };
  try {
    const out = translate(id, data.subarray(4), ctx);
    return 'type' in out ? { id, action: out } : { id, error: out as ExchangeError };
  } catch (err) {
    if (err instanceof Malformed) return { id, error: exchangeError('INVALID_ACTION', `malformed arguments of action ${id}: ${err.message}`) };
    throw err;
  }
}

/** One action from the EVM and what the exchange answered. */
export interface EvmActionRecord {
  /** Consensus (and EVM) block height and time (ms). */
  readonly block: number;
  readonly time: number;
  /** The EVM transaction that sent it, and the log's index in the block's logs. */
  readonly evmTxHash: string;
  readonly logIndex: number;
  readonly user: string;
  /** The action id of the payload (-1 when the payload is too short to carry one). */
  readonly actionId: number;
  /** The exchange action it became; null when it was refused before the exchange saw one. */
  readonly action: Record<string, unknown> | null;
  readonly result: TxResult;
}

/** The hash a result of the block is recorded under: keccak256(EVM tx hash || uint32 log index). */
export function evmActionHash(txHash: string, logIndex: number): string {
  const index = new Uint8Array(4);
  new DataView(index.buffer).setUint32(0, logIndex);
  return bytesToHex(keccak256(concatBytes(hexToBytes(txHash), index)));
}

/**
 * Runs the RawAction logs of an EVM block's receipts on the exchange, in log order. `txHash(i)`
 * is the hash of the block's i-th transaction. Results are appended to `results` (under
 * `evmActionHash`), events to `events`; each record goes to `log`.
 */
export function runEvmActions(
  exchange: Exchange, receipts: readonly StoredReceipt[], txHash: (i: number) => string,
  results: { hash: string; result: TxResult }[], events: ExchangeEvent[], log?: EvmActionLog,
): void {
  const { state } = exchange;
  let logIndex = 0;
  let ctx: ActionContext | null = null;
  receipts.forEach((r, i) => {
    for (const l of r.logs) {
      const index = logIndex++;
      const raw = rawActionOf(l);
      if (raw === null) continue;
      ctx ??= {
        time: state.time,
        tokenName: (t) => state.spotToken(t)?.name,
        validatorOf: (operator) => validatorAt(state.staking, operator),
      };
      const tx = txHash(i);
      const decoded = decodeAction(raw.data, ctx);
      let result: TxResult;
      if ('error' in decoded) result = { status: 'err', error: decoded.error };
      else {
        const outcome = exchange.executeFromEvm({ hash: tx, user: raw.user, action: decoded.action });
        result = outcome.result;
        for (const e of outcome.events) events.push(e);
      }
      results.push({ hash: evmActionHash(tx, index), result });
      log?.add({ block: state.height, time: state.time, evmTxHash: tx, logIndex: index, user: raw.user, actionId: decoded.id, action: 'action' in decoded ? decoded.action : null, result });
    }
  });
}

/** Records kept per user by `EvmActionLog`, and users kept (the least recently active dropped first). */
export const EVM_ACTIONS_PER_USER = 100;
export const EVM_ACTION_USERS = 1_000;

/**
 * The `evmActions` info type's source: each user's most recent actions from the EVM with their
 * results, newest last. Node-local memory, filled as blocks execute (replay at start-up included).
 */
export class EvmActionLog {
  private readonly byUser = new Map<string, EvmActionRecord[]>();

  add(r: EvmActionRecord): void {
    const list = this.byUser.get(r.user) ?? [];
    this.byUser.delete(r.user); // re-inserted last: the map's order is recency
    list.push(r);
    if (list.length > EVM_ACTIONS_PER_USER) list.splice(0, list.length - EVM_ACTIONS_PER_USER);
    this.byUser.set(r.user, list);
    if (this.byUser.size > EVM_ACTION_USERS) this.byUser.delete(this.byUser.keys().next().value as string);
  }

  of(user: string): readonly EvmActionRecord[] {
    return this.byUser.get(user.toLowerCase()) ?? [];
  }
}
