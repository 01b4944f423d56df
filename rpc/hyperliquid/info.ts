// POST /hyperliquid/info: Hyperliquid's info types in its own shapes (the SDK's response types),
// answered from the same state and history as the spec's /info. Features this chain does not have
// answer what Hyperliquid gives an account that never used them (see docs/hyperliquid.md).
import { parseScaled, type Address } from '../../primitives/index.ts';
import type { NodeApi } from '../api.ts';
import { badRequest } from '../http-errors.ts';
import { requireAddress, requireInt, requireString } from '../request-checks.ts';
import * as market from './market-info.ts';
import * as account from './user-info.ts';

type Body = Record<string, unknown>;

const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
/** A validator as Hyperliquid writes it, 0x-prefixed hex: here its 32-byte ed25519 consensus key. */
const validatorId = (key: string) => (key.startsWith('0x') ? key : `0x${key}`);
type Handler = (api: NodeApi, body: Body) => unknown;
type UserHandler = (api: NodeApi, body: Body, user: Address) => unknown;

/** A handler of a type that names a `user`. */
const withUser = (h: UserHandler): Handler => (api, body) => h(api, body, requireAddress(body, 'user'));

/** webData2: what Hyperliquid's front-end (and the WS `webData2` channel) shows of one user. */
async function webData2(api: NodeApi, _body: Body, user: Address) {
  const agent = api.extraAgents(user)[0];
  return {
    clearinghouseState: account.clearinghouseState(api, user),
    leadingVaults: [],
    totalVaultEquity: '0.0',
    openOrders: account.frontendOpenOrders(api, user),
    agentAddress: agent?.address ?? null,
    agentValidUntil: null,
    cumLedger: await account.cumLedger(api, user),
    meta: market.meta(api),
    assetCtxs: market.assetCtxs(api),
    serverTime: api.head().time,
    isVault: false,
    user,
    twapStates: [],
    spotState: account.spotClearinghouseState(api, user),
    spotAssetCtxs: market.spotAssetCtxs(api),
  };
}

