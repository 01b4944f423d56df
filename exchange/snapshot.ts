// Full-state snapshots: a canonical JSON form of ExchangeState (same state, same bytes) and its
// inverse. Books are written level by level from the best price, each level in queue order, with
// every order's queue sequence, so a restored book keeps price-time priority exactly.
import { bytesToHex, canonicalize, canonicalKeccak, type Address, type Json } from '../primitives/index.ts';
import { Account, Position } from './account.ts';
import type { ExchangeConfig } from './config.ts';
import type { BookOrder, TifCode } from './engine/book-order.ts';
import type { BookSide } from './engine/book-side.ts';
import { claimKey, type BridgeClaim, type ContractSet, type WithdrawalStatus } from './bridge.ts';
import { Exchange } from './exchange.ts';
import { recomputeOrderMargins } from './order-margin.ts';
import { addHolder } from './settlement.ts';
import { ExchangeState } from './state.ts';
import { StakingState, addDelegation } from './staking.ts';
import type { TriggerOrder } from './triggers.ts';

type OrderRow = [oid: number, owner: string, px: number, sz: number, origSz: number, seq: number, tif: number, reduceOnly: boolean, cloid: string | null, timestamp: number];

type AccountRow = [
  address: string,
  usdc: string,
  tokens: [number, string][],
  /** [asset, szi, entryNtl, funding, isolated margin (absent in version 3)]. */
  positions: [number, number, string, string, string?][],
  leverage: [number, number][],
  margins: [number, string][],
  holds: [number, number, string][],
  fundingAllTime: [number, string][],
  requests: number,
  cumVlm: string,
  /** Assets the account chose isolated margin on (absent in version 3). */
  isolated?: number[],
  /** Realized perp PnL and spot fees paid (absent in version 3). */
  pnl?: [string, string],
];

interface MarketSnapshot {
  asset: number;
  lastPx: number;
  oraclePx: number;
  bids: OrderRow[];
  asks: OrderRow[];
  triggers: TriggerOrder[];
  /** Perps: oracle submissions [validator, px, time], and the funding accumulators. */
  oracleSubs?: [string, number, number][];
  funding?: { premiumSum: string; premiumSamples: number; lastFundingRate: string; lastPremium: string };
  day?: { hour: number; volume: string[]; mark: number[] };
}

interface Snapshot {
  /** 4 added isolated margin; version 3 snapshots restore with none. */
  version: 3 | 4;
  height: number;
  time: number;
  ids: { nextOid: number; nextTid: number; nextSeq: number };
  feesCollected: string;
  tokenFees: [number, string][];
  fundingDust: string;
  fundingIntervalStart: number;
  lastPremiumSample: number;
  lastSweep: number;
  lastSweepOracles: string;
  accounts: AccountRow[];
  markets: MarketSnapshot[];
  nonces: [string, number[]][];
  agents: [string, string][];
  agentsOf: [string, { address: string; name: string; validUntil?: number }[]][];
  subAccounts: [string, { name: string; address: string }[]][];
  tpslChildren: [number, number[]][];
  /**
   * Withdrawals in request order, and the bridge fees kept (absent in version 3). Rows written
   * before the bridge have no chain, deadline or status: they restore as pending on chain 0.
   */
  withdrawals?: WithdrawalRow[];
  bridgeFees?: string;
  /** Tokens and pairs listed by `spotDeploy` (after the genesis's), in index order, and the fees paid for them. */
  deployedTokens?: { name: string; szDecimals: number; weiDecimals: number; index: number; deployer?: string; evmContract?: string }[];
  deployedPairs?: { base: number; quote: number; index: number; minSz: number; referencePx: number }[];
  deployFees?: string;
  /** Per linked token, the units held for the EVM side (absent when none). */
  evmEscrow?: [number, string][];
  /** Releases queued after the block's EVM part (by actions sent from the EVM) for the next block's (absent when none). */
  evmReleases?: { token: number; contract: string; system: string; to: string; units: string; wei: string }[];
  /** Bridge chains, attestations waiting for a quorum, deposit ids credited and totals; absent when all are empty. */
  bridge?: {
    chains: { chainId: number; contract: string; set: ContractSet }[];
    setUpdates: { chainId: number; target: ContractSet; signatures: [string, string][] }[];
    votes: { claim: BridgeClaim; voters: string[]; time: number }[];
    deposits: [number, number, number[]][];
    deposited: string;
    paidOut: string;
    refunded: string;
  };
  staking?: StakingSnapshot;
  /** Referral codes by code, and referred accounts by address (absent when both are empty). */
  referrals?: { codes: [string, string][]; referred: [string, string, string, number][] };
  /** Builder fee approvals [user, builder, tenths of a basis point], by user then builder (absent when none). */
  builderApprovals?: [string, string, number][];
  /** The builders of resting orders [oid, builder, f], by oid (absent when none). */
  orderBuilders?: [number, string, number][];
  /** Scheduled cancels [user, time] by user, and those fired [user, UTC day, count] by user (each absent when none). */
  scheduledCancels?: [string, number][];
  scheduledCancelsFired?: [string, number, number][];
}

