// genesis/: the genesis schema, its validation, and the built-in devnet genesis.
export type { AppHashVersion, GenesisFile, GenesisEvm, GenesisPerp, GenesisSpotToken, GenesisSpotPair, GenesisValidator, GenesisApi, Network } from './schema.ts';
export { loadGenesis, GenesisError, DEFAULT_STAKER_TIER_STAKE, type LoadedGenesis } from './load.ts';
export { devnetGenesis, DEVNET_STAKER_TIER_STAKE, DEV_ACCOUNT_USDC, DEV_ACCOUNT_WEI, DEVNET_BACKSTOP } from './devnet.ts';
export { DEV_ACCOUNTS, DEV_MNEMONIC } from './dev-accounts.ts';
