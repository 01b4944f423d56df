// Typed exchange actions parsed from their wire JSON. The same parser serves rpc/ (a failure is a
// 400 naming the field) and the state machine (a block is untrusted input: a failure is a result).
import { formatScaled, isAddress, isHex, parseScaled } from '../primitives/index.ts';

export type Tif = 'Gtc' | 'Ioc' | 'Alo';
export type Grouping = 'na' | 'normalTpsl' | 'positionTpsl';

export interface TriggerSpec {
  readonly isMarket: boolean;
  readonly triggerPx: string;
  readonly tpsl: 'tp' | 'sl';
}

export interface OrderRequest {
  readonly asset: number;
  readonly isBuy: boolean;
  readonly px: string;
  readonly sz: string;
  readonly reduceOnly: boolean;
  /** Set for limit orders. */
  readonly tif: Tif | null;
  /** Set for trigger orders. */
  readonly trigger: TriggerSpec | null;
  /** Lowercase 0x + 32 hex digits, or null. */
  readonly cloid: string | null;
}

/** Hyperliquid's builder code of an order action: `b` receives `f` tenths of a basis point of each fill's notional. */
export interface OrderBuilder {
  /** Lowercase address. */
  readonly b: string;
  /** Tenths of a basis point (10 = 0.01%). */
  readonly f: number;
}

export interface OrderAction {
  readonly type: 'order';
  readonly orders: readonly OrderRequest[];
  readonly grouping: Grouping;
  /** Null when the action names no builder. */
  readonly builder: OrderBuilder | null;
}

export interface CancelAction {
  readonly type: 'cancel';
  readonly cancels: readonly { readonly asset: number; readonly oid: number }[];
}

export interface CancelByCloidAction {
  readonly type: 'cancelByCloid';
  readonly cancels: readonly { readonly asset: number; readonly cloid: string }[];
}

export interface ModifyAction {
  readonly type: 'modify';
  /** The order to change: its oid, or its client order id. */
  readonly oid: number | string;
  readonly order: OrderRequest;
}

/** Hyperliquid's `batchModify`: each modify as `modify`, independently, in order. */
export interface BatchModifyAction {
  readonly type: 'batchModify';
  readonly modifies: readonly { readonly oid: number | string; readonly order: OrderRequest }[];
}

/** Hyperliquid's `noop`: uses the nonce and nothing else. */
export interface NoopAction {
  readonly type: 'noop';
}

/** Hyperliquid's dead man's switch: cancel every open order at `time` (ms), or clear (null). */
export interface ScheduleCancelAction {
  readonly type: 'scheduleCancel';
  readonly time: number | null;
}

/** Hyperliquid's `approveBuilderFee`: the most `builder` may charge on the account's orders. */
export interface ApproveBuilderFeeAction {
  readonly type: 'approveBuilderFee';
  /** Lowercase address. */
  readonly builder: string;
  /** The rate in tenths of a basis point (from the wire's percent string, "0.01%" = 10); 0 revokes. */
  readonly maxFeeRate: number;
  /** Must equal the request's nonce. */
  readonly nonce: number;
}

export interface UpdateLeverageAction {
  readonly type: 'updateLeverage';
  readonly asset: number;
  readonly isCross: boolean;
  readonly leverage: number;
}

/** Hyperliquid's action: add (ntli > 0) or remove margin of an isolated position. */
export interface UpdateIsolatedMarginAction {
  readonly type: 'updateIsolatedMargin';
  readonly asset: number;
  /** Required for Hyperliquid clients; one-way positions ignore it. */
  readonly isBuy: boolean;
  /** Micro-USDC (10^-6), signed. */
  readonly ntli: number;
}

export interface ApproveAgentAction {
  readonly type: 'approveAgent';
  /** Lowercase address; the zero address revokes the agent registered under `agentName`. */
  readonly agentAddress: string;
  /** "" for the unnamed agent. */
  readonly agentName: string;
  /** Must equal the request's nonce. */
  readonly nonce: number;
}

