// Where the event loop's time goes, by stage of the hot path: each stage's synchronous sections
// are timed with the monotonic clock and summed (wall time of code that does not wait, so CPU
// time unless the thread is preempted). Threads other than the event loop are named here by
// their Linux thread id, so a reader of /proc can attribute their CPU (docs/performance.md).
import { readlinkSync } from 'node:fs';

export type Stage = 'requests' | 'admission' | 'recovery' | 'consensus' | 'execution' | 'storage' | 'answers';

export const STAGES: readonly Stage[] = ['requests', 'admission', 'recovery', 'consensus', 'execution', 'storage', 'answers'];

const totals = new Float64Array(STAGES.length);
const index = new Map<Stage, number>(STAGES.map((s, i) => [s, i]));
const threads = new Map<number, string>();
const counters = new Map<string, number>();

/** Adds `n` to a named counter of the report (for instance messages to the signer workers and the jobs they carried). */
export function count(name: string, n = 1): void {
  counters.set(name, (counters.get(name) ?? 0) + n);
}

/** Adds the time since `startedAt` (a `performance.now()` reading) to `stage`. */
export function stageEnd(stage: Stage, startedAt: number): void {
  const i = index.get(stage) as number;
  totals[i] = (totals[i] as number) + performance.now() - startedAt;
}

/** Runs `fn` and adds its synchronous time to `stage`. */
export function timed<T>(stage: Stage, fn: () => T): T {
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    stageEnd(stage, t0);
  }
}

/** This thread's Linux thread id (from /proc/thread-self), or null where there is none. */
export function currentThreadId(): number | null {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return null;
  }
}

/** Names a thread of this process (a worker reports its id to the main thread, which names it). */
export function nameThread(tid: number | null, role: string): void {
  if (tid !== null) threads.set(tid, role);
}

export interface StageReport {
  /** Milliseconds of the event loop's synchronous work per stage since the process started. */
  readonly stagesMs: Record<Stage, number>;
  /** Thread id → role, for the threads the node started. */
  readonly threads: Record<string, string>;
  /** Named counters since the process started. */
  readonly counters: Record<string, number>;
  /** The main thread's V8 heap in use and its size (MB), to tell a leak from a heap that grew. */
  readonly heap: { readonly usedMb: number; readonly totalMb: number };
}

export function stageReport(): StageReport {
  return {
    stagesMs: Object.fromEntries(STAGES.map((s, i) => [s, Math.round((totals[i] as number) * 1000) / 1000])) as Record<Stage, number>,
    threads: Object.fromEntries(threads),
    counters: Object.fromEntries(counters),
    heap: { usedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20), totalMb: Math.round(process.memoryUsage().heapTotal / 2 ** 20) },
  };
}
