// The crash campaign (issue #24): real nodes (`svc devnet`, or one validator of a 4-validator
// `svc testnet`) under the load generator's order flow (crash-sender.ts, in their own processes),
// killed with SIGKILL at seeded random moments and started again. After each kill, on a copy of
// the dead node's data directory: every action the node acknowledged is in its stored blocks,
// no action is there twice, the stored height is not below any height the node reported, and the
// state rebuilt as start-up does equals the state rebuilt from genesis and the blocks alone
// (node/verify.ts). After each restart the node reports a height no lower than before the kill
// (a validator of four catches up with the others). Some kills also tear the last write of one
// of the node's files (its LevelDB logs, the consensus WAL; cut short or a byte flipped): the node
// must repair it (the damaged write is lost, nothing before it) or refuse to start naming the file.
import { fork, type ChildProcess } from 'node:child_process';
import { cp, readFile, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanStoredActions, verifyDataDir } from '../../node/index.ts';
import { freeBasePort, height as heightOf, runSvc, startSvc, stopAll, type NodeProcess } from '../../bench/processes.ts';
import { mulberry32 } from './exchange.ts';
import type { CrashSenderConfig, CrashSenderMessage } from './crash-sender.ts';

const SENDER = fileURLToPath(new URL('./crash-sender.ts', import.meta.url));

/** A file whose last write a kill may tear. */
export type TornFile = 'db' | 'evm' | 'history' | 'wal';

export interface CrashOptions {
  readonly net: 'devnet' | 'testnet';
  readonly kills: number;
  readonly seed: number;
  /** Actions a second offered in total. */
  readonly rate: number;
  /** Each run before a kill lasts a random time in this range, ms. */
  readonly runMs: readonly [number, number];
  /** Every this many kills (0: never), the last write of one of these files is torn, in turn. */
  readonly tearEvery: number;
  readonly tear: readonly TornFile[];
  readonly workDir: string;
  readonly log?: (line: string) => void;
}

export interface KillRecord {
  readonly kill: number;
  /** The node killed (a testnet's index; 0 on a devnet). */
  readonly node: number;
  readonly ranMs: number;
  readonly sent: number;
  readonly acked: number;
  /** The highest height the node reported before the kill, and its stored head after it. */
  readonly heightSeen: number;
  readonly storedHeight: number;
  /** The file torn, what was cut, and the height the node came back at. */
  readonly torn: string | null;
  readonly verifyMs: number;
  readonly restartMs: number;
  /** Testnet: ms from the restart to reaching the others' height. */
  readonly catchUpMs: number;
}

export interface CrashReport {
  readonly kills: readonly KillRecord[];
  readonly acknowledged: number;
  readonly actionsInChain: number;
  /** Problems found; empty when the campaign passed. */
  readonly problems: readonly string[];
  readonly seconds: number;
}

interface SenderRun {
  readonly proc: ChildProcess;
  readonly acks: (readonly [string, number])[];
  readonly done: Promise<Extract<CrashSenderMessage, { kind: 'done' }>>;
}