export interface UsdTransferAction {
  readonly type: 'usdTransfer';
  readonly destination: string;
  /** Decimal USDC. */
  readonly amount: string;
}

export interface WithdrawAction {
  readonly type: 'withdraw';
  /** As sent: checked at execution (`Invalid destination`), as the spec's bridge errors say. */
  readonly destination: string;
  /** Decimal USDC, the fee included; at most 6 decimals (the bridged token's). */
  readonly amount: string;
  /** The destination chain (an addition to the spec's fields); null: the default bridge chain. */
  readonly chainId: number | null;
}

export interface CreateSubAccountAction {
  readonly type: 'createSubAccount';
  readonly name: string;
}

export interface SubAccountTransferAction {
  readonly type: 'subAccountTransfer';
  readonly subAccountUser: string;
  /** true: master -> sub-account; false: sub-account -> master. */
  readonly isDeposit: boolean;
  /** USDC in micro-units (10^-6), as Hyperliquid's `usd`. */
  readonly usd: number;
}

/** `spotDeploy` of a token (the spec's standard 1). Stateless rules are checked by the parser. */
export interface SpotDeployTokenAction {
  readonly type: 'spotDeploy';
  readonly deployType: 'token';
  /** 1 to 10 of A-Z and 0-9. */
  readonly tokenName: string;
  /** 0 to 8. */
  readonly szDecimals: number;
  /** 0 to 18: the decimals of the token on the EVM (the linked ERC-20's `decimals()`). */
  readonly weiDecimals: number;
  /** Credited to the deployer, in 10^-8 token units (at most szDecimals decimals); 0 when absent. */
  readonly initialSupply: bigint;
  /** Lowercase address of the ERC-20 to link, or null. */
  readonly evmContract: string | null;
}

/** `spotDeploy` of a pair (the spec's standard 2). */
export interface SpotDeployPairAction {
  readonly type: 'spotDeploy';
  readonly deployType: 'pair';
  readonly baseToken: number;
  readonly quoteToken: number;
  /** Reference price as sent (checked against the base token's price decimals at execution), or null. */
  readonly initialPrice: string | null;
}

export type SpotDeployAction = SpotDeployTokenAction | SpotDeployPairAction;

/** Hyperliquid's `spotSend`: a spot token to another address, or to its system address (to the EVM). */
export interface SpotSendAction {
  readonly type: 'spotSend';
  /** Lowercase address. */
  readonly destination: string;
  /** The token's name, or Hyperliquid's `NAME:0x<id>`. */
  readonly token: string;
  /** Decimal amount of the token, at most its szDecimals decimals. */
  readonly amount: string;
}

/** Hyperliquid's `cDeposit`: spot staking token -> staking balance. */
export interface CDepositAction {
  readonly type: 'cDeposit';
  /** Token units of 10^-8, a positive safe integer. */
  readonly wei: number;
}

/** Hyperliquid's `cWithdraw`: staking balance -> spot, after the unbonding delay. */
export interface CWithdrawAction {
  readonly type: 'cWithdraw';
  readonly wei: number;
}

/** Hyperliquid's `tokenDelegate`. */
export interface TokenDelegateAction {
  readonly type: 'tokenDelegate';
  /** The validator's ed25519 consensus public key, lowercase hex (64 digits, a leading 0x dropped). */
  readonly validator: string;
  readonly wei: number;
  readonly isUndelegate: boolean;
}

/** Links the signing account (operator) to an ed25519 consensus key; `signature` proves the key. */
export interface RegisterValidatorAction {
  readonly type: 'registerValidator';
  readonly pubKey: string;
  /** Hex ed25519 signature of the key over `registrationBytes(chainId, operator, pubKey)`. */
  readonly signature: string;
  /** Lowercase secp256k1 address the bridge accepts withdrawal signatures from, or null. */
  readonly bridgeSigner: string | null;
  readonly name: string;
}

