// Latency statistics, and the interleaving that makes an operation and its raw baseline share
// the machine's noise: blocks of calls alternate, and which side goes first alternates too.
import { performance } from 'node:perf_hooks';

export interface Timings {
  /** Milliseconds, one per call. */
  latencies: number[];
}

export interface Summary {
  calls: number;
  opsPerSecond: number;
  p50: number;
  p99: number;
}

export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Nearest-rank percentile. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function summarise(latencies: number[]): Summary {
  const sorted = [...latencies].sort((a, b) => a - b);
  const total = latencies.reduce((a, b) => a + b, 0);
  return {
    calls: latencies.length,
    opsPerSecond: (latencies.length / total) * 1000,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

/**
 * Runs `calls` calls of `op` and of `raw`, in alternating blocks of `block`; each side's call
 * index runs 0..calls-1. Returns each side's latencies.
 */
export async function interleave(
  calls: number,
  block: number,
  op: (i: number) => Promise<unknown>,
  raw: (i: number) => Promise<unknown>,
): Promise<{ op: number[]; raw: number[] }> {
  const out = { op: [] as number[], raw: [] as number[] };
  const runBlock = async (side: 'op' | 'raw', from: number, to: number) => {
    for (let i = from; i < to; i++) out[side].push(await timed(() => (side === 'op' ? op(i) : raw(i))));
  };
  for (let from = 0, b = 0; from < calls; from += block, b++) {
    const to = Math.min(calls, from + block);
    const [first, second] = b % 2 === 0 ? (['op', 'raw'] as const) : (['raw', 'op'] as const);
    await runBlock(first, from, to);
    await runBlock(second, from, to);
  }
  return out;
}

/** Runs `fn` over `items`, at most `limit` at a time (untimed setup only). */
export async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
