// Seeds of property tests: replayable from the environment, printed with every run.

/** A property test's seed: `SEED` from the environment, else `fallback`; printed so a failure can be replayed. */
export function replaySeed(t: { comment(message: string): void }, fallback: number): number {
  const seed = Number(process.env.SEED ?? fallback);
  t.comment(`seed ${seed} (SEED=... to replay)`);
  return seed;
}
