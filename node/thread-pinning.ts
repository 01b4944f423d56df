// `--pin-event-loop`: the event loop on one CPU, every other thread of the process on the rest.
// The event loop is the node's one serial stage; the scheduler otherwise often runs a thread it
// woke (a collector helper, a signer worker, a LevelDB write) on its core while the other core
// idles, and it waits: on two cores under the batch load it was runnable but off its core about
// a fifth of the time with the machine 15% idle (docs/performance.md). Opt-in: several nodes on
// one machine (`svc testnet`) would all pin to the same CPU.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';

/** native/thread-affinity (affinity.c). */
interface AffinityAddon {
  /** The CPUs the calling thread may run on, ascending ([] where unknown). */
  allowed(): number[];
  /** Thread `tid` of this process on `cpus` only: "" when done, else why not. */
  pin(tid: number, cpus: number[]): string;
}

/** New threads inherit their creator's CPUs (the event loop's, for most): swept onto the others this often. */
const SWEEP_MS = 1000;

export interface ThreadPinning {
  readonly eventLoop: number;
  readonly others: readonly number[];
  /** Threads pinned to `others` so far. */
  readonly pinned: number;
  /** Stops sweeping and gives every thread all the CPUs back. */
  stop(): void;
}

function loadAddon(): AffinityAddon | string {
  try {
    const addon = createRequire(import.meta.url)('svc-thread-affinity') as Partial<AffinityAddon>;
    if (typeof addon.allowed !== 'function' || typeof addon.pin !== 'function') return 'the thread-affinity addon is of another version';
    return addon as AffinityAddon;
  } catch (err) {
    return `the thread-affinity addon did not build (${(err as Error).message.split('\n')[0]})`;
  }
}

/** This process's thread ids (Linux). */
function threadIds(): number[] {
  return readdirSync('/proc/self/task').map(Number).filter((t) => Number.isSafeInteger(t) && t > 0);
}

/**
 * Pins the main thread (the event loop) to the first CPU it may use and every other thread to the
 * rest, then keeps sweeping new threads onto the rest. A string says why it could not.
 */
export function pinEventLoop(warn: (line: string) => void): ThreadPinning | string {
  if (process.platform !== 'linux') return 'thread affinity is set on Linux only';
  if (!isMainThread) return 'the node runs on a worker thread, not the process\'s event loop';
  const addon = loadAddon();
  if (typeof addon === 'string') return addon;
  const cpus = addon.allowed();
  if (cpus.length < 2) return `this process may use ${cpus.length} CPU: nothing to keep the event loop apart on`;
  const eventLoop = cpus[0] as number;
  const others = cpus.slice(1);
  const main = process.pid; // the thread group's leader is the main thread
  const failed = addon.pin(main, [eventLoop]);
  if (failed !== '') return `the event loop could not be pinned: ${failed}`;
  const seen = new Set<number>([main]);
  let pinned = 0;
  let warned = false;
  const sweep = () => {
    const live = new Set(threadIds());
    // Forget ended threads: a new thread may get a freed id.
    for (const tid of seen) if (!live.has(tid)) seen.delete(tid);
    seen.add(main);
    for (const tid of live) {
      if (seen.has(tid)) continue;
      seen.add(tid);
      const why = addon.pin(tid, others);
      if (why === '') pinned++;
      // A thread that ended between the listing and the call is no failure.
      else if (why !== 'not a thread of this process' && !warned) {
        warned = true;
        warn(`pin-event-loop: thread ${tid} could not be moved off the event loop's CPU: ${why}`);
      }
    }
  };
  sweep();
  const timer = setInterval(sweep, SWEEP_MS);
  timer.unref();
  return {
    eventLoop,
    others,
    get pinned() {
      return pinned;
    },
    // Every thread back on all the CPUs it had (a process that goes on after its node stops).
    stop: () => {
      clearInterval(timer);
      for (const tid of threadIds()) addon.pin(tid, cpus);
    },
  };
}