const HANDLERS: Record<string, Handler> = {
  meta: (api) => market.meta(api),
  spotMeta: (api) => market.spotMeta(api),
  metaAndAssetCtxs: (api) => [market.meta(api), market.assetCtxs(api)],
  spotMetaAndAssetCtxs: (api) => [market.spotMeta(api), market.spotAssetCtxs(api)],
  allMids: (api) => market.allMids(api),
  l2Book: (api, body) => market.l2Book(api, body),
  candleSnapshot: (api, body) => market.candleSnapshot(api, body),
  fundingHistory: (api, body) => market.fundingHistory(api, body),
  recentTrades: (api, body) => market.recentTrades(api, body),
  predictedFundings: (api) => market.predictedFundings(api),
  tokenDetails: (api, body) => market.tokenDetails(api, body),
  exchangeStatus: (api) => ({ time: api.head().time, specialStatuses: null }),
  perpDexs: () => [null], // the first (and only) perp dex is Hyperliquid's `null` entry
  marginTable: (api, body) => {
    const id = requireInt(body, 'id');
    if (!api.meta().universe.some((u) => u.maxLeverage === id)) throw badRequest(`Unknown margin table: ${id}`, { field: 'id' });
    return market.marginTableOf(id);
  },
  allPerpMetas: (api) => [market.meta(api)], // one perp dex
  perpDexLimits: () => null, // the first dex has no deployer limits
  outcomeMeta: () => ({ outcomes: [], questions: [] }), // no outcome markets (the SDK's SymbolConverter asks on start)
  perpsAtOpenInterestCap: () => [], // no open interest caps on this chain
  validatorSummaries: (api) =>
    api.validatorSummaries().map((v) => ({
      validator: validatorId(v.validator),
      // The account that signs for it: its operator, else its bridge signer (a consensus key is ed25519, no address).
      signer: v.signer ?? v.bridgeSigner ?? ZERO_ADDRESS,
      name: v.name,
      description: '',
      nRecentBlocks: 0,
      stake: Number(parseScaled(v.stake, 8) ?? 0n), // token units of 10^-8, as Hyperliquid's wei
      isJailed: v.isJailed,
      unjailableAfter: null,
      isActive: v.isActive,
      commission: '0.0',
      stats: (['day', 'week', 'month'] as const).map((p) => [p, { uptimeFraction: '0.0', predictedApr: '0.0', nSamples: 0 }]),
    })),
  vaultSummaries: () => [], // no vaults on this chain
  spotDeployState: withUser((api) => {
    // Deploying is one action at a fixed fee here: nothing is ever in progress, the "auction" never moves.
    const fee = api.spotDeployFee();
    return { states: [], gasAuction: { startTimeSeconds: 0, durationSeconds: 0, startGas: fee, currentGas: fee, endGas: fee } };
  }),
  clearinghouseState: withUser((api, _b, user) => account.clearinghouseState(api, user)),
  spotClearinghouseState: withUser((api, _b, user) => account.spotClearinghouseState(api, user)),
  openOrders: withUser((api, _b, user) => account.openOrders(api, user)),
  frontendOpenOrders: withUser((api, _b, user) => account.frontendOpenOrders(api, user)),
  userFills: withUser((api, _b, user) => account.userFills(api, user)),
  userFillsByTime: withUser(account.userFillsByTime),
  userFunding: withUser(account.userFunding),
  userNonFundingLedgerUpdates: withUser(account.userNonFundingLedgerUpdates),
  userFees: withUser((api, _b, user) => account.userFees(api, user)),
  orderStatus: withUser(account.orderStatus),
  historicalOrders: withUser((api, _b, user) => account.historicalOrders(api, user)),
  userRateLimit: withUser((api, _b, user) => api.userRateLimit(user)),
  portfolio: withUser((api, _b, user) => account.portfolio(api, user)),
  subAccounts: withUser((api, _b, user) => account.subAccounts(api, user)),
  subAccounts2: withUser((api, _b, user) => account.subAccounts2(api, user)),
  extraAgents: withUser((api, _b, user) => api.extraAgents(user)),
  referral: withUser((api, _b, user) => account.referral(api, user)),
  delegatorSummary: withUser((api, _b, user) => api.delegatorSummary(user)),
  delegations: withUser((api, _b, user) => api.delegations(user).map((d) => ({ ...d, validator: validatorId(d.validator) }))),
  userRole: withUser((api, _b, user) => api.userRole(user)),
  activeAssetData: withUser(account.activeAssetData),
  webData2: withUser(webData2),
  maxBuilderFee: withUser((api, body, user) => api.maxBuilderFee(user, requireAddress(body, 'builder'))),
  approvedBuilders: withUser((api, _b, user) => api.approvedBuilders(user)),
  userAbstraction: withUser(() => 'default'), // one account kind: no unified or portfolio margin
  userDexAbstraction: withUser(() => null),
  userVaultEquities: withUser(() => []),
  leadingVaults: withUser(() => []),
  twapHistory: withUser(() => []), // no TWAP orders on this chain
  userTwapSliceFills: withUser(() => []),
  userTwapSliceFillsByTime: withUser(() => []),
  userToMultiSigSigners: withUser(() => null), // no multi-sig accounts
  isVip: withUser(() => false),
  legalCheck: withUser(() => ({ acceptedTerms: false, userAllowed: true, restrictions: 'n' })),
};

/** The answer to one info request; a bad request is an HttpError (the route makes it Hyperliquid's 422). */
export async function handleHyperliquidInfo(api: NodeApi, body: Body): Promise<unknown> {
  const type = requireString(body, 'type');
  const handler = Object.hasOwn(HANDLERS, type) ? HANDLERS[type] : undefined;
  if (handler === undefined) throw badRequest(`unknown variant \`${type}\``, { field: 'type' });
  return handler(api, body);
}

export const HYPERLIQUID_INFO_TYPES: readonly string[] = Object.keys(HANDLERS);
