// Referrals in Hyperliquid's spirit: an account that has traded enough creates a code
// (`registerReferrer`), a newer account joins it (`setReferrer`), and the `referral` info type
// reads both. Fee discounts and reward shares are not built yet: every reward is 0 (docs/api.md).
import { formatScaled, type Address } from '../primitives/index.ts';
import type { Account } from './account.ts';
import type { RegisterReferrerAction, SetReferrerAction } from './actions.ts';
import { USD_DECIMALS } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import type { ExchangeState } from './state.ts';

/** Notional an account must have traded before it may create a code: $10,000, as on Hyperliquid. */
export const REFERRER_MIN_VOLUME = 10_000n * 10n ** BigInt(USD_DECIMALS);

export interface Referred {
  readonly referrer: Address;
  readonly code: string;
  /** Block time it joined, ms. */
  readonly time: number;
}

/** Codes and who joined whom; consensus state (snapshotted when not empty). */
export class ReferralState {
  /** Code (upper case) -> its owner, and the reverse. */
  readonly owners = new Map<string, Address>();
  readonly codeOf = new Map<Address, string>();
  /** Referred account -> its referrer. */
  readonly referredBy = new Map<Address, Referred>();

  addCode(code: string, owner: Address): void {
    this.owners.set(code, owner);
    this.codeOf.set(owner, code);
  }

  get empty(): boolean {
    return this.owners.size === 0 && this.referredBy.size === 0;
  }
}

const usd = (v: bigint) => formatScaled(v, USD_DECIMALS);
const refuse = (message: string) => exchangeError('INVALID_ACTION', message);

export function registerReferrer(state: ExchangeState, acct: Account, action: RegisterReferrerAction): ExchangeError | null {
  const r = state.referrals;
  if (state.masterOf.has(acct.address)) return refuse('a sub-account cannot create a referral code');
  const own = r.codeOf.get(acct.address);
  if (own !== undefined) return refuse(`the account already has referral code ${own}`);
  if (acct.cumVlm < REFERRER_MIN_VOLUME) {
    return refuse(`creating a referral code needs ${usd(REFERRER_MIN_VOLUME)} USD traded; the account traded ${usd(acct.cumVlm)}`);
  }
  if (r.owners.has(action.code)) return refuse(`referral code ${action.code} is taken`);
  r.addCode(action.code, acct.address);
  return null;
}

/**
 * Once per account, before it has traded the volume that lets it refer others (so a referrer is
 * never referred after it has a code, and no chain of referrals loops).
 */
export function setReferrer(state: ExchangeState, acct: Account, action: SetReferrerAction): ExchangeError | null {
  const r = state.referrals;
  if (state.masterOf.has(acct.address)) return refuse('a sub-account cannot set a referrer');
  const set = r.referredBy.get(acct.address);
  if (set !== undefined) return refuse(`a referrer is already set: code ${set.code}`);
  const referrer = r.owners.get(action.code);
  if (referrer === undefined) return refuse(`unknown referral code ${action.code}`);
  if (referrer === acct.address) return refuse('an account cannot use its own referral code');
  if (acct.cumVlm >= REFERRER_MIN_VOLUME) {
    return refuse(`a referrer can only be set before the account has traded ${usd(REFERRER_MIN_VOLUME)} USD`);
  }
  r.referredBy.set(acct.address, { referrer, code: action.code, time: state.time });
  return null;
}

export interface ReferralStateView {
  cumVlm: string;
  cumRewardedFeesSinceReferred: string;
  cumFeesRewardedToReferrer: string;
  timeJoined: number;
  user: Address;
}

export type ReferrerState =
  | { stage: 'ready'; data: { code: string; referralStates: ReferralStateView[] } }
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

/** Hyperliquid's `referral` answer for any address (an unknown one has traded nothing). */
export function referral(state: ExchangeState, user: Address): ReferralView {
  const r = state.referrals;
  const cumVlm = state.accounts.get(user)?.cumVlm ?? 0n;
  const by = r.referredBy.get(user);
  const code = r.codeOf.get(user);
  let referrerState: ReferrerState;
  if (code !== undefined) referrerState = { stage: 'ready', data: { code, referralStates: referralStates(state, user) } };
  else if (cumVlm >= REFERRER_MIN_VOLUME) referrerState = { stage: 'needToCreateCode' };
  else referrerState = { stage: 'needToTrade', data: { required: usd(REFERRER_MIN_VOLUME) } };
  return {
    referredBy: by === undefined ? null : { referrer: by.referrer, code: by.code },
    cumVlm: usd(cumVlm),
    unclaimedRewards: '0',
    claimedRewards: '0',
    builderRewards: '0',
    referrerState,
    rewardHistory: [],
  };
}

/** The accounts a referrer brought in, in the order they joined (then by address). */
function referralStates(state: ExchangeState, referrer: Address): ReferralStateView[] {
  const out: ReferralStateView[] = [];
  for (const [user, by] of state.referrals.referredBy) {
    if (by.referrer !== referrer) continue;
    out.push({
      cumVlm: usd(state.accounts.get(user)?.cumVlm ?? 0n),
      cumRewardedFeesSinceReferred: '0',
      cumFeesRewardedToReferrer: '0',
      timeJoined: by.time,
      user,
    });
  }
  return out.sort((a, b) => a.timeJoined - b.timeJoined || (a.user < b.user ? -1 : a.user > b.user ? 1 : 0));
}
