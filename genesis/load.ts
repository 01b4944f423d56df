// Genesis validation and its translation into the exchange's typed configuration.
import {
  bytesToHex, canonicalize, keccak256, normalizeAddress, parseScaled, utf8, type Address,
} from '../primitives/index.ts';
import {
  PERP_MAX_DECIMALS, SPOT_ASSET_OFFSET, TOKEN_DECIMALS, USD_DECIMALS, USDC_TOKEN_INDEX, perpPxDecimals, spotPxDecimals,
  MAINNET_BRIDGE_CHAINS, type BridgeConfig, type ClearinghouseConfig, type ExchangeConfig, type GenesisBalance, type OracleValidator, type SpotTokenConfig, type StakingConfig,
} from '../exchange/index.ts';
import type { EvmGenesis } from '../evm/index.ts';
import type { AppHashVersion, GenesisFile } from './schema.ts';

export interface LoadedGenesis {
  readonly file: GenesisFile;
  readonly evm: EvmGenesis;
  /** keccak256 of the canonical genesis JSON; names the chain. */
  readonly hash: string;
  readonly exchange: ExchangeConfig;
  readonly balances: readonly GenesisBalance[];
  /** Node API settings; `stakerTierStake` in staking units (10^-8 of a token). */
  readonly api: { readonly stakerTierStake: bigint };
  /** The Hyperliquid chains whose dialect signatures are accepted; [] when the dialect is off. */
  readonly hyperliquidChains: readonly ('Mainnet' | 'Testnet')[];
  /** How the app hash writes a block's outputs (1 when the file does not say). */
  readonly appHashVersion: AppHashVersion;
}

/** `api.stakerTierStake` when the genesis does not set it, whole tokens. */
export const DEFAULT_STAKER_TIER_STAKE = '10000';

export class GenesisError extends Error {
  override readonly name = 'GenesisError';
}

const TOKEN_NAME_RE = /^[A-Z0-9]{1,10}$/;

function check(ok: boolean, message: string): asserts ok {
  if (!ok) throw new GenesisError(message);
}

function intIn(v: unknown, lo: number, hi: number, what: string): number {
  check(typeof v === 'number' && Number.isSafeInteger(v) && v >= lo && v <= hi, `${what} must be an integer in [${lo}, ${hi}]`);
  return v as number;
}

function scaled(text: unknown, decimals: number, what: string): number {
  const v = typeof text === 'string' ? parseScaled(text, decimals) : null;
  check(v !== null && v > 0n && v <= BigInt(Number.MAX_SAFE_INTEGER), `${what} must be a positive decimal with at most ${decimals} decimals`);
  return Number(v);
}

/** A fraction in [0, 1] as an integer of 10^-decimals (ppm for 6, bps for 4). */
function fraction(text: unknown, decimals: number, what: string): number {
  const v = typeof text === 'string' ? parseScaled(text, decimals) : null;
  check(v !== null && v >= 0n && v <= 10n ** BigInt(decimals), `${what} must be a decimal fraction from 0 to 1 with at most ${decimals} decimals`);
  return Number(v);
}

