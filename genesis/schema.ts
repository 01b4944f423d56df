// The genesis file: what a chain starts from. Decimal amounts are strings, parsed exactly.
export type Network = 'local' | 'testnet' | 'mainnet';

export interface GenesisPerp {
  name: string;
  szDecimals: number;
  maxLeverage: number;
  onlyIsolated?: boolean;
  /** Reference price until the book and trades give one (decimal string). */
  referencePx: string;
  /** Minimum order size (decimal string, a multiple of the lot). */
  minSz: string;
}

export interface GenesisSpotToken {
  name: string;
  szDecimals: number;
  weiDecimals: number;
}

export interface GenesisSpotPair {
  /** Token indices (10000 = USDC). */
  base: number;
  quote: number;
  minSz: string;
  /** Reference price until the book and trades give one (decimal string, in quote per base). */
  referencePx: string;
}

export interface GenesisValidator {
  /** Hex-encoded ed25519 public key (32 bytes). */
  pubKey: string;
  power: number;
  /** The validator's secp256k1 bridge signer address (withdrawal signatures); `svc keys` prints it. */
  bridgeSigner?: string;
  /** With staking: the account that owns the validator's genesis stake (`power` whole tokens) and operates it. */
  operator?: string;
}

/** Staking of a spot token (docs/consensus.md, Staking). Absent: the genesis validators stay with their power. */
export interface GenesisStaking {
  /** Name of the spot token staked ("SVC"). */
  token: string;
  /** The validator set is recomputed at the end of every block whose height is a multiple of this. */
  epochBlocks: number;
  /** Least stake of an active validator, whole tokens (decimal string, at least 1). */
  minStake: string;
  maxValidators: number;
  /** Delay of `cWithdraw` (staking balance back to spot), ms. */
  unbondingDelayMs: number;
  /** A delegation cannot be taken back until this long after it was made, ms. */
  delegationLockMs: number;
}

/** How each block's app hash writes the block's outputs (docs/consensus.md, App hash). */
export type AppHashVersion = 1 | 2 | 3;

export interface GenesisFile {
  chainId: number;
  network: Network;
  /** Milliseconds since the epoch; block times start after it. */
  genesisTime: number;
  /**
   * How each block's app hash writes and hashes the block's outputs (docs/consensus.md, App hash):
   * 3, compact records of fills and order statuses under SHA-256, for new chains (the devnet's and
   * `svc testnet`'s); 2, the same records under Keccak-256; absent or 1, their canonical JSON
   * (chains started before version 2). A chain keeps its version: its stored blocks replay to the
   * app hashes they recorded.
   */
  appHashVersion?: AppHashVersion;
  auth: {
    /** Whether the spec's literal binding (connectionId = nonce) is accepted besides the action binding. */
    literalNonceBinding: boolean;
    /**
     * The Hyperliquid dialect's signing: the Hyperliquid chains whose signatures are accepted
     * ("Mainnet" = source "a", "Testnet" = source "b"), or [] to refuse the dialect. A signature
     * made for Hyperliquid's own chains is valid here too (see docs/hyperliquid.md). Absent: both
     * on a local network, none on testnet and mainnet.
     */
    hyperliquidChains?: ('Mainnet' | 'Testnet')[];
  };
  exchange: {
    defaultLeverage: number;
    maxOpenOrdersPerMarket: number;
    nonceWindowMs: number;
    /** Fee rates as decimal fractions of notional, e.g. "0.00045" = 4.5 bps. */
    fees: { perpTaker: string; perpMaker: string; spotTaker: string; spotMaker: string };
    /** Limit prices at most this fraction away from the oracle, e.g. "0.8". */
    priceBand: string;
    /** Triggered market orders fill at most this fraction through the mark, e.g. "0.1". */
    triggerSlippage: string;
    clearinghouse: {
      /** Oracle submissions older than this no longer count. */
      oracleStalenessMs: number;
      fundingIntervalMs: number;
      premiumSampleMs: number;
      /** Interest per 8 hours and the clamp around it, as fractions ("0.0001" = 0.01%). */
      interestPer8h: string;
      interestClamp: string;
      /** Funding rate cap per interval, as a fraction ("0.04"). */
      fundingCap: string;
      /** USDC notional the impact prices are measured for. */
      impactNotional: string;
      /** Maintenance margin as a fraction of the initial margin at maximum leverage ("0.5"). */
      maintenanceFraction: string;
      liquidationSlippage: string;
      /** Backstop liquidator; fund it in `balances`. */
      backstop: string;
      /** Smallest withdrawal and the bridge fee taken from it, USDC (defaults "10" and "1", the spec's). */
      withdrawMinimum?: string;
      withdrawFee?: string;
    };
    perps: GenesisPerp[];
    /** Listed in index order from 10000; the first must be USDC. */
    spotTokens: GenesisSpotToken[];
    /** Listed in pair-index order from 0. */
    spotPairs: GenesisSpotPair[];
  };
  /** USDC collateral and spot tokens (by token name) credited at genesis, as decimal strings. */
  balances: { address: string; usdc: string; spot?: Record<string, string> }[];
  /** Empty on a devnet: the node's own key is the single validator. */
  validators: GenesisValidator[];
  /** The bridge to external EVM chains (docs/bridge.md); absent: the defaults. */
  bridge?: GenesisBridge;
  staking?: GenesisStaking;
  /** Settings of the nodes' API shared by the whole network; absent: the defaults. */
  api?: GenesisApi;
  /** The embedded EVM; its chain id is `chainId`. Absent: an EVM with no funded accounts. */
  evm?: GenesisEvm;
}

export interface GenesisBridge {
  /** Seconds a withdrawal may take to be paid out before it is refunded (its deadline); default 86400. */
  withdrawalTimeout?: number;
  /** Chain ids validators may register bridges on; default: the spec's four on mainnet, any elsewhere. */
  chains?: number[];
}

export interface GenesisEvm {
  /** Block gas limit (decimal string); default 30000000. */
  gasLimit?: string;
  /** Base fee floor and the genesis block's base fee, in wei (decimal string); default 1 gwei. */
  minBaseFee?: string;
  /** Native balances at genesis, in wei (decimal strings). */
  alloc: { address: string; balance: string }[];
}

export interface GenesisApi {
  /**
   * Stake (delegated + undelegated staking balance, in tokens of `staking.token`, decimal string)
   * from which an address's API keys read history in the staker tier (docs/api.md, Rate limits);
   * default "10000". Without `staking` no address stakes, so the tier is unreachable.
   */
  stakerTierStake?: string;
}
