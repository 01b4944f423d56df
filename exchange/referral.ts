// Hyperliquid's `referral` info answer from what state holds. Referral codes are not built yet:
// nobody is referred, no rewards accrue, and an account that has traded enough to refer others
// is at stage `needToCreateCode` (see docs/api.md, "Referrals").
import { formatScaled, type Address } from '../primitives/index.ts';
import { USD_DECIMALS } from './config.ts';
import type { ExchangeState } from './state.ts';

/** Notional an account must have traded before it may refer others: $10,000, as on Hyperliquid. */
export const REFERRER_MIN_VOLUME = 10_000n * 10n ** BigInt(USD_DECIMALS);

export type ReferrerState =
  | { stage: 'ready'; data: { code: string; referralStates: unknown[] } }
  | { stage: 'needToCreateCode' }
  | { stage: 'needToTrade'; data: { required: string } };

export interface ReferralView {
  referredBy: { referrer: Address; code: string } | null;
  cumVlm: string;
  unclaimedRewards: string;
  claimedRewards: string;
  builderRewards: string;
  referrerState: ReferrerState;
  rewardHistory: { earned: string; vlm: string; referralVlm: string; time: number }[];
}

/** Any address: an unknown one has traded nothing and needs to trade. */
export function referral(state: ExchangeState, user: Address): ReferralView {
  const cumVlm = state.accounts.get(user)?.cumVlm ?? 0n;
  const usd = (v: bigint) => formatScaled(v, USD_DECIMALS);
  return {
    referredBy: null,
    cumVlm: usd(cumVlm),
    unclaimedRewards: '0',
    claimedRewards: '0',
    builderRewards: '0',
    referrerState: cumVlm >= REFERRER_MIN_VOLUME ? { stage: 'needToCreateCode' } : { stage: 'needToTrade', data: { required: usd(REFERRER_MIN_VOLUME) } },
    rewardHistory: [],
  };
}