function clearinghouseConfig(file: GenesisFile, opts: LoadOptions, funded: Set<Address>): ClearinghouseConfig {
  const c = file.exchange.clearinghouse;
  check(c !== undefined, 'exchange.clearinghouse is required');
  const backstop = normalizeAddress(c.backstop);
  check(backstop !== null && funded.has(backstop), 'clearinghouse.backstop must be an address funded in balances');
  const validators = file.validators.length > 0
    ? file.validators.map((v, i) => {
      const bridgeSigner = v.bridgeSigner === undefined ? undefined : normalizeAddress(v.bridgeSigner);
      check(bridgeSigner !== null && bridgeSigner !== '0x0000000000000000000000000000000000000000', `validator ${i}: bridgeSigner must be a non-zero 20-byte hex address`);
      check(bridgeSigner === undefined || file.validators.filter((w) => w.bridgeSigner?.toLowerCase() === bridgeSigner).length === 1, `validator ${i}: bridgeSigner ${bridgeSigner} is another validator's too`);
      return { pubKey: v.pubKey.toLowerCase(), power: intIn(v.power, 1, 2 ** 31, 'validator power'), ...(bridgeSigner === undefined ? {} : { bridgeSigner }) };
    })
    : opts.localValidator === undefined ? [] : [{ pubKey: opts.localValidator, power: 1, ...(opts.localBridgeSigner === undefined ? {} : { bridgeSigner: opts.localBridgeSigner }) }];
  const impact = parseScaled(c.impactNotional, USD_DECIMALS);
  check(impact !== null && impact > 0n, 'clearinghouse.impactNotional must be a positive decimal');
  const withdrawMinimum = parseScaled(c.withdrawMinimum ?? '10', USD_DECIMALS);
  const withdrawFee = parseScaled(c.withdrawFee ?? '1', USD_DECIMALS);
  check(withdrawFee !== null && withdrawFee >= 0n, 'clearinghouse.withdrawFee must be a non-negative decimal');
  check(withdrawMinimum !== null && withdrawMinimum > withdrawFee, 'clearinghouse.withdrawMinimum must be a decimal above withdrawFee');
  // Withdrawals pay whole units of the bridged USDC (6 decimals): a finer fee would leave dust the bridge never pays.
  check(withdrawFee % 100n === 0n && withdrawMinimum % 100n === 0n, 'clearinghouse.withdrawFee and withdrawMinimum have at most 6 decimals (USDC\'s)');
  return {
    validators,
    oracleStalenessMs: intIn(c.oracleStalenessMs, 1000, 86_400_000, 'oracleStalenessMs'),
    fundingIntervalMs: intIn(c.fundingIntervalMs, 1000, 86_400_000, 'fundingIntervalMs'),
    premiumSampleMs: intIn(c.premiumSampleMs, 100, 3_600_000, 'premiumSampleMs'),
    interestPer8hPpb: fraction(c.interestPer8h, 9, 'interestPer8h'),
    interestClampPpb: fraction(c.interestClamp, 9, 'interestClamp'),
    fundingCapPpb: fraction(c.fundingCap, 9, 'fundingCap'),
    impactNotional: impact,
    maintenanceBps: fraction(c.maintenanceFraction, 4, 'maintenanceFraction'),
    liquidationSlippageBps: fraction(c.liquidationSlippage, 4, 'liquidationSlippage'),
    backstop,
    withdrawMinimum,
    withdrawFee,
  };
}

function bridgeConfig(file: GenesisFile): BridgeConfig {
  const b = file.bridge ?? {};
  const chains = b.chains === undefined ? (file.network === 'mainnet' ? MAINNET_BRIDGE_CHAINS : null)
    : b.chains.map((c, i) => intIn(c, 1, 2 ** 53 - 1, `bridge.chains[${i}]`));
  return {
    serviceChainId: file.chainId,
    // Validators stop signing 60 s before a deadline: a timeout of minutes leaves payouts time to land.
    withdrawalTimeoutSec: intIn(b.withdrawalTimeout ?? 86_400, 600, 30 * 86_400, 'bridge.withdrawalTimeout'),
    chains,
  };
}

const WEI_RE = /^(0|[1-9][0-9]{0,77})$/;

function wei(text: unknown, what: string): bigint {
  check(typeof text === 'string' && WEI_RE.test(text) && BigInt(text) < 2n ** 256n, `${what} must be a non-negative integer of wei as a decimal string`);
  return BigInt(text as string);
}

function evmGenesis(file: GenesisFile): EvmGenesis {
  const e = file.evm ?? { alloc: [] };
  const seen = new Set<string>();
  const alloc = e.alloc.map((a, i) => {
    const address = normalizeAddress(a.address);
    check(address !== null && !seen.has(address), `evm.alloc ${i}: address must be a unique 20-byte hex address`);
    seen.add(address);
    return { address, balance: wei(a.balance, `evm.alloc ${address} balance`) };
  });
  const gasLimit = wei(e.gasLimit ?? '30000000', 'evm.gasLimit');
  check(gasLimit >= 5_000_000n && gasLimit <= 1_000_000_000n, 'evm.gasLimit must be from 5000000 to 1000000000');
  const minBaseFee = wei(e.minBaseFee ?? '1000000000', 'evm.minBaseFee');
  check(minBaseFee >= 1n, 'evm.minBaseFee must be at least 1 wei');
  return { chainId: file.chainId, genesisTime: file.genesisTime, gasLimit, minBaseFee, alloc };
}