/** Hyperliquid's `registerReferrer`: creates the account's referral code. */
export interface RegisterReferrerAction {
  readonly type: 'registerReferrer';
  /** Upper case, 1 to 20 of A-Z and 0-9. */
  readonly code: string;
}

/** Hyperliquid's `setReferrer`: the account joins the referrer whose code it names. */
export interface SetReferrerAction {
  readonly type: 'setReferrer';
  readonly code: string;
}

export type Action =
  | OrderAction
  | CancelAction
  | CancelByCloidAction
  | ModifyAction
  | BatchModifyAction
  | NoopAction
  | ScheduleCancelAction
  | ApproveBuilderFeeAction
  | UpdateLeverageAction
  | UpdateIsolatedMarginAction
  | ApproveAgentAction
  | UsdTransferAction
  | WithdrawAction
  | CreateSubAccountAction
  | SubAccountTransferAction
  | SpotDeployAction
  | SpotSendAction
  | CDepositAction
  | CWithdrawAction
  | TokenDelegateAction
  | RegisterValidatorAction
  | RegisterReferrerAction
  | SetReferrerAction;

/** Referral codes: 1 to 20 letters or digits, case-insensitive (kept in upper case). */
export const REFERRAL_CODE_RE = /^[A-Z0-9]{1,20}$/;

/** Validator names are short labels. */
export const MAX_VALIDATOR_NAME = 32;

/** Agent names are short labels. */
export const MAX_AGENT_NAME = 32;

/** Action types of the spec that this node does not execute yet. */
export const PLANNED_ACTIONS: ReadonlySet<string> = new Set<string>();

/** Token names: 1 to 10 uppercase letters or digits (the spec's deployment limit). */
export const TOKEN_NAME_RE = /^[A-Z0-9]{1,10}$/;
/** Largest token supply in 10^-8 units: what a uint64 carries (the spotBalance precompile's `total`). */
export const MAX_TOKEN_SUPPLY = 2n ** 64n - 1n;
const TOKEN_UNITS_DECIMALS = 8;

/** Orders or cancels in one action at most; bounds the work of one transaction. */
export const MAX_BATCH = 1000;

/** Builder fees in tenths of a basis point: at most 0.1% on perps and 1% on spot (Hyperliquid's caps). */
export const MAX_PERP_BUILDER_FEE = 100;
export const MAX_SPOT_BUILDER_FEE = 1000;

/** A percent string ("0.01%", "0.1%", "0%") as tenths of a basis point (0.001% each); null when not one. */
export function parseFeeRate(text: string): number | null {
  const m = /^(\d{1,3})(?:\.(\d{1,3}))?%$/.exec(text);
  if (m === null) return null;
  const frac = (m[2] ?? '').padEnd(3, '0');
  return Number(m[1]) * 1000 + Number(frac);
}

export interface ActionParseError {
  /** Path of the offending field, e.g. `action.orders[0].p`. */
  readonly field: string;
  readonly missing: boolean;
  readonly message: string;
}

class Fail {
  constructor(readonly error: ActionParseError) {}
}

function missing(field: string): never {
  throw new Fail({ field, missing: true, message: `Missing field: ${field}` });
}

function invalid(field: string, expected: string): never {
  throw new Fail({ field, missing: false, message: `Invalid field ${field}: expected ${expected}` });
}

function get(obj: Record<string, unknown>, key: string, path: string): unknown {
  const v = obj[key];
  if (v === undefined || v === null) missing(`${path}.${key}`);
  return v;
}

function object(v: unknown, field: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) invalid(field, 'an object');
  return v as Record<string, unknown>;
}

function int(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) invalid(field, 'a non-negative integer');
  return v;
}

function signedInt(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) invalid(field, 'an integer');
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') invalid(field, 'a boolean');
  return v;
}

function str(v: unknown, field: string): string {
  if (typeof v !== 'string') invalid(field, 'a string');
  return v;
}