interface WithdrawalRow {
  withdrawalId: string;
  user: string;
  destination: string;
  amount: string;
  fee: string;
  time: number;
  chainId?: number;
  deadline?: number;
  status?: WithdrawalStatus;
  /** [validator public key, signature] in arrival order. */
  signatures?: [string, string][];
  txHash?: string | null;
  finalTime?: number;
}

function bridgeSnapshot(state: ExchangeState): Snapshot['bridge'] {
  const b = state.bridge;
  if (b.chains.size === 0 && b.setUpdates.size === 0 && b.votes.size === 0 && b.deposits.size === 0 && b.deposited === 0n && b.paidOut === 0n && b.refunded === 0n) return undefined;
  return {
    chains: [...b.chains.values()].sort((x, y) => x.chainId - y.chainId).map((c) => ({ chainId: c.chainId, contract: c.contract, set: c.set })),
    setUpdates: [...b.setUpdates.entries()].sort(([x], [y]) => x - y).map(([chainId, u]) => ({ chainId, target: u.target, signatures: [...u.signatures.entries()] })),
    // Votes keep their insertion order: it decides nothing but pruning, and is the same on every node.
    votes: [...b.votes.values()].map((v) => ({ claim: v.claim, voters: [...v.voters], time: v.time })),
    deposits: [...b.deposits.entries()].map(([chain, d]): [number, number, number[]] => [chain, d.below, [...d.above].sort((x, y) => x - y)]).sort(byNum),
    deposited: b.deposited.toString(),
    paidOut: b.paidOut.toString(),
    refunded: b.refunded.toString(),
  };
}

interface StakingSnapshot {
  /** [user, undelegated] by user. */
  balances: [string, string][];
  /** [user, validator, amount, lockedUntil] by user, then validator. */
  delegations: [string, string, string, number][];
  pending: { user: string; amount: string; releaseTime: number }[];
  /** In registration order (genesis first); stakes are derived from the delegations. */
  validators: { pubKey: string; operator: string | null; name: string; bridgeSigner?: string }[];
  /** The active set in its order (the proposer rotation follows it). */
  active: { pubKey: string; power: number; bridgeSigner?: string }[];
}

function stakingSnapshot(s: StakingState): StakingSnapshot {
  const delegations: [string, string, string, number][] = [];
  for (const [user, mine] of s.delegations) for (const [v, d] of mine) delegations.push([user, v, d.amount.toString(), d.lockedUntil]);
  delegations.sort((a, b) => byKey(a, b) || byKey([a[1]], [b[1]]));
  return {
    balances: [...s.balances.entries()].map(([u, v]): [string, string] => [u, v.toString()]).sort(byKey),
    delegations,
    pending: s.pending.map((p) => ({ user: p.user, amount: p.amount.toString(), releaseTime: p.releaseTime })),
    validators: [...s.validators.values()].map((v) => ({ pubKey: v.pubKey, operator: v.operator, name: v.name, ...(v.bridgeSigner === undefined ? {} : { bridgeSigner: v.bridgeSigner }) })),
    active: s.active.map((v) => ({ pubKey: v.pubKey, power: v.power, ...(v.bridgeSigner === undefined ? {} : { bridgeSigner: v.bridgeSigner }) })),
  };
}

/** The genesis staking state's canonical form, per config: a snapshot leaves out staking equal to it. */
const genesisStaking = new WeakMap<ExchangeConfig, string>();

