// Bounded parallelism for reads and provider calls: at most `limit` promises in flight.
/** Runs `fn` over `items`, at most `limit` at a time; resolves when all have settled. */
export async function forEachBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const bounded = limiter(limit);
  await Promise.all(items.map((item) => bounded(() => fn(item))));
}

/** Runs each task given to it, at most `limit` at a time, in the order given. */
export function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= Math.max(1, limit)) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
