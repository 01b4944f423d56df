// The built-in devnet genesis: three perps, USDC plus one spot token and pair, funded dev accounts.
import { DEV_ACCOUNTS } from './dev-accounts.ts';
import type { GenesisFile } from './schema.ts';

/** USDC each development account starts with. */
export const DEV_ACCOUNT_USDC = '1000000';
/** SVC (spot token 10001) each development account starts with. */
export const DEV_ACCOUNT_SVC = '100000';

export function devnetGenesis(): GenesisFile {
  return {
    chainId: 42069,
    network: 'local',
    genesisTime: Date.UTC(2026, 0, 1),
    auth: { literalNonceBinding: true },
    exchange: {
      defaultLeverage: 20,
      maxOpenOrdersPerMarket: 1000,
      nonceWindowMs: 60_000,
      fees: { perpTaker: '0.00045', perpMaker: '0.00015', spotTaker: '0.0007', spotMaker: '0.0004' },
      priceBand: '0.8',
      triggerSlippage: '0.1',
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
    balances: DEV_ACCOUNTS.map((a) => ({ address: a.address, usdc: DEV_ACCOUNT_USDC, spot: { SVC: DEV_ACCOUNT_SVC } })),
    validators: [],
  };
}