function changedStaking(state: ExchangeState): StakingSnapshot | undefined {
  const snap = stakingSnapshot(state.staking);
  let genesis = genesisStaking.get(state.config);
  if (genesis === undefined) genesisStaking.set(state.config, (genesis = canonicalize(stakingSnapshot(new StakingState(state.config)) as unknown as Json)));
  return canonicalize(snap as unknown as Json) === genesis ? undefined : snap;
}

function restoreStaking(state: ExchangeState, snap: StakingSnapshot): void {
  const s = state.staking;
  s.validators.clear();
  s.byOperator.clear();
  s.delegations.clear();
  for (const v of snap.validators) {
    s.validators.set(v.pubKey, { pubKey: v.pubKey, operator: v.operator, name: v.name, ...(v.bridgeSigner === undefined ? {} : { bridgeSigner: v.bridgeSigner }), stake: 0n });
    if (v.operator !== null) s.byOperator.set(v.operator, v.pubKey);
  }
  for (const [user, v] of snap.balances) s.balances.set(user, BigInt(v));
  for (const [user, v, amount, lockedUntil] of snap.delegations) addDelegation(s, user, v, BigInt(amount), lockedUntil);
  for (const p of snap.pending) s.pending.push({ user: p.user, amount: BigInt(p.amount), releaseTime: p.releaseTime });
  s.active = snap.active.map((v) => ({ ...v }));
}

