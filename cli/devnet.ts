// `svc devnet`: one command, one validator, funded development accounts.
import { DEV_ACCOUNT_USDC, DEV_ACCOUNT_WEI, DEV_ACCOUNTS, DEV_MNEMONIC, devnetGenesis } from '../genesis/index.ts';
import { DEFAULT_NODE_CONFIG, SvcNode, type NodeConfig } from '../node/index.ts';
import type { DevnetOptions } from './options.ts';

/** `ops`: logs, metrics and TLS (cli/ops-flags.ts). */
export async function runDevnet(opts: DevnetOptions, out: (line: string) => void, ops: Partial<NodeConfig> = {}): Promise<SvcNode> {
  const node = await SvcNode.start({
    ...DEFAULT_NODE_CONFIG,
    dataDir: opts.dataDir,
    genesis: devnetGenesis(),
    fresh: opts.fresh,
    host: opts.host,
    restPort: opts.restPort,
    wsPort: opts.wsPort,
    rpcPort: opts.rpcPort,
    oracleIntervalMs: opts.oracleIntervalMs,
    rateLimits: opts.rateLimits,
    bridgeChains: opts.bridgeChains.map((url) => ({ url, confirmations: opts.bridgeConfirmations, devDeploy: opts.bridgeToken === null ? {} : { token: opts.bridgeToken } })),
    indexerDb: opts.indexerDb,
    history: opts.history,
    explorer: opts.explorer,
    ...(opts.signerWorkers === null ? {} : { signerWorkers: opts.signerWorkers }),
    ...(opts.minBlockIntervalMs === null ? {} : { minBlockIntervalMs: opts.minBlockIntervalMs }),
    log: out,
    ...ops,
  });
  const g = node.genesis;
  out('svc devnet: single-validator local chain');
  out(`  chain id      ${g.file.chainId} (genesis ${g.hash})`);
  out(`  data dir      ${opts.dataDir}`);
  out(`  validator     ${node.validatorKey.publicKey}`);
  out(`  height        ${node.height}${node.height === 0 ? ' (new chain)' : ' (resumed)'}`);
  if (node.metricsPort !== null) out(`  metrics       http://${node.config.metricsHost}:${node.metricsPort}/metrics  (and /status)`);
  out(`  REST API      ${node.restUrl}  (POST /info, POST /exchange, GET /v1/...)`);
  if (node.wsUrl !== null) out(`  WebSocket     ${node.wsUrl}  (post requests and subscriptions)`);
  if (node.rpcUrl !== null) out(`  EVM JSON-RPC  ${node.rpcUrl}  (HTTP and WebSocket; chain id ${g.file.chainId}, eth_* methods)`);
  for (const c of node.bridgeChains) {
    out(`  bridge        chain ${c.chainId ?? '?'} at ${c.url}: SvcBridge ${c.contract ?? '?'}${c.token !== undefined ? `, USDC ${c.token}` : ''}`);
  }
  if (node.bridgeChains.length > 0) out(`  bridge signer ${node.bridgeSigner} (pays the gas of payouts)`);
  out('');
  out(`Funded development accounts, ${DEV_ACCOUNT_USDC} USDC and ${BigInt(DEV_ACCOUNT_WEI) / 10n ** 18n} ETH-equivalent (EVM) each (mnemonic "${DEV_MNEMONIC}"):`);
  DEV_ACCOUNTS.forEach((a, i) => out(`  (${i}) ${a.address}  key ${a.privateKey}`));
  out('');
  out('These keys are public: never use them outside a local devnet. Ctrl-C stops the node.');
  return node;
}
