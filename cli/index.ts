// cli/: the `svc` command. Returns an exit code; the process is ended by bin/svc.js.
import { NodeStartError } from '../node/index.ts';
import { GenesisError } from '../genesis/index.ts';
import { stageReport } from '../primitives/index.ts';
import { runDevnet } from './devnet.ts';
import { DEVNET_USAGE, UsageError, parseDevnetOptions } from './options.ts';
import { runInit, runKeys, runStart, runTestnet } from './testnet.ts';
import { OPS_USAGE, opsLogger, opsNodeConfig, takeOpsFlags } from './ops-flags.ts';
import { runStatus } from './status.ts';

const USAGE = `Usage: svc <command> [options]

Commands:
  devnet    run a single-validator local chain (npm start)
  testnet   write a genesis and home directories for a local multi-validator network
  start     run the node of a home directory
  init      create a home directory to join an existing network
  keys      show a home directory's validator key and p2p address
  status    show a running node's height, peers, sync state and versions
  help      show this help

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

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const out = (line: string) => console.log(line);
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
