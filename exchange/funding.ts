// Funding: the premium of the book against the oracle is sampled every few seconds; at the end
// of each interval (an hour) positions pay or receive size * oracle * rate, where the 8-hour
// rate is avg premium + clamp(interest - avg premium) and an interval pays its share of it,
// capped. Longs pay shorts when the rate is positive. Payers pay rounded up, receivers get
// rounded down: the difference (dust) is kept, so USDC is conserved to the unit.
import { formatScaled } from '../primitives/index.ts';
import { USD_DECIMALS } from './config.ts';
import type { FundingRecord } from './events.ts';
import type { PerpMarket } from './markets.ts';
import type { TxContext } from './order-context.ts';
import type { ExchangeState } from './state.ts';

const PPB = 1_000_000_000n;
const EIGHT_HOURS = 8n * 3_600_000n;

const clamp = (v: bigint, lo: bigint, hi: bigint) => (v < lo ? lo : v > hi ? hi : v);
const rateString = (ppb: bigint) => formatScaled(ppb, 9);

/** Average price (price units) of trading `impact` USD units against one side, or null if too thin. */
export function impactPx(state: ExchangeState, m: PerpMarket, bids: boolean): bigint | null {
  const impact = state.config.clearinghouse.impactNotional;
  let ntl = 0n;
  let lots = 0n;
  for (const level of m.engine.side(bids).iterate()) {
    const unit = BigInt(level.px) * m.ntlScale;
    const need = impact - ntl;
    const take = (need + unit - 1n) / unit;
    const l = take < BigInt(level.sz) ? take : BigInt(level.sz);
    ntl += l * unit;
    lots += l;
    if (ntl >= impact) return ntl / (lots * m.ntlScale);
  }
  return null;
}

/** Premium of the book against the oracle, ppb. */
export function premiumOf(state: ExchangeState, m: PerpMarket): bigint {
  const oracle = BigInt(m.engine.oraclePx);
  if (oracle === 0n) return 0n;
  const bid = impactPx(state, m, true);
  const ask = impactPx(state, m, false);
  const up = bid !== null && bid > oracle ? bid - oracle : 0n;
  const down = ask !== null && ask < oracle ? oracle - ask : 0n;
  return ((up - down) * PPB) / oracle;
}

/** Funding rate per interval from the interval's average premium, ppb. */
export function fundingRate(state: ExchangeState, m: PerpMarket): { rate: bigint; premium: bigint } {
  const c = state.config.clearinghouse;
  const premium = m.premiumSamples > 0 ? m.premiumSum / BigInt(m.premiumSamples) : 0n;
  const interest = BigInt(c.interestPer8hPpb);
  const bound = BigInt(c.interestClampPpb);
  const per8h = premium + clamp(interest - premium, -bound, bound);
  const cap = BigInt(c.fundingCapPpb);
  return { rate: clamp((per8h * BigInt(c.fundingIntervalMs)) / EIGHT_HOURS, -cap, cap), premium };
}

function payFunding(ctx: TxContext, m: PerpMarket): void {
  const { state } = ctx;
  const { rate, premium } = fundingRate(state, m);
  m.lastFundingRate = rate;
  m.lastPremium = premium;
  m.premiumSum = 0n;
  m.premiumSamples = 0;
  ctx.events.push({ kind: 'fundingRate', rate: { coin: m.name, fundingRate: rateString(rate), premium: rateString(premium), time: ctx.time } });
  if (rate === 0n) return;
  const oracle = BigInt(m.engine.oraclePx);
  const abs = rate < 0n ? -rate : rate;
  // In address order of the holders.
  for (const pos of [...m.holders.positions()].sort((a, b) => (a.owner.address < b.owner.address ? -1 : a.owner.address > b.owner.address ? 1 : 0))) {
    const acct = pos.owner;
    const ntl = BigInt(Math.abs(pos.szi)) * oracle * m.ntlScale;
    const pays = pos.szi > 0 === rate > 0n;
    const amount = pays ? (ntl * abs + PPB - 1n) / PPB : (ntl * abs) / PPB;
    const paid = pays ? amount : -amount; // > 0: left the account
    if (state.isIsolated(acct, m)) pos.margin -= paid;
    else acct.usdc -= paid;
    pos.funding += paid;
    acct.perpRealized -= paid;
    acct.addFunding(m.asset, paid);
    state.fundingDust += paid;
    const record: FundingRecord = {
      time: ctx.time,
      coin: m.name,
      usdc: formatScaled(-paid, USD_DECIMALS),
      szi: formatScaled(pos.szi, m.szDecimals),
      fundingRate: rateString(rate),
    };
    ctx.events.push({ kind: 'funding', user: acct.address, funding: record });
  }
}

/** End-of-block funding work: sample premiums when due, pay when an interval ends. */
export function runFunding(ctx: TxContext): void {
  const { state } = ctx;
  const c = state.config.clearinghouse;
  if (state.time - state.lastPremiumSample >= c.premiumSampleMs) {
    state.lastPremiumSample = state.time;
    for (const m of state.perps) {
      m.premiumSum += premiumOf(state, m);
      m.premiumSamples += 1;
    }
  }
  const interval = c.fundingIntervalMs;
  const current = Math.floor(state.time / interval) * interval;
  if (state.fundingIntervalStart === 0) {
    state.fundingIntervalStart = current; // the chain's first block: the first interval begins
  } else if (current > state.fundingIntervalStart) {
    state.fundingIntervalStart = current;
    for (const m of state.perps) payFunding(ctx, m);
  }
}
