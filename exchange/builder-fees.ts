// Builder codes (Hyperliquid's): an account approves a builder up to a rate (`approveBuilderFee`),
// an order action may then name that builder with a fee (`builder: {b, f}`), and every fill of
// such an order pays the builder f tenths of a basis point of its notional, on top of the
// exchange's fee, in the market's quote token (USDC on perps).
import type { Address } from '../primitives/index.ts';
import type { Account } from './account.ts';
import { MAX_PERP_BUILDER_FEE, type ApproveBuilderFeeAction, type OrderBuilder } from './actions.ts';
import { USDC_TOKEN_INDEX } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { feeOf } from './fees.ts';
import type { Market } from './markets.ts';
import type { ExchangeState } from './state.ts';

/** The rate `user` approved for `builder`, in tenths of a basis point; 0 when none. */
export function maxBuilderFee(state: ExchangeState, user: Address, builder: Address): number {
  if (state.builderApprovals.size === 0) return 0;
  return state.builderApprovals.get(user.toLowerCase())?.get(builder.toLowerCase()) ?? 0;
}

export function approveBuilderFee(state: ExchangeState, acct: Account, action: ApproveBuilderFeeAction, nonce: number): ExchangeError | null {
  if (action.nonce !== nonce) return exchangeError('INVALID_ACTION', 'approveBuilderFee nonce must equal the request nonce');
  let mine = state.builderApprovals.get(acct.address);
  if (action.maxFeeRate === 0) {
    mine?.delete(action.builder);
    if (mine?.size === 0) state.builderApprovals.delete(acct.address);
    return null;
  }
  if (mine === undefined) state.builderApprovals.set(acct.address, (mine = new Map()));
  mine.set(action.builder, action.maxFeeRate);
  return null;
}

/** Why an order action's builder is refused for the whole batch (its fee above the approval), or null. */
export function builderRefusal(state: ExchangeState, acct: Account, builder: OrderBuilder): ExchangeError | null {
  return builder.f > maxBuilderFee(state, acct.address, builder.b) ? exchangeError('BUILDER_FEE_NOT_APPROVED') : null;
}

/** Why one order of the batch may not carry the builder's fee on its market (perps: at most 0.1%), or null. */
export function builderMarketRefusal(m: Market, builder: OrderBuilder): ExchangeError | null {
  return m.kind === 'perp' && builder.f > MAX_PERP_BUILDER_FEE ? exchangeError('INVALID_ACTION', 'builder fee above 0.1% on a perpetual market') : null;
}

/** The builder fee of a fill of notional `ntl`: rounded up to the unit, as the exchange's fees. */
export function builderFeeOf(ntl: bigint, builder: OrderBuilder): bigint {
  return feeOf(ntl, builder.f * 10); // tenths of a basis point -> parts per million
}

/**
 * Moves the builder fee of one fill from `payer` to the builder (its account activated when
 * missing), in `token`; the fee counts in both accounts' realized PnL. Returns the fee.
 */
export function chargeBuilder(state: ExchangeState, m: Market, payer: Account, builder: OrderBuilder, ntl: bigint): bigint {
  const fee = builderFeeOf(ntl, builder);
  if (fee === 0n) return 0n;
  const receiver = state.activate(builder.b);
  if (m.kind === 'perp') {
    payer.usdc -= fee;
    payer.perpRealized -= fee;
    receiver.usdc += fee;
    receiver.perpRealized += fee;
    return fee;
  }
  payer.credit(m.quote.index, -fee);
  receiver.credit(m.quote.index, fee);
  if (m.quote.index === USDC_TOKEN_INDEX) {
    payer.spotFees += fee;
    receiver.spotFees -= fee;
  }
  return fee;
}
