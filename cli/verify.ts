// `svc verify`: rebuilds a stopped node's state two ways and compares them (node/verify.ts).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { verifyDataDir, type RebuiltState } from '../node/index.ts';
import { UsageError } from './options.ts';

export const VERIFY_USAGE = `Usage: svc verify (--home DIR | --data-dir DIR) [--json]

Checks the data directory of a stopped node. On a copy of it, the state is rebuilt as start-up
rebuilds it (the last snapshot, then the blocks after it) and again from genesis and the stored
blocks alone; every block must replay to the app hash the chain recorded, and both ways must end
in the same height, app hash, state hash and EVM state root. Needs free space for a copy of db/
and evm/. Exits 0 when the directory verifies, 1 otherwise.`;

const line = (name: string, s: RebuiltState) =>
  `${name.padEnd(13)} from height ${s.from}, ${s.blocksReplayed} blocks replayed: height ${s.height}, app hash ${s.appHash}, state hash ${s.stateHash}, EVM root ${s.evmStateRoot}`;

export async function runVerify(argv: string[], out: (line: string) => void): Promise<number> {
  let v;
  try {
    ({ values: v } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: { home: { type: 'string' }, 'data-dir': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (v.help === true) return out(VERIFY_USAGE), 0;
  const dir = v.home ?? v['data-dir'];
  if (dir === undefined || (v.home !== undefined && v['data-dir'] !== undefined)) throw new UsageError(`give --home or --data-dir\n\n${VERIFY_USAGE}`);
  const report = await verifyDataDir(resolve(dir), { log: v.json === true ? () => {} : out });
  if (v.json === true) out(JSON.stringify(report));
  else {
    out(line('start-up', report.startup));
    out(line('from genesis', report.fromGenesis));
    out(report.problems.length === 0 ? 'verified: both ways agree' : `NOT verified:\n  ${report.problems.join('\n  ')}`);
  }
  return report.problems.length === 0 ? 0 : 1;
}
