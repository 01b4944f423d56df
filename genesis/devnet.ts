// The built-in devnet genesis: three perps, USDC plus one spot token and pair, funded dev accounts.
import { DEV_ACCOUNTS } from './dev-accounts.ts';
import type { GenesisFile } from './schema.ts';

/** USDC each development account starts with. */
export const DEV_ACCOUNT_USDC = '1000000';
/** The devnet's backstop liquidator (no key: only the exchange moves its funds), 10M USDC. */
export const DEVNET_BACKSTOP = '0x000000000000000000000000000000000000b5b5';

/** Native EVM balance of each development account: 10,000 (in wei, 18 decimals). */
export const DEV_ACCOUNT_WEI = '10000000000000000000000';

/** Stake (SVC) from which an address's API keys get the staker tier of historical reads. */
export const DEVNET_STAKER_TIER_STAKE = '10000';

/** SVC (spot token 10001) each development account starts with. */
export const DEV_ACCOUNT_SVC = '100000';

export function devnetGenesis(): GenesisFile {
  return {
    chainId: 42069,
    network: 'local',
    genesisTime: Date.UTC(2026, 0, 1),
    appHashVersion: 3,
    auth: { literalNonceBinding: true },
    exchange: {
      defaultLeverage: 20,
      maxOpenOrdersPerMarket: 1000,
      nonceWindowMs: 60_000,
      fees: { perpTaker: '0.00045', perpMaker: '0.00015', spotTaker: '0.0007', spotMaker: '0.0004' },
      priceBand: '0.8',
      triggerSlippage: '0.1',
      clearinghouse: {
        oracleStalenessMs: 60_000,
        fundingIntervalMs: 3_600_000,
        premiumSampleMs: 5_000,
        interestPer8h: '0.0001',
        interestClamp: '0.0005',
        fundingCap: '0.04',
        impactNotional: '20000',
        maintenanceFraction: '0.5',
        liquidationSlippage: '0.1',
        backstop: DEVNET_BACKSTOP,
      },
      perps: [
        { name: 'BTC', szDecimals: 5, maxLeverage: 50, referencePx: '100000', minSz: '0.0001' },
        { name: 'ETH', szDecimals: 4, maxLeverage: 50, referencePx: '3500', minSz: '0.001' },
        { name: 'SOL', szDecimals: 2, maxLeverage: 20, referencePx: '150', minSz: '0.1' },
      ],
      spotTokens: [
        { name: 'USDC', szDecimals: 8, weiDecimals: 8 },
        { name: 'SVC', szDecimals: 2, weiDecimals: 18 },
      ],
      spotPairs: [{ base: 10001, quote: 10000, minSz: '1', referencePx: '1' }],
    },
    balances: [
      ...DEV_ACCOUNTS.map((a) => ({ address: a.address, usdc: DEV_ACCOUNT_USDC, spot: { SVC: DEV_ACCOUNT_SVC } })),
      { address: DEVNET_BACKSTOP, usdc: '10000000' },
    ],
    validators: [],
    // Short epochs and delays so that staking can be watched on a devnet (its own key stays the
    // single validator of the single-validator engine, whatever the stake says).
    staking: { token: 'SVC', epochBlocks: 10, minStake: '1', maxValidators: 100, unbondingDelayMs: 60_000, delegationLockMs: 10_000 },
    // API keys of addresses staking at least this much SVC read history in the staker tier.
    api: { stakerTierStake: DEVNET_STAKER_TIER_STAKE },
    evm: {
      gasLimit: '30000000',
      minBaseFee: '1000000000',
      alloc: DEV_ACCOUNTS.map((a) => ({ address: a.address, balance: DEV_ACCOUNT_WEI })),
    },
  };
}
