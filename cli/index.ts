// cli/: the `svc` command. Returns an exit code; the process is ended by bin/svc.js.
import { NodeStartError } from '../node/index.ts';
import { GenesisError } from '../genesis/index.ts';
import { stageReport } from '../primitives/index.ts';
import { runDevnet } from './devnet.ts';
import { DEVNET_USAGE, UsageError, parseDevnetOptions } from './options.ts';
import { runInit, runKeys, runStart, runTestnet } from './testnet.ts';
import { OPS_USAGE, opsLogger, opsNodeConfig, takeOpsFlags } from './ops-flags.ts';
import { runStatus } from './status.ts';
import { runVerify } from './verify.ts';
import { processIo, type Io } from './trade/io.ts';

/** The client commands (cli/trade/, loaded only when one runs: node commands start without it). */
const CLIENT_COMMANDS = new Set(['keys', 'balance', 'positions', 'orders', 'book', 'order', 'cancel', 'transfer', 'withdraw', 'leverage', 'agent', 'deploy', 'tail']);

const USAGE = `Usage: svc <command> [options]

Commands:
  devnet    run a single-validator local chain (npm start)
  testnet   write a genesis and home directories for a local multi-validator network
  start     run the node of a home directory
  init      create a home directory to join an existing network
  keys      trading keys: new, import (mnemonic or private key), list; with --home: a node's validator key
  status    show a running node's height, peers, sync state and versions
  verify    rebuild a stopped node's state from its snapshot and from genesis, and compare
  help      show this help

Client commands (against a node, --node URL, default the local devnet at http://127.0.0.1:4001):
  balance [ADDRESS]                  USDC and spot balances
  positions [ADDRESS]                open perpetual positions
  orders [ADDRESS]                   open orders
  book COIN                          the order book with depth
  order buy|sell COIN SIZE [PRICE]   limit (or market, without PRICE) order; --tif, --reduce-only
  cancel COIN OID...                 cancel orders
  transfer ADDRESS AMOUNT            send USDC to another account
  withdraw ADDRESS AMOUNT            withdraw USDC through the bridge
  leverage COIN N                    set leverage (--isolated)
  agent approve ADDRESS | revoke     API wallets
  deploy token NAME | pair BASE QUOTE  list a spot token or pair
  tail [COIN...]                     live trades (and --user fills)
Sign with --key NAME (see "svc keys"), --private-key, or --dev N (a devnet account); --json for scripts.

Run "svc <command> --help" for its options.

devnet and start also take:
${OPS_USAGE}`;

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (sig: NodeJS.Signals) => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      resolve(sig);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}

/** Serves until Ctrl-C or SIGTERM, then stops the node cleanly; a second signal forces exit. */
async function serveUntilSignal(node: { stop(): Promise<void>; readonly height: number }, out: (line: string) => void): Promise<number> {
  // SIGUSR2 prints where the event loop's time went, by stage (docs/performance.md).
  const report = () => out(`stages ${JSON.stringify(stageReport())}`);
  process.on('SIGUSR2', report);
  const sig = await waitForSignal();
  process.off('SIGUSR2', report);
  out(`\n${sig}: stopping (a second signal forces exit)`);
  const force = () => process.exit(130);
  process.once('SIGINT', force);
  process.once('SIGTERM', force);
  await node.stop();
  out(`stopped at height ${node.height}`);
  return 0;
}

export { parseDevnetOptions, UsageError } from './options.ts';
export { runStatus, formatStatus } from './status.ts';
export { takeOpsFlags, opsNodeConfig, type OpsFlags } from './ops-flags.ts';
export type { Io } from './trade/io.ts';

/** Wallet keys (`keys new|import|list`) rather than a home's validator key (`keys --home <dir>`). */
function isWalletKeys(rest: readonly string[]): boolean {
  return !rest.some((a) => a === '--home' || a.startsWith('--home='));
}

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  const out = io.out;
  if (command !== undefined && CLIENT_COMMANDS.has(command) && (command !== 'keys' || isWalletKeys(rest))) {
    const { describeError, runClientCommand } = await import('./trade/index.ts');
    try {
      return await runClientCommand(command, rest, io);
    } catch (err) {
      if (err instanceof UsageError) {
        io.err(`svc ${command}: ${err.message}`);
        return 2;
      }
      const plain = describeError(err);
      if (plain === null) throw err;
      io.err(`svc ${command}: ${plain}`);
      return 1;
    }
  }
  try {
    switch (command) {
      case 'devnet': {
        const { rest: args, ops } = takeOpsFlags(rest);
        const opts = parseDevnetOptions(args, process.env);
        if (opts === 'help') return void out(`${DEVNET_USAGE}\n\n${OPS_USAGE}`), 0;
        const logger = opsLogger(ops);
        const nodeOps = await opsNodeConfig(ops, logger);
        return serveUntilSignal(await runDevnet(opts, logger.info, nodeOps), logger.info);
      }
      case 'testnet':
        await runTestnet(rest, out);
        return 0;
      case 'init':
        await runInit(rest, out);
        return 0;
      case 'keys':
        await runKeys(rest, out);
        return 0;
      case 'start': {
        const { rest: args, ops } = takeOpsFlags(rest);
        const started = await runStart(args, out, ops);
        return started === null ? 0 : serveUntilSignal(started.node, started.out);
      }
      case 'status':
        return await runStatus(rest, out);
      case 'verify':
        return await runVerify(rest, out);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`svc: ${err.message}`);
      return 2;
    }
    if (err instanceof NodeStartError || err instanceof GenesisError) {
      console.error(`svc: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
