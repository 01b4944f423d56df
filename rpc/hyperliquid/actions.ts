// Hyperliquid's action vocabulary onto the state machine's: the one translation, run both where a
// request is admitted (to refuse early) and where its block executes (the signature covers the
// Hyperliquid form, so the state machine must derive what it runs from that form itself).
// Pure and deterministic: it reads nothing but the action and the request's nonce.
import { userSignedNonceField } from '../../exchange/index.ts';
import { shown } from '../request-checks.ts';

export type Translation =
  | { readonly action: Record<string, unknown> }
  | { readonly error: string };

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Copies the named fields that are present (absent and null ones stay absent). */
function pick(a: Obj, type: string, fields: readonly string[]): Obj {
  const out: Obj = { type };
  for (const f of fields) if (a[f] !== undefined && a[f] !== null) out[f] = a[f];
  return out;
}

/** Hyperliquid's token string "NAME:0x<tokenId>" (or a bare name): the name. */
function tokenName(token: unknown): string | null {
  if (typeof token !== 'string') return null;
  const colon = token.indexOf(':');
  return colon < 0 ? token : token.slice(0, colon);
}

/** The state machine's action for a dialect action, or the error a Hyperliquid client reads. */
export function svcActionOf(hl: unknown, nonce: number): Translation {
  if (!isObj(hl) || typeof hl.type !== 'string') return { error: 'Invalid action: expected an object with a type' };
  const a = hl;
  const type = a.type as string;
  // A user-signed action carries its nonce in `time` or `nonce`; it must be the request's.
  const nonceField = userSignedNonceField(type);
  if (nonceField !== null && a[nonceField] !== nonce) return { error: `Invalid nonce: action ${nonceField} ${shown(a[nonceField])} must equal the request nonce ${nonce}` };
  switch (type) {
    case 'order':
      return { action: pick(a, 'order', ['orders', 'grouping', 'builder']) };
    case 'cancel':
      return { action: pick(a, 'cancel', ['cancels']) };
    case 'cancelByCloid':
      return { action: pick(a, 'cancelByCloid', ['cancels']) };
    case 'modify':
      return { action: pick(a, 'modify', ['oid', 'order']) };
    case 'batchModify':
      return { action: pick(a, 'batchModify', ['modifies']) };
    case 'scheduleCancel':
      return { action: pick(a, 'scheduleCancel', ['time']) };
    case 'noop':
      return { action: { type: 'noop' } };
    case 'updateLeverage':
      return { action: pick(a, 'updateLeverage', ['asset', 'isCross', 'leverage']) };
    case 'updateIsolatedMargin':
      return { action: pick(a, 'updateIsolatedMargin', ['asset', 'isBuy', 'ntli']) };
    case 'createSubAccount':
      return { action: pick(a, 'createSubAccount', ['name']) };
    case 'subAccountTransfer':
      return { action: pick(a, 'subAccountTransfer', ['subAccountUser', 'isDeposit', 'usd']) };
    case 'setReferrer':
      return { action: pick(a, 'setReferrer', ['code']) };
    case 'usdSend':
      return { action: { type: 'usdTransfer', destination: a.destination, amount: a.amount } };
    case 'spotSend': {
      // USDC is one balance here (perp margin and spot alike): sending it is a USD transfer.
      const name = tokenName(a.token);
      if (name === 'USDC') return { action: { type: 'usdTransfer', destination: a.destination, amount: a.amount } };
      return { action: { type: 'spotSend', destination: a.destination, token: a.token, amount: a.amount } };
    }
    case 'withdraw3':
      return { action: pick(a, 'withdraw', ['destination', 'amount', 'chainId']) };
    case 'usdClassTransfer':
      // One USDC balance serves perps and spot, so moving between the classes changes nothing:
      // the request succeeds and uses its nonce, as a Hyperliquid client expects.
      return typeof a.amount === 'string' && typeof a.toPerp === 'boolean' ? { action: { type: 'noop' } } : { error: 'Invalid usdClassTransfer: expected amount (string) and toPerp (bool)' };
    case 'approveAgent':
      return { action: { type: 'approveAgent', agentAddress: typeof a.agentAddress === 'string' ? a.agentAddress.toLowerCase() : a.agentAddress, agentName: a.agentName ?? '', nonce: a.nonce } };
    case 'approveBuilderFee':
      return { action: { type: 'approveBuilderFee', maxFeeRate: a.maxFeeRate, builder: typeof a.builder === 'string' ? a.builder.toLowerCase() : a.builder, nonce: a.nonce } };
    case 'cDeposit':
    case 'cWithdraw':
      return { action: { type, wei: a.wei } };
    case 'tokenDelegate':
      return { action: pick(a, 'tokenDelegate', ['validator', 'wei', 'isUndelegate']) };
    default:
      return { error: `Action ${type} is not supported on this chain` };
  }
}

/** The answer's `response` for a dialect action whose svc answer is `response` (Hyperliquid's per-type shapes). */
export function hyperliquidResponse(hlType: string, response: unknown): unknown {
  switch (hlType) {
    case 'order':
    case 'cancel':
    case 'cancelByCloid':
    case 'batchModify':
    case 'createSubAccount':
      return response;
    default:
      // Transfers, withdrawals, leverage, agents, modify...: Hyperliquid answers `{type: "default"}`.
      return { type: 'default' };
  }
}
