// `spotDeploy`: permissionless listing of spot tokens (standard 1) and pairs (standard 2). The
// deployer pays a fee in USDC from its free balance, only when the deploy succeeds; a refused
// deploy changes nothing. Listed tokens and pairs are state (snapshotted), and a pair trades at once.
import { formatScaled, type Address } from '../primitives/index.ts';
import type { Account } from './account.ts';
import type { SpotDeployPairAction, SpotDeployTokenAction } from './actions.ts';
import { USD_DECIMALS, USDC_TOKEN_INDEX, pairName, spotPxDecimals, type SpotPairConfig } from './config.ts';
import { exchangeError, type ExchangeError } from './errors.ts';
import { availableMargin } from './margin.ts';
import { parsePrice, isExchangeError } from './order-rules.ts';
import type { ExchangeState } from './state.ts';

/** Fee of each deploy, token or pair: 10 USDC (USD units). */
export const SPOT_DEPLOY_FEE = 10n * 10n ** BigInt(USD_DECIMALS);
/** A new pair's minimum order size, in base lots: one lot (10^-szDecimals of the base). */
export const DEPLOYED_PAIR_MIN_LOTS = 1;

export interface TokenDeployed {
  readonly tokenIndex: number;
  readonly tokenName: string;
  readonly deployer: Address;
}

export interface PairDeployed {
  readonly pairIndex: number;
  readonly pairName: string;
  readonly baseToken: number;
  readonly quoteToken: number;
}

/** The fee refusal, or null when the account's free USDC covers it. */
function feeRefusal(state: ExchangeState, acct: Account): ExchangeError | null {
  const free = availableMargin(state, acct);
  const have = free < acct.usdc ? free : acct.usdc;
  if (SPOT_DEPLOY_FEE <= have) return null;
  const shown = have > 0n ? have : 0n;
  return exchangeError('INSUFFICIENT_BALANCE', `spotDeploy costs ${formatScaled(SPOT_DEPLOY_FEE, USD_DECIMALS)} USDC from the free balance, which is ${formatScaled(shown, USD_DECIMALS)}`);
}

function chargeFee(state: ExchangeState, acct: Account): void {
  acct.usdc -= SPOT_DEPLOY_FEE;
  state.deployFees += SPOT_DEPLOY_FEE;
}

export function deployToken(state: ExchangeState, acct: Account, action: SpotDeployTokenAction): TokenDeployed | ExchangeError {
  if (state.tokenNames.has(action.tokenName)) {
    const taken = state.spotTokens.find((t) => t.name === action.tokenName);
    return exchangeError('TOKEN_NAME_TAKEN', `${action.tokenName} is token ${taken?.index ?? '?'}`);
  }
  if (action.evmContract !== null) {
    const linked = state.spotTokens.find((t) => t.evmContract === action.evmContract);
    if (linked !== undefined) return exchangeError('EVM_CONTRACT_LINKED', `${action.evmContract} is linked to ${linked.name} (token ${linked.index})`);
  }
  const fee = feeRefusal(state, acct);
  if (fee !== null) return fee;
  const tokenIndex = USDC_TOKEN_INDEX + state.spotTokens.length;
  state.listToken({
    name: action.tokenName,
    szDecimals: action.szDecimals,
    weiDecimals: action.weiDecimals,
    index: tokenIndex,
    deployer: acct.address,
    ...(action.evmContract !== null ? { evmContract: action.evmContract } : {}),
  });
  chargeFee(state, acct);
  if (action.initialSupply > 0n) acct.credit(tokenIndex, action.initialSupply);
  return { tokenIndex, tokenName: action.tokenName, deployer: acct.address };
}

/**
 * A pair's reference price in price units (10^-(8 - base szDecimals)): `initialPrice` when given
 * (a valid order price of the pair), else 1 unit of the quote token per base token.
 */
function referencePx(action: SpotDeployPairAction, pxDecimals: number): number | ExchangeError {
  if (action.initialPrice === null) return 10 ** pxDecimals;
  const px = parsePrice(action.initialPrice, pxDecimals);
  return isExchangeError(px) ? exchangeError('INVALID_INITIAL_PRICE', px.message.replace(/^Invalid price: /, '')) : px;
}

export function deployPair(state: ExchangeState, acct: Account, action: SpotDeployPairAction): PairDeployed | ExchangeError {
  const base = state.spotToken(action.baseToken);
  if (base === undefined) return exchangeError('UNKNOWN_TOKEN', `baseToken ${action.baseToken} is not registered`);
  const quote = state.spotToken(action.quoteToken);
  if (quote === undefined) return exchangeError('UNKNOWN_TOKEN', `quoteToken ${action.quoteToken} is not registered`);
  const existing = state.spots.find((m) => (m.base.index === base.index && m.quote.index === quote.index) || (m.base.index === quote.index && m.quote.index === base.index));
  if (existing !== undefined) return exchangeError('PAIR_EXISTS', `${existing.name} is pair ${existing.pair.index} (asset ${existing.asset})`);
  const px = referencePx(action, spotPxDecimals(base));
  if (typeof px !== 'number') return px;
  const fee = feeRefusal(state, acct);
  if (fee !== null) return fee;
  const pair: SpotPairConfig = { base: base.index, quote: quote.index, index: state.spots.length, minSz: DEPLOYED_PAIR_MIN_LOTS, referencePx: px };
  state.listPair(pair);
  chargeFee(state, acct);
  return { pairIndex: pair.index, pairName: pairName(state.spotTokens, pair), baseToken: base.index, quoteToken: quote.index };
}