const byKey = (a: [string, ...unknown[]], b: [string, ...unknown[]]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
const byNum = (a: [number, ...unknown[]], b: [number, ...unknown[]]) => a[0] - b[0];

function sideRows(side: BookSide): OrderRow[] {
  const rows: OrderRow[] = [];
  for (const level of side.iterate()) {
    for (let o: BookOrder | null = level.head; o !== null; o = o.next) {
      rows.push([o.oid, o.owner, o.px, o.sz, o.origSz, o.seq, o.tif, o.reduceOnly, o.cloid, o.timestamp]);
    }
  }
  return rows;
}

/** Each owner's resting perp orders as [oid, margin reserved] (the snapshot keeps them with the account). */
function orderMarginsByOwner(state: ExchangeState): Map<string, [number, string][]> {
  const byOwner = new Map<string, [number, string][]>();
  for (const m of state.perps) {
    for (const o of m.engine.orders.values()) {
      let rows = byOwner.get(o.owner);
      if (rows === undefined) byOwner.set(o.owner, (rows = []));
      rows.push([o.oid, o.margin.toString()]);
    }
  }
  return byOwner;
}

function accountRow(a: Account, margins: [number, string][]): AccountRow {
  return [
    a.address,
    a.usdc.toString(),
    [...a.tokens.entries()].map(([t, v]): [number, string] => [t, v.toString()]).sort(byNum),
    [...a.positions.entries()].map(([asset, p]): [number, number, string, string, string] => [asset, p.szi, p.entryNtl.toString(), p.funding.toString(), p.margin.toString()]).sort(byNum),
    [...a.leverage.entries()].sort(byNum),
    margins.sort(byNum),
    [...a.holds.entries()].map(([oid, h]): [number, number, string] => [oid, h.token, h.amount.toString()]).sort(byNum),
    [...a.fundingAllTime.entries()].map(([asset, v]): [number, string] => [asset, v.toString()]).sort(byNum),
    a.requests,
    a.cumVlm.toString(),
    [...a.isolated].sort((x, y) => x - y),
    [a.perpRealized.toString(), a.spotFees.toString()],
  ];
}

/** The snapshot's `spotDeploy` fields, present only once something was deployed (older snapshots stay byte-equal). */
function deployedRows(state: ExchangeState): Pick<Snapshot, 'deployedTokens' | 'deployedPairs' | 'deployFees'> {
  const tokens = state.spotTokens.slice(state.config.spotTokens.length);
  const pairs = state.spots.slice(state.config.spotPairs.length).map((m) => ({ ...m.pair }));
  if (tokens.length === 0 && pairs.length === 0 && state.deployFees === 0n) return {};
  return { deployedTokens: tokens.map((t) => ({ ...t })), deployedPairs: pairs, deployFees: state.deployFees.toString() };
}

export function snapshotState(state: ExchangeState): Json {
  const margins = orderMarginsByOwner(state);
  const snap: Snapshot = {
    version: 4,
    height: state.height,
    time: state.time,
    ids: { ...state.ids },
    feesCollected: state.feesCollected.toString(),
    tokenFees: [...state.tokenFees.entries()].map(([t, v]): [number, string] => [t, v.toString()]).sort(byNum),
    fundingDust: state.fundingDust.toString(),
    fundingIntervalStart: state.fundingIntervalStart,
    lastPremiumSample: state.lastPremiumSample,
    lastSweep: state.lastSweep,
    lastSweepOracles: state.lastSweepOracles,
    accounts: [...state.accounts.values()].map((a) => accountRow(a, margins.get(a.address) ?? [])).sort((a, b) => byKey([a[0], 0], [b[0], 0])),
    markets: state.markets.map((m) => ({
      asset: m.asset,
      lastPx: m.lastPx,
      oraclePx: m.engine.oraclePx,
      bids: sideRows(m.engine.bids),
      asks: sideRows(m.engine.asks),
      triggers: m.kind === 'perp' ? [...m.triggers.orders.values()].sort((a, b) => a.oid - b.oid) : [],
      ...(m.kind === 'perp'
        ? {
            oracleSubs: [...m.oracleSubs.entries()].map(([v, sub]): [string, number, number] => [v, sub.px, sub.time]).sort(byKey),
            funding: { premiumSum: m.premiumSum.toString(), premiumSamples: m.premiumSamples, lastFundingRate: m.lastFundingRate.toString(), lastPremium: m.lastPremium.toString() },
            day: { hour: m.hour, volume: m.hourlyVolume.map(String), mark: [...m.hourlyMark] },
          }
        : {}),
    })),
    nonces: [...state.nonces.entries()].map(([k, v]): [string, number[]] => [k, [...v]]).sort(byKey),
    agents: [...state.agents.entries()].sort(byKey),
    agentsOf: [...state.agentsOf.entries()].sort(byKey),
    subAccounts: [...state.subAccounts.entries()].sort(byKey),
    tpslChildren: [...state.tpslChildren.entries()].sort(byNum),
    withdrawals: [...state.bridge.withdrawals.values()].map((w): WithdrawalRow => ({
      withdrawalId: w.withdrawalId, user: w.user, destination: w.destination, amount: w.amount.toString(), fee: w.fee.toString(), time: w.time,
      chainId: w.chainId, deadline: w.deadline, status: w.status, signatures: [...w.signatures.entries()], txHash: w.txHash, finalTime: w.finalTime,
    })),
    bridgeFees: state.bridgeFees.toString(),
    ...deployedRows(state),
    ...(state.evmEscrow.size > 0 ? { evmEscrow: [...state.evmEscrow.entries()].map(([t, v]): [number, string] => [t, v.toString()]).sort(byNum) } : {}),
    ...(state.evmReleases.length > 0 ? { evmReleases: state.evmReleases.map((r) => ({ token: r.token, contract: r.contract, system: r.system, to: r.to, units: r.units.toString(), wei: r.wei.toString() })) } : {}),
  };
  const bridge = bridgeSnapshot(state);
  if (bridge !== undefined) snap.bridge = bridge;
  const staking = changedStaking(state);
  if (staking !== undefined) snap.staking = staking;
  if (!state.referrals.empty) snap.referrals = referralRows(state);
  if (state.builderApprovals.size > 0) {
    const rows: [string, string, number][] = [];
    for (const [user, mine] of state.builderApprovals) for (const [builder, rate] of mine) rows.push([user, builder, rate]);
    snap.builderApprovals = rows.sort((a, b) => byKey(a, b) || byKey([a[1]], [b[1]]));
  }
  if (state.orderBuilders.size > 0) snap.orderBuilders = [...state.orderBuilders.entries()].map(([oid, b]): [number, string, number] => [oid, b.b, b.f]).sort(byNum);
  if (state.scheduledCancels.size > 0) snap.scheduledCancels = [...state.scheduledCancels.entries()].sort(byKey);
  if (state.scheduledCancelsFired.size > 0) {
    snap.scheduledCancelsFired = [...state.scheduledCancelsFired.entries()].map(([user, f]): [string, number, number] => [user, f.day, f.count]).sort(byKey);
  }
  return snap as unknown as Json;
}

function referralRows(state: ExchangeState): NonNullable<Snapshot['referrals']> {
  const r = state.referrals;
  return {
    codes: [...r.owners.entries()].sort(byKey),
    referred: [...r.referredBy.entries()].map(([user, b]): [string, string, string, number] => [user, b.referrer, b.code, b.time]).sort(byKey),
  };
}

function restoreAccount(row: AccountRow): Account {
  const [address, usdc, tokens, positions, leverage, , holds, fundingAllTime, requests, cumVlm, isolated, pnl] = row;
  const acct = new Account(address, BigInt(usdc));
  for (const [t, v] of tokens) acct.credit(t, BigInt(v));
  for (const [asset, szi, entryNtl, funding, margin] of positions) {
    const pos = new Position(acct, asset, szi, BigInt(entryNtl));
    pos.funding = BigInt(funding);
    pos.margin = BigInt(margin ?? '0');
    acct.addPosition(pos);
  }
  for (const asset of isolated ?? []) acct.setIsolated(asset, true);
  acct.perpRealized = BigInt(pnl?.[0] ?? '0');
  acct.spotFees = BigInt(pnl?.[1] ?? '0');
  for (const [asset, v] of fundingAllTime) acct.addFunding(asset, BigInt(v));
  acct.requests = requests;
  acct.cumVlm = BigInt(cumVlm);
  for (const [asset, lev] of leverage) acct.setLeverage(asset, lev);
  for (const [oid, token, v] of holds) acct.hold(oid, token, BigInt(v));
  return acct;
}

export function restoreExchange(config: ExchangeConfig, json: unknown): Exchange {
  const snap = json as Snapshot;
  if (snap.version !== 3 && snap.version !== 4) throw new Error(`unsupported snapshot version ${String(snap.version)}`);
  const state = new ExchangeState(config);
  state.height = snap.height;
  state.time = snap.time;
  Object.assign(state.ids, snap.ids);
  state.feesCollected = BigInt(snap.feesCollected);
  for (const [t, v] of snap.tokenFees) state.tokenFees.set(t, BigInt(v));
  state.fundingDust = BigInt(snap.fundingDust);
  state.fundingIntervalStart = snap.fundingIntervalStart;
  state.lastPremiumSample = snap.lastPremiumSample;
  state.lastSweep = snap.lastSweep;
  state.lastSweepOracles = snap.lastSweepOracles;
  // Deployed tokens and pairs first: their markets' books are restored below like the others.
  for (const t of snap.deployedTokens ?? []) state.listToken({ ...t });
  for (const p of snap.deployedPairs ?? []) state.listPair({ ...p });
  state.deployFees = BigInt(snap.deployFees ?? '0');
  for (const [t, v] of snap.evmEscrow ?? []) state.evmEscrow.set(t, BigInt(v));
  for (const r of snap.evmReleases ?? []) state.evmReleases.push({ ...r, units: BigInt(r.units), wei: BigInt(r.wei) });
  for (const row of snap.accounts) {
    const acct = restoreAccount(row);
    state.accounts.set(row[0], acct);
    for (const pos of acct.positions.values()) {
      const m = state.perps[pos.asset];
      if (m !== undefined) addHolder(state, m, pos);
    }
  }
  for (const ms of snap.markets) {
    const m = state.market(ms.asset);
    if (m === undefined) throw new Error(`snapshot has market ${ms.asset} that the config lacks`);
    m.lastPx = ms.lastPx;
    m.engine.oraclePx = ms.oraclePx;
    for (const [isBuy, rows] of [[true, ms.bids], [false, ms.asks]] as const) {
      for (const [oid, owner, px, sz, origSz, seq, tif, reduceOnly, cloid, timestamp] of rows) {
        m.engine.restore(oid, owner as Address, isBuy, px, sz, origSz, seq, tif as TifCode, reduceOnly, cloid, timestamp);
      }
    }
    if (m.kind === 'perp') {
      for (const t of ms.triggers) m.triggers.add({ ...t });
      for (const [v, px, time] of ms.oracleSubs ?? []) m.oracleSubs.set(v, { px, time });
      if (ms.funding !== undefined) {
        m.premiumSum = BigInt(ms.funding.premiumSum);
        m.premiumSamples = ms.funding.premiumSamples;
        m.lastFundingRate = BigInt(ms.funding.lastFundingRate);
        m.lastPremium = BigInt(ms.funding.lastPremium);
      }
      if (ms.day !== undefined) {
        m.hour = ms.day.hour;
        ms.day.volume.forEach((v, i) => (m.hourlyVolume[i] = BigInt(v)));
        ms.day.mark.forEach((v, i) => (m.hourlyMark[i] = v));
      }
    }
  }
  // Order margins go on the orders, which rest by now; the lots each closes follow from the rule.
  for (const row of snap.accounts) {
    const acct = state.accounts.get(row[0]) as Account;
    for (const [oid, v] of row[5]) {
      const o = state.perps.find((m) => m.engine.orders.has(oid))?.engine.orders.get(oid);
      if (o === undefined || o.owner !== acct.address) throw new Error(`snapshot reserves margin for order ${oid} that does not rest`);
      acct.setMargin(o, BigInt(v));
    }
    for (const m of state.perps) if (m.engine.ownerHead(acct.address) !== null) recomputeOrderMargins(state, acct, m, false);
  }
  for (const [signer, nonces] of snap.nonces) state.nonces.set(signer, [...nonces]);
  for (const [agent, user] of snap.agents) state.agents.set(agent, user);
  for (const [user, list] of snap.agentsOf) {
    state.agentsOf.set(user, list.map((a) => ({ ...a })));
    for (const a of list) if (a.validUntil !== undefined) state.agentExpiry.set(a.address, a.validUntil);
  }
  for (const [master, list] of snap.subAccounts) {
    state.subAccounts.set(master, list.map((s) => ({ ...s })));
    for (const s of list) state.masterOf.set(s.address, master);
  }
  for (const [parent, children] of snap.tpslChildren) state.tpslChildren.set(parent, [...children]);
  for (const w of snap.withdrawals ?? []) {
    state.bridge.withdrawals.set(w.withdrawalId, {
      withdrawalId: w.withdrawalId, user: w.user, destination: w.destination, amount: BigInt(w.amount), fee: BigInt(w.fee), time: w.time,
      chainId: w.chainId ?? 0, deadline: w.deadline ?? 0, status: w.status ?? 'pending', signatures: new Map(w.signatures ?? []),
      txHash: w.txHash ?? null, finalTime: w.finalTime ?? 0,
    });
  }
  state.bridgeFees = BigInt(snap.bridgeFees ?? '0');
  const b = snap.bridge;
  if (b !== undefined) {
    for (const c of b.chains) state.bridge.chains.set(c.chainId, { chainId: c.chainId, contract: c.contract, set: c.set });
    for (const u of b.setUpdates) state.bridge.setUpdates.set(u.chainId, { target: u.target, signatures: new Map(u.signatures) });
    for (const v of b.votes) state.bridge.votes.set(claimKey(v.claim), { claim: v.claim, voters: [...v.voters], time: v.time });
    for (const [chain, below, above] of b.deposits) state.bridge.deposits.set(chain, { below, above: new Set(above) });
    state.bridge.deposited = BigInt(b.deposited);
    state.bridge.paidOut = BigInt(b.paidOut);
    state.bridge.refunded = BigInt(b.refunded);
  }
  if (snap.staking !== undefined) restoreStaking(state, snap.staking);
  for (const [code, owner] of snap.referrals?.codes ?? []) state.referrals.addCode(code, owner);
  for (const [user, referrer, code, time] of snap.referrals?.referred ?? []) state.referrals.referredBy.set(user, { referrer, code, time });
  for (const [user, builder, rate] of snap.builderApprovals ?? []) {
    let mine = state.builderApprovals.get(user);
    if (mine === undefined) state.builderApprovals.set(user, (mine = new Map()));
    mine.set(builder, rate);
  }
  for (const [oid, b, f] of snap.orderBuilders ?? []) state.orderBuilders.set(oid, { b, f });
  for (const [user, time] of snap.scheduledCancels ?? []) state.scheduledCancels.set(user, time);
  for (const [user, day, count] of snap.scheduledCancelsFired ?? []) state.scheduledCancelsFired.set(user, { day, count });
  return new Exchange(state);
}

/** keccak256 of the canonical snapshot: equal states, equal hashes, on every machine. */
export function stateHash(state: ExchangeState): string {
  return bytesToHex(canonicalKeccak(snapshotState(state)));
}