function startSender(cfg: CrashSenderConfig): Promise<SenderRun> {
  const proc = fork(SENDER, [], { env: { ...process.env, CRASH_SENDER: JSON.stringify(cfg) }, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const acks: (readonly [string, number])[] = [];
  let ready: () => void = () => {};
  let resolveDone: (m: Extract<CrashSenderMessage, { kind: 'done' }>) => void = () => {};
  const done = new Promise<Extract<CrashSenderMessage, { kind: 'done' }>>((resolve, reject) => {
    resolveDone = resolve;
    proc.once('exit', (code) => reject(new Error(`the crash sender exited with ${code} before reporting`)));
  });
  done.catch(() => {});
  proc.on('message', (m: CrashSenderMessage) => {
    if (m.kind === 'ready') ready();
    else if (m.kind === 'acks') acks.push(...m.acks);
    else resolveDone(m);
  });
  return new Promise((resolve, reject) => {
    ready = () => resolve({ proc, acks, done });
    done.catch(reject);
  });
}

/** Waits (bounded) for a condition; throws `what` when it does not come. */
async function until(what: string, timeoutMs: number, cond: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function killed(n: NodeProcess): Promise<void> {
  return new Promise((resolve) => {
    if (n.proc.exitCode !== null || n.proc.signalCode !== null) return resolve();
    n.proc.once('exit', () => resolve());
    n.proc.kill('SIGKILL');
  });
}

/** The newest file of a kind in a directory. */
async function newest(dir: string, suffix: string): Promise<string | null> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(suffix)).sort();
  return names.length === 0 ? null : join(dir, names[names.length - 1] as string);
}

/**
 * Damages the file's last write: cuts 1..64 bytes off its end (a torn write), or flips a byte in
 * its last 64 (a corrupted one). Returns what was done, or null when the file is empty.
 */
async function tearTail(file: TornFile, dataDir: string, rand: () => number, flip: boolean): Promise<string | null> {
  const path = file === 'wal' ? join(dataDir, 'consensus.wal') : await newest(join(dataDir, file), '.log');
  if (path === null) return null;
  const size = (await stat(path).catch(() => null))?.size ?? 0;
  if (size === 0) return null;
  const n = 1 + Math.floor(rand() * Math.min(64, size));
  const name = path.slice(dataDir.length + 1);
  if (!flip) {
    await truncate(path, size - n);
    return `${name}: ${n} of ${size} bytes cut`;
  }
  const bytes = await readFile(path);
  bytes[size - n] = (bytes[size - n] as number) ^ 0x5a;
  await writeFile(path, bytes);
  return `${name}: byte ${size - n} of ${size} flipped`;
}

export async function runCrashCampaign(opts: CrashOptions): Promise<CrashReport> {
  const log = opts.log ?? (() => {});
  const rand = mulberry32(opts.seed);
  const t0 = performance.now();
  const problems: string[] = [];
  const kills: KillRecord[] = [];
  const acknowledged = new Set<string>();
  const excused = new Set<string>();
  const svcArgs = (dataDir: string) => ['devnet', '--data-dir', dataDir, '--rest-port', '0', '--ws-port', '0', '--rpc-port', '0', '--oracle-interval', '0', '--no-explorer'];
  // The nodes, their data directories and how each is started again.
  const nodes: NodeProcess[] = [];
  const dirs: string[] = [];
  if (opts.net === 'devnet') {
    dirs.push(join(opts.workDir, 'devnet'));
    nodes.push(await startSvc(svcArgs(dirs[0] as string)));
  } else {
    const base = await freeBasePort(4);
    const net = join(opts.workDir, 'testnet');
    await runSvc(['testnet', '--validators', '4', '--out', net, '--base-port', String(base)]);
    for (let i = 0; i < 4; i++) dirs.push(join(net, `node${i}`));
    const started = await Promise.allSettled(dirs.map((d) => startSvc(['start', '--home', d])));
    for (const s of started) if (s.status === 'fulfilled') nodes.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed !== undefined) {
      for (const n of nodes) await killed(n);
      throw (failed as PromiseRejectedResult).reason;
    }
  }
  const restart = (i: number) => (opts.net === 'devnet' ? startSvc(svcArgs(dirs[i] as string)) : startSvc(['start', '--home', dirs[i] as string]));
  const heights = () => Promise.all(nodes.map((n) => heightOf(n.rest)));
  await until('the chain to commit', 60_000, async () => (await heights()).every((h) => h >= 2));
  // Accounts 0..7 trade; their nonces and the flow's position carry over from run to run.
  const accounts: [number, number] = [0, 8];
  let lastNonces: number[] = [];
  let nextAction = 0;
  let maxSeen = nodes.map(() => 0);
  try {
    for (let kill = 1; kill <= opts.kills; kill++) {
      // On a testnet, the victim is any validator; load goes to all of them.
      const victim = opts.net === 'devnet' ? 0 : Math.floor(rand() * nodes.length);
      const sender = await startSender({
        urls: nodes.map((n) => n.ws), mix: 'mixed', rate: opts.rate, window: 64, accounts, firstAction: nextAction, lastNonces, cloidBase: 1e12,
      });
      const ranMs = opts.runMs[0] + Math.floor(rand() * (opts.runMs[1] - opts.runMs[0]));
      const runEnd = Date.now() + ranMs;
      while (Date.now() < runEnd) {
        const hs = await heights();
        maxSeen = maxSeen.map((m, i) => Math.max(m, hs[i] as number));
        await new Promise((r) => setTimeout(r, Math.min(50, Math.max(0, runEnd - Date.now()))));
      }
      const node = nodes[victim] as NodeProcess;
      await killed(node);
      // On a testnet the others keep running: the sender is stopped, its answers from them counted.
      if (opts.net === 'testnet') sender.proc.send({ kind: 'stop' });
      const report = await sender.done;
      lastNonces = [...report.lastNonces];
      nextAction = report.nextAction;
      for (const [who, nonce] of sender.acks) acknowledged.add(`${who}:${nonce}`);
      const dir = dirs[victim] as string;
      let torn: string | null = null;
      const tearing = opts.tearEvery > 0 && kill % opts.tearEvery === 0 && opts.tear.length > 0;
      const tearFile = opts.tear[(Math.floor(kill / Math.max(1, opts.tearEvery)) - 1) % opts.tear.length] as TornFile;
      // The dead node's directory, checked on a copy: acknowledged actions, duplicates, heights, state.
      const copy = join(opts.workDir, 'copy');
      await rm(copy, { recursive: true, force: true });
      await cp(dir, copy, { recursive: true });
      const v0 = performance.now();
      const verified = await verifyDataDir(copy, { inPlace: true });
      const verifyMs = performance.now() - v0;
      for (const p of verified.problems) problems.push(`kill ${kill}: ${p}`);
      const inChain = new Map<string, number>();
      const stored = await scanStoredActions(copy, (h, signer, nonce) => {
        const k = `${signer}:${nonce}`;
        if (inChain.has(k)) problems.push(`kill ${kill}: action ${k} is in block ${inChain.get(k)} and again in block ${h}`);
        inChain.set(k, h);
      });
      if (stored < (maxSeen[victim] as number)) problems.push(`kill ${kill}: node ${victim} reported height ${maxSeen[victim]} but stored only ${stored}`);
      if (opts.net === 'devnet') {
        for (const k of acknowledged) if (!inChain.has(k) && !excused.has(k)) problems.push(`kill ${kill}: acknowledged action ${k} is not in the stored blocks`);
      }
      if (tearing) {
        // Each file alternates between a torn and a corrupted last write, neighbours starting apart.
        const nth = Math.floor(kill / opts.tearEvery) - 1;
        const flip = (Math.floor(nth / opts.tear.length) + (nth % opts.tear.length)) % 2 === 1;
        const cut = await tearTail(tearFile, dir, rand, flip);
        if (cut !== null) torn = cut;
      }
      const r0 = performance.now();
      let restarted: NodeProcess;
      try {
        restarted = await restart(victim);
      } catch (err) {
        // A torn write may be refused, but only with the file named.
        const message = (err as Error).message;
        if (torn !== null && message.includes(torn.split(':')[0] as string)) {
          problems.push(`kill ${kill}: the node refused to start after ${torn}; the campaign cannot go on: ${message.slice(0, 300)}`);
        } else problems.push(`kill ${kill}: the node did not start again: ${message.slice(0, 500)}`);
        break;
      }
      nodes[victim] = restarted;
      const restartMs = performance.now() - r0;
      const after = await heightOf(restarted.rest);
      if (torn !== null && tearFile !== 'wal') {
        // A start checks the databases' logs: a damaged last write is named in a warning (node/data-check.ts).
        const name = torn.split(':')[0] as string;
        if (!restarted.output().includes(name)) problems.push(`kill ${kill}: the node started after ${torn} without naming ${name}`);
      }
      if (torn !== null) {
        // What the torn write held is lost, nothing before it: on a devnet, acknowledged actions
        // above the height the node came back at are excused (their block was the torn write); a
        // validator of a network fetches that block from the others again.
        if (opts.net === 'devnet') for (const [k, h] of inChain) if (h > after) excused.add(k);
        torn = `${torn}; back at height ${after} of ${stored}`;
        if (stored - after > 1) problems.push(`kill ${kill}: tearing ${tearFile} lost ${stored - after} blocks, more than the last write`);
      } else if (after < stored) problems.push(`kill ${kill}: the node came back at height ${after}, below its stored ${stored}`);
      let catchUpMs = 0;
      if (opts.net === 'testnet') {
        const c0 = performance.now();
        const target = Math.max(...(await heights()).filter((_, i) => i !== victim));
        await until(`node ${victim} to catch up with height ${target}`, 60_000, async () => (await heightOf(restarted.rest)) >= target);
        catchUpMs = performance.now() - c0;
      }
      // A damaged write may take the last block back; otherwise the height only grows.
      maxSeen[victim] = torn === null ? Math.max(after, maxSeen[victim] as number) : after;
      const record: KillRecord = {
        kill, node: victim, ranMs, sent: report.sent, acked: report.acked, heightSeen: maxSeen[victim] as number, storedHeight: stored, torn, verifyMs, restartMs, catchUpMs,
      };
      kills.push(record);
      log(`kill ${kill}: node ${victim} after ${ranMs} ms, ${report.acked}/${report.sent} acknowledged, stored height ${stored}, ${inChain.size} actions in chain, verify ${verifyMs.toFixed(0)} ms, restart ${restartMs.toFixed(0)} ms${catchUpMs > 0 ? `, caught up in ${catchUpMs.toFixed(0)} ms` : ''}${torn === null ? '' : `, torn ${torn}`}`);
      if (problems.length > 0) break;
    }
    // The end: every node stopped cleanly, each directory checked once more, and every
    // acknowledged action in every node's chain.
    await stopAll(nodes);
    let actionsInChain = 0;
    const ends: string[] = [];
    for (const [i, dir] of dirs.entries()) {
      const verified = await verifyDataDir(dir);
      for (const p of verified.problems) problems.push(`end, node ${i}: ${p}`);
      ends.push(`${verified.startup.height}`);
      const inChain = new Set<string>();
      await scanStoredActions(dir, (_h, signer, nonce) => inChain.add(`${signer}:${nonce}`));
      actionsInChain = Math.max(actionsInChain, inChain.size);
      for (const k of acknowledged) if (!inChain.has(k) && !excused.has(k)) problems.push(`end, node ${i}: acknowledged action ${k} is not in its chain`);
    }
    log(`end: stored heights ${ends.join(', ')}; ${acknowledged.size} actions acknowledged, ${excused.size} excused by torn writes`);
    return { kills, acknowledged: acknowledged.size, actionsInChain, problems: problems.slice(0, 50), seconds: (performance.now() - t0) / 1000 };
  } finally {
    await stopAll(nodes).catch(() => {});
    for (const n of nodes) await killed(n);
  }
}