function list(v: unknown, field: string): unknown[] {
  if (!Array.isArray(v)) invalid(field, 'an array');
  if (v.length === 0) invalid(field, 'a non-empty array');
  if (v.length > MAX_BATCH) invalid(field, `at most ${MAX_BATCH} elements`);
  return v;
}

function address(v: unknown, field: string): string {
  if (!isAddress(v)) invalid(field, 'a 0x-prefixed 20-byte hex address');
  return v.toLowerCase();
}

/** An ed25519 public key (or signature, `bytes` long) as lowercase hex without 0x; a 0x prefix is accepted. */
function edHex(v: unknown, field: string, bytes: number): string {
  const text = typeof v === 'string' ? v.toLowerCase().replace(/^0x/, '') : '';
  if (text.length !== bytes * 2 || !/^[0-9a-f]+$/.test(text)) invalid(field, `${bytes} bytes of hex`);
  return text;
}

function positiveInt(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) invalid(field, 'a positive integer');
  return v;
}

function cloid(v: unknown, field: string): string {
  if (!isHex(v, 16)) invalid(field, 'a 16-byte hex string (0x + 32 hex digits)');
  return v.toLowerCase();
}

/**
 * An order's path for messages, `base` or `base[index]` (index < 0: none). Built only when a
 * message needs it: the paths of valid orders are never made (one batch may hold 1,000 orders).
 */
function orderPath(base: string, index: number): string {
  return index < 0 ? base : `${base}[${index}]`;
}

/** A field of an order, required, not yet checked; `key` is the field's wire name. */
function orderField(o: Record<string, unknown>, key: string, base: string, index: number): unknown {
  const v = o[key];
  if (v === undefined || v === null) missing(`${orderPath(base, index)}.${key}`);
  return v;
}

function orderBool(o: Record<string, unknown>, key: string, base: string, index: number): boolean {
  const v = orderField(o, key, base, index);
  if (typeof v !== 'boolean') invalid(`${orderPath(base, index)}.${key}`, 'a boolean');
  return v;
}

function orderStr(o: Record<string, unknown>, key: string, base: string, index: number): string {
  const v = orderField(o, key, base, index);
  if (typeof v !== 'string') invalid(`${orderPath(base, index)}.${key}`, 'a string');
  return v;
}

/** The order at `base[index]` (or `base` when index < 0). */
function parseOrder(v: unknown, base: string, index: number): OrderRequest {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) invalid(orderPath(base, index), 'an object');
  const o = v as Record<string, unknown>;
  const a = orderField(o, 'a', base, index);
  if (typeof a !== 'number' || !Number.isSafeInteger(a) || a < 0) invalid(`${orderPath(base, index)}.a`, 'a non-negative integer');
  const isBuy = orderBool(o, 'b', base, index);
  const px = orderStr(o, 'p', base, index);
  const sz = orderStr(o, 's', base, index);
  const reduceOnly = orderBool(o, 'r', base, index);
  const tv = orderField(o, 't', base, index);
  if (typeof tv !== 'object' || tv === null || Array.isArray(tv)) invalid(`${orderPath(base, index)}.t`, 'an object');
  const t = tv as Record<string, unknown>;
  let tif: Tif | null = null;
  let trigger: TriggerSpec | null = null;
  if (t.limit !== undefined) {
    const lv = t.limit;
    if (typeof lv !== 'object' || lv === null || Array.isArray(lv)) invalid(`${orderPath(base, index)}.t.limit`, 'an object');
    const value = (lv as Record<string, unknown>).tif;
    if (value === undefined || value === null) missing(`${orderPath(base, index)}.t.limit.tif`);
    if (value !== 'Gtc' && value !== 'Ioc' && value !== 'Alo') invalid(`${orderPath(base, index)}.t.limit.tif`, 'Gtc, Ioc or Alo');
    tif = value;
  } else if (t.trigger !== undefined) {
    const tp = `${orderPath(base, index)}.t.trigger`;
    const tr = object(t.trigger, tp);
    const isMarket = bool(get(tr, 'isMarket', tp), `${tp}.isMarket`);
    const triggerPx = str(get(tr, 'triggerPx', tp), `${tp}.triggerPx`);
    const tpsl = get(tr, 'tpsl', tp);
    if (tpsl !== 'tp' && tpsl !== 'sl') invalid(`${tp}.tpsl`, 'tp or sl');
    trigger = { isMarket, triggerPx, tpsl };
  } else {
    missing(`${orderPath(base, index)}.t.limit`);
  }
  const c = o.c === undefined || o.c === null ? null : cloid(o.c, `${orderPath(base, index)}.c`);
  return { asset: a, isBuy, px, sz, reduceOnly, tif, trigger, cloid: c };
}

