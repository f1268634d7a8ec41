// Every item of a sharded listing in pages, for readers that need them all but in no order (the
// notifier's machines of an application or a scope). The shards are read side by side, so a small
// listing costs the latency of one Query however many shards it has; each Query asks for no more
// than its share of what the page still needs, so a large one reads no more than it sends.
import type { Page } from './reads.js';

/** One Query of one partition: up to `limit` items after `cursor` (that partition's own cursor). */
export type ReadPartition<T> = (partition: string, limit: number, cursor: string | undefined) => Promise<Page<T>>;

export async function* shardPages<T>(partitions: string[], pageSize: number, read: ReadPartition<T>): AsyncGenerator<T[]> {
  // Per partition: where it goes on (undefined: its start), and whether it is done.
  const cursors = new Map<string, string | undefined>(partitions.map((p) => [p, undefined]));
  let page: T[] = [];
  while (cursors.size) {
    const need = pageSize - page.length;
    const round = [...cursors.keys()].slice(0, need);
    const share = Math.floor(need / round.length);
    const listed = await Promise.all(round.map((p) => read(p, share, cursors.get(p))));
    for (const [i, partition] of round.entries()) {
      const { items, cursor } = listed[i]!;
      page.push(...items);
      if (cursor) cursors.set(partition, cursor);
      else cursors.delete(partition);
    }
    if (page.length >= pageSize) {
      yield page;
      page = [];
    }
  }
  if (page.length) yield page;
}