function stakingConfig(file: GenesisFile, spotTokens: readonly SpotTokenConfig[], validators: readonly OracleValidator[]): StakingConfig | undefined {
  const st = file.staking;
  if (st === undefined) return undefined;
  const token = spotTokens.find((t) => t.name === st.token);
  check(token !== undefined && token.index !== USDC_TOKEN_INDEX, 'staking.token must name a spot token other than USDC');
  const minWhole = parseScaled(st.minStake, 0);
  check(minWhole !== null && minWhole >= 1n && minWhole < 2n ** 50n, 'staking.minStake must be a whole number of tokens, at least 1');
  const maxValidators = intIn(st.maxValidators, 1, 1000, 'staking.maxValidators');
  check(validators.length <= maxValidators, 'the genesis names more validators than staking.maxValidators');
  const genesisOperators: Record<string, Address> = {};
  const operators = new Set<Address>();
  file.validators.forEach((v, i) => {
    if (v.operator === undefined) return;
    const operator = normalizeAddress(v.operator);
    check(operator !== null && !operators.has(operator), `validator ${i}: operator must be a unique 20-byte hex address`);
    operators.add(operator);
    genesisOperators[(validators[i] as OracleValidator).pubKey] = operator;
  });
  return {
    chainId: file.chainId,
    token: token.index,
    epochBlocks: intIn(st.epochBlocks, 1, 10_000_000, 'staking.epochBlocks'),
    minStake: minWhole * 10n ** BigInt(TOKEN_DECIMALS),
    maxValidators,
    unbondingDelayMs: intIn(st.unbondingDelayMs, 0, 365 * 86_400_000, 'staking.unbondingDelayMs'),
    delegationLockMs: intIn(st.delegationLockMs, 0, 365 * 86_400_000, 'staking.delegationLockMs'),
    genesisOperators,
  };
}

function apiConfig(file: GenesisFile): LoadedGenesis['api'] {
  const text = file.api?.stakerTierStake ?? DEFAULT_STAKER_TIER_STAKE;
  const v = typeof text === 'string' ? parseScaled(text, TOKEN_DECIMALS) : null;
  check(v !== null && v > 0n && v < 2n ** 90n, `api.stakerTierStake must be a positive decimal amount of the staking token with at most ${TOKEN_DECIMALS} decimals`);
  return { stakerTierStake: v };
}

export interface LoadOptions {
  /** On a devnet (no validators in the genesis), the node's own key is the single validator. */
  readonly localValidator?: string;
  /** The local validator's bridge signer address, on a devnet. */
  readonly localBridgeSigner?: Address;
}

