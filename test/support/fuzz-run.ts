// The fuzzers' run settings, in one place: how many inputs (a few hundred in `npm test`;
// DROVER_FUZZ_RUNS, or 10,000 under DROVER_SOAK=1), the seed (printed by every run; DROVER_FUZZ_SEED
// replays one), and a bound on each input so a hang is counted rather than waited for.
import { SOAK } from './soak.js';

/** Inputs per fuzzer: `npmTestRuns` unless DROVER_FUZZ_RUNS says otherwise, 10,000 in a soak. */
export function fuzzRuns(npmTestRuns: number): number {
  if (process.env.DROVER_FUZZ_RUNS) return Number(process.env.DROVER_FUZZ_RUNS);
  return SOAK ? 10_000 : npmTestRuns;
}

/** The run's seed: DROVER_FUZZ_SEED to replay, otherwise a fresh one. */
export function fuzzSeed(): number {
  return process.env.DROVER_FUZZ_SEED ? Number(process.env.DROVER_FUZZ_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
}

/** The promise, or a rejection with message "timeout" after `ms`. */
export function withinMs<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