function parseBuilder(v: unknown): OrderBuilder {
  const o = object(v, 'action.builder');
  const f = int(get(o, 'f', 'action.builder'), 'action.builder.f');
  if (f > MAX_SPOT_BUILDER_FEE) invalid('action.builder.f', `at most ${MAX_SPOT_BUILDER_FEE} (tenths of a basis point)`);
  return { b: address(get(o, 'b', 'action.builder'), 'action.builder.b'), f };
}

function parseGrouping(v: unknown): Grouping {
  if (v === undefined || v === null) return 'na';
  if (v === 'na' || v === 'normalTpsl' || v === 'positionTpsl') return v;
  invalid('action.grouping', 'na, normalTpsl or positionTpsl');
}

function parseByType(a: Record<string, unknown>, type: string): Action {
  switch (type) {
    case 'order': {
      const orders = list(get(a, 'orders', 'action'), 'action.orders');
      return {
        type,
        orders: orders.map((o, i) => parseOrder(o, 'action.orders', i)),
        grouping: parseGrouping(a.grouping),
        builder: a.builder === undefined || a.builder === null ? null : parseBuilder(a.builder),
      };
    }
    case 'batchModify': {
      const modifies = list(get(a, 'modifies', 'action'), 'action.modifies').map((m, i) => {
        const p = `action.modifies[${i}]`;
        const o = object(m, p);
        const raw = get(o, 'oid', p);
        const oid = typeof raw === 'string' ? cloid(raw, `${p}.oid`) : int(raw, `${p}.oid`);
        return { oid, order: parseOrder(get(o, 'order', p), `${p}.order`, -1) };
      });
      return { type, modifies };
    }
    case 'noop':
      return { type };
    case 'scheduleCancel':
      return { type, time: a.time === undefined || a.time === null ? null : int(a.time, 'action.time') };
    case 'approveBuilderFee': {
      const rate = parseFeeRate(str(get(a, 'maxFeeRate', 'action'), 'action.maxFeeRate'));
      if (rate === null || rate > MAX_SPOT_BUILDER_FEE) invalid('action.maxFeeRate', 'a percent string from "0%" to "1%" with at most 3 decimals, e.g. "0.01%"');
      return {
        type,
        builder: address(get(a, 'builder', 'action'), 'action.builder'),
        maxFeeRate: rate,
        nonce: int(get(a, 'nonce', 'action'), 'action.nonce'),
      };
    }
    case 'cancel': {
      const cancels = list(get(a, 'cancels', 'action'), 'action.cancels').map((c, i) => {
        const p = `action.cancels[${i}]`;
        const o = object(c, p);
        return { asset: int(get(o, 'a', p), `${p}.a`), oid: int(get(o, 'o', p), `${p}.o`) };
      });
      return { type, cancels };
    }
    case 'cancelByCloid': {
      const cancels = list(get(a, 'cancels', 'action'), 'action.cancels').map((c, i) => {
        const p = `action.cancels[${i}]`;
        const o = object(c, p);
        return { asset: int(get(o, 'asset', p), `${p}.asset`), cloid: cloid(get(o, 'cloid', p), `${p}.cloid`) };
      });
      return { type, cancels };
    }
    case 'modify': {
      const raw = get(a, 'oid', 'action');
      const oid = typeof raw === 'string' ? cloid(raw, 'action.oid') : int(raw, 'action.oid');
      return { type, oid, order: parseOrder(get(a, 'order', 'action'), 'action.order', -1) };
    }
    case 'approveAgent': {
      const agentAddress = address(get(a, 'agentAddress', 'action'), 'action.agentAddress');
      const name = a.agentName === undefined || a.agentName === null ? '' : str(a.agentName, 'action.agentName');
      if (name.length > MAX_AGENT_NAME) invalid('action.agentName', `at most ${MAX_AGENT_NAME} characters`);
      return { type, agentAddress, agentName: name, nonce: int(get(a, 'nonce', 'action'), 'action.nonce') };
    }
    case 'usdTransfer':
      return {
        type,
        destination: address(get(a, 'destination', 'action'), 'action.destination'),
        amount: str(get(a, 'amount', 'action'), 'action.amount'),
      };
    case 'withdraw':
      return {
        type,
        destination: str(get(a, 'destination', 'action'), 'action.destination'),
        amount: str(get(a, 'amount', 'action'), 'action.amount'),
        chainId: a.chainId === undefined || a.chainId === null ? null : int(a.chainId, 'action.chainId'),
      };
    case 'createSubAccount': {
      const name = str(get(a, 'name', 'action'), 'action.name');
      if (name.length < 1 || name.length > 16) invalid('action.name', '1 to 16 characters');
      return { type, name };
    }
    case 'subAccountTransfer':
      return {
        type,
        subAccountUser: address(get(a, 'subAccountUser', 'action'), 'action.subAccountUser'),
        isDeposit: bool(get(a, 'isDeposit', 'action'), 'action.isDeposit'),
        usd: int(get(a, 'usd', 'action'), 'action.usd'),
      };
    case 'updateLeverage':
      return {
        type,
        asset: int(get(a, 'asset', 'action'), 'action.asset'),
        isCross: bool(get(a, 'isCross', 'action'), 'action.isCross'),
        leverage: int(get(a, 'leverage', 'action'), 'action.leverage'),
      };
    case 'updateIsolatedMargin':
      return {
        type,
        asset: int(get(a, 'asset', 'action'), 'action.asset'),
        isBuy: bool(get(a, 'isBuy', 'action'), 'action.isBuy'),
        ntli: signedInt(get(a, 'ntli', 'action'), 'action.ntli'),
      };
    case 'spotDeploy':
      return parseSpotDeploy(a);
    case 'spotSend':
      return {
        type,
        destination: address(get(a, 'destination', 'action'), 'action.destination'),
        token: str(get(a, 'token', 'action'), 'action.token'),
        amount: str(get(a, 'amount', 'action'), 'action.amount'),
      };
    case 'cDeposit':
    case 'cWithdraw':
      return { type, wei: positiveInt(get(a, 'wei', 'action'), 'action.wei') };
    case 'tokenDelegate':
      return {
        type,
        validator: edHex(get(a, 'validator', 'action'), 'action.validator', 32),
        wei: positiveInt(get(a, 'wei', 'action'), 'action.wei'),
        isUndelegate: bool(get(a, 'isUndelegate', 'action'), 'action.isUndelegate'),
      };
    case 'registerValidator': {
      const name = a.name === undefined || a.name === null ? '' : str(a.name, 'action.name');
      if (name.length > MAX_VALIDATOR_NAME) invalid('action.name', `at most ${MAX_VALIDATOR_NAME} characters`);
      return {
        type,
        pubKey: edHex(get(a, 'pubKey', 'action'), 'action.pubKey', 32),
        signature: edHex(get(a, 'signature', 'action'), 'action.signature', 64),
        bridgeSigner: a.bridgeSigner === undefined || a.bridgeSigner === null ? null : address(a.bridgeSigner, 'action.bridgeSigner'),
        name,
      };
    }
    case 'registerReferrer':
    case 'setReferrer': {
      const code = str(get(a, 'code', 'action'), 'action.code').toUpperCase();
      if (!REFERRAL_CODE_RE.test(code)) invalid('action.code', '1 to 20 letters or digits (A-Z, 0-9)');
      return { type, code };
    }
    default:
      if (PLANNED_ACTIONS.has(type)) {
        throw new Fail({ field: 'action.type', missing: false, message: `Action type ${type} is not available on this node yet` });
      }
      throw new Fail({ field: 'action.type', missing: false, message: `Unknown action type: ${type}` });
  }
}