export function loadGenesis(file: GenesisFile, opts: LoadOptions = {}): LoadedGenesis {
  const g = file.exchange;
  intIn(file.chainId, 1, 2 ** 32, 'chainId');
  check(['local', 'testnet', 'mainnet'].includes(file.network), 'network must be local, testnet or mainnet');
  check(file.network === 'local' || !file.auth.literalNonceBinding, 'literalNonceBinding is for local networks only');
  const appHashVersion = file.appHashVersion ?? 1;
  check(appHashVersion === 1 || appHashVersion === 2 || appHashVersion === 3, 'appHashVersion must be 1, 2 or 3');
  const hyperliquidChains = file.auth.hyperliquidChains ?? (file.network === 'local' ? ['Mainnet', 'Testnet'] : []);
  check(Array.isArray(hyperliquidChains) && hyperliquidChains.every((c) => c === 'Mainnet' || c === 'Testnet') && new Set(hyperliquidChains).size === hyperliquidChains.length,
    'auth.hyperliquidChains must list distinct "Mainnet" / "Testnet"');
  const names = new Set<string>();
  const perps = g.perps.map((p, i) => {
    check(!names.has(p.name) && TOKEN_NAME_RE.test(p.name), `perp ${i}: name must be unique, 1-10 uppercase letters or digits`);
    names.add(p.name);
    const szDecimals = intIn(p.szDecimals, 0, PERP_MAX_DECIMALS, `perp ${p.name} szDecimals`);
    return {
      name: p.name,
      szDecimals,
      maxLeverage: intIn(p.maxLeverage, 1, 100, `perp ${p.name} maxLeverage`),
      onlyIsolated: p.onlyIsolated ?? false,
      referencePx: scaled(p.referencePx, perpPxDecimals({ szDecimals }), `perp ${p.name} referencePx`),
      minSz: scaled(p.minSz, szDecimals, `perp ${p.name} minSz`),
    };
  });
  check(perps.length <= SPOT_ASSET_OFFSET, 'at most 10000 perps');
  check(g.spotTokens[0]?.name === 'USDC', 'the first spot token must be USDC (index 10000)');
  const tokenNames = new Set<string>();
  const spotTokens = g.spotTokens.map((t, i) => {
    check(!tokenNames.has(t.name) && TOKEN_NAME_RE.test(t.name), `spot token ${i}: name must be unique, 1-10 uppercase letters or digits`);
    tokenNames.add(t.name);
    return {
      name: t.name,
      szDecimals: intIn(t.szDecimals, 0, 8, `token ${t.name} szDecimals`),
      weiDecimals: intIn(t.weiDecimals, 0, 18, `token ${t.name} weiDecimals`),
      index: USDC_TOKEN_INDEX + i,
    };
  });
  const pairs = new Set<string>();
  const spotPairs = g.spotPairs.map((p, index) => {
    const base = spotTokens.find((t) => t.index === p.base);
    check(base !== undefined && spotTokens.some((t) => t.index === p.quote) && p.base !== p.quote, `spot pair ${index}: both tokens must be registered and distinct`);
    check(!pairs.has(`${p.base}/${p.quote}`), `spot pair ${index}: already exists`);
    pairs.add(`${p.base}/${p.quote}`);
    return {
      base: p.base,
      quote: p.quote,
      index,
      minSz: scaled(p.minSz, base.szDecimals, `spot pair ${index} minSz`),
      referencePx: scaled(p.referencePx, spotPxDecimals(base), `spot pair ${index} referencePx`),
    };
  });
  const seen = new Set<Address>();
  const balances = file.balances.map((b, i) => {
    const address = normalizeAddress(b.address);
    check(address !== null && !seen.has(address), `balance ${i}: address must be a unique 20-byte hex address`);
    seen.add(address);
    const usdc = parseScaled(b.usdc, USD_DECIMALS);
    check(usdc !== null && usdc >= 0n, `balance ${address}: usdc must be a non-negative decimal`);
    const tokens = Object.entries(b.spot ?? {}).map(([name, amount]) => {
      const token = spotTokens.find((t) => t.name === name);
      check(token !== undefined && token.index !== USDC_TOKEN_INDEX, `balance ${address}: ${name} is not a spot token other than USDC`);
      const v = parseScaled(amount, token.szDecimals);
      check(v !== null && v >= 0n, `balance ${address}: ${name} must be a non-negative decimal with at most ${token.szDecimals} decimals`);
      return { token: token.index, amount: v * 10n ** BigInt(TOKEN_DECIMALS - token.szDecimals) };
    });
    return { address, usdc, tokens };
  });
  const clearinghouse = clearinghouseConfig(file, opts, seen);
  const staking = stakingConfig(file, spotTokens, clearinghouse.validators);
  const exchange: ExchangeConfig = {
    perps,
    spotTokens,
    spotPairs,
    defaultLeverage: intIn(g.defaultLeverage, 1, 100, 'defaultLeverage'),
    maxOpenOrdersPerMarket: intIn(g.maxOpenOrdersPerMarket, 1, 100_000, 'maxOpenOrdersPerMarket'),
    nonceWindowMs: intIn(g.nonceWindowMs, 1000, 86_400_000, 'nonceWindowMs'),
    fees: {
      perpTakerPpm: fraction(g.fees?.perpTaker, 6, 'fees.perpTaker'),
      perpMakerPpm: fraction(g.fees?.perpMaker, 6, 'fees.perpMaker'),
      spotTakerPpm: fraction(g.fees?.spotTaker, 6, 'fees.spotTaker'),
      spotMakerPpm: fraction(g.fees?.spotMaker, 6, 'fees.spotMaker'),
    },
    priceBandBps: fraction(g.priceBand, 4, 'priceBand'),
    triggerSlippageBps: fraction(g.triggerSlippage, 4, 'triggerSlippage'),
    clearinghouse,
    bridge: bridgeConfig(file),
    ...(staking === undefined ? {} : { staking }),
  };
  const hash = bytesToHex(keccak256(utf8(canonicalize(file))));
  return { file, hash, exchange, balances, evm: evmGenesis(file), api: apiConfig(file), hyperliquidChains, appHashVersion };
}