/** Stateless `spotDeploy` rules; the stateful ones (unique name, registered tokens, fee) are in spot-deploy.ts. */
function parseSpotDeploy(a: Record<string, unknown>): SpotDeployAction {
  const deployType = get(a, 'deployType', 'action');
  if (deployType === 'token') {
    const tokenName = str(get(a, 'tokenName', 'action'), 'action.tokenName');
    if (!TOKEN_NAME_RE.test(tokenName)) invalid('action.tokenName', '1 to 10 uppercase letters or digits (A-Z, 0-9)');
    const szDecimals = int(get(a, 'szDecimals', 'action'), 'action.szDecimals');
    if (szDecimals > 8) invalid('action.szDecimals', 'an integer from 0 to 8');
    const weiDecimals = int(get(a, 'weiDecimals', 'action'), 'action.weiDecimals');
    if (weiDecimals > 18) invalid('action.weiDecimals', 'an integer from 0 to 18');
    let initialSupply = 0n;
    if (a.initialSupply !== undefined && a.initialSupply !== null) {
      const text = str(a.initialSupply, 'action.initialSupply');
      const lot = 10n ** BigInt(TOKEN_UNITS_DECIMALS - szDecimals);
      const units = parseScaled(text, szDecimals);
      const scaled = units === null ? null : units * lot;
      if (scaled === null || scaled < 0n || scaled > MAX_TOKEN_SUPPLY) {
        invalid('action.initialSupply', `a non-negative decimal with at most szDecimals (${szDecimals}) decimals, at most ${formatScaled(MAX_TOKEN_SUPPLY / lot, szDecimals)}`);
      }
      initialSupply = scaled;
    }
    let evmContract: string | null = null;
    if (a.evmContract !== undefined && a.evmContract !== null) {
      evmContract = address(a.evmContract, 'action.evmContract');
      if (/^0x0{40}$/.test(evmContract)) invalid('action.evmContract', 'a contract address, not the zero address');
    }
    return { type: 'spotDeploy', deployType, tokenName, szDecimals, weiDecimals, initialSupply, evmContract };
  }
  if (deployType === 'pair') {
    const baseToken = int(get(a, 'baseToken', 'action'), 'action.baseToken');
    const quoteToken = int(get(a, 'quoteToken', 'action'), 'action.quoteToken');
    if (quoteToken === baseToken) invalid('action.quoteToken', 'a token other than baseToken');
    const initialPrice = a.initialPrice === undefined || a.initialPrice === null ? null : str(a.initialPrice, 'action.initialPrice');
    return { type: 'spotDeploy', deployType, baseToken, quoteToken, initialPrice };
  }
  invalid('action.deployType', 'token or pair');
}

export function parseAction(v: unknown): Action | ActionParseError {
  try {
    if (v === undefined || v === null) missing('action');
    const a = object(v, 'action');
    const type = str(get(a, 'type', 'action'), 'action.type');
    return parseByType(a, type);
  } catch (e) {
    if (e instanceof Fail) return e.error;
    throw e;
  }
}

export function isActionParseError(v: Action | ActionParseError): v is ActionParseError {
  return 'field' in v;
}
