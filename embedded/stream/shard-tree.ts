// The shards a poller knows, as DescribeStream lists them: where each starts reading, which can
// run (a child only once its parent is read to its end, as Lambda keeps per-key order across
// shard rollovers), and which to forget once trimmed from the stream. Pure bookkeeping: the
// poller (embedded/stream-poller.ts) does the reading.
import type { ShardCheckpoint } from './checkpoints.js';
import type { ShardReader, ShardStart } from './shard-reader.js';
import type { ShardInfo } from './stream-reader.js';

export interface Shard {
  info: ShardInfo;
  /** waiting: for its parent to end; done: read to its end (or skipped, at a LATEST start). */
  status: 'waiting' | 'running' | 'done';
  /** Closed before a LATEST start: history this mapping never reads. */
  skipped?: boolean;
  start?: ShardStart;
  reader?: ShardReader;
  checkpoint?: string;
}

export type StartingPosition = 'TRIM_HORIZON' | 'LATEST';

/**
 * Where a newly seen shard starts: after its checkpoint; at its beginning when it was born after
 * the poller started, or is the child of a shard it reads; else at the mapping's starting position.
 */
export function placeShard(
  info: ShardInfo,
  context: { initial: boolean; checkpoint?: ShardCheckpoint; parent?: Shard; startingPosition: StartingPosition },
): Shard {
  const { checkpoint, parent } = context;
  if (checkpoint?.ended) return { info, status: 'done', ...(checkpoint.sequenceNumber ? { checkpoint: checkpoint.sequenceNumber } : {}) };
  if (checkpoint?.sequenceNumber) {
    return {
      info,
      status: 'waiting',
      start: { type: 'AFTER', sequenceNumber: checkpoint.sequenceNumber },
      checkpoint: checkpoint.sequenceNumber,
    };
  }
  // A shard born after we started, or the child of one we read, holds only records after ours.
  if (!context.initial || (parent && !parent.skipped) || context.startingPosition === 'TRIM_HORIZON') {
    return { info, status: 'waiting', start: { type: 'TRIM_HORIZON' } };
  }
  return info.closed ? { info, status: 'done', skipped: true } : { info, status: 'waiting', start: { type: 'LATEST' } };
}

/**
 * Takes in a listing: new shards are placed (parents before children), known ones get their
 * latest info, and done shards no longer listed (trimmed) are forgotten, so their children no
 * longer wait on them. Returns the checkpointed shard ids the listing no longer has.
 */
export function mergeListing(
  shards: Map<string, Shard>,
  listed: ShardInfo[],
  checkpoints: Record<string, ShardCheckpoint>,
  place: (info: ShardInfo, parent: Shard | undefined) => Shard,
): string[] {
  const byId = new Map(listed.map((info) => [info.shardId, info]));
  const visit = (info: ShardInfo) => {
    const known = shards.get(info.shardId);
    if (known) {
      known.info = info;
      return;
    }
    const parent = info.parentShardId ? byId.get(info.parentShardId) : undefined;
    if (parent && !shards.has(parent.shardId)) visit(parent);
    shards.set(info.shardId, place(info, info.parentShardId ? shards.get(info.parentShardId) : undefined));
  };
  listed.forEach(visit);
  for (const [id, shard] of shards) if (!byId.has(id) && shard.status === 'done') shards.delete(id);
  return Object.keys(checkpoints).filter((id) => !byId.has(id));
}

/** The waiting shards that may start: their parent is done, or gone from the stream. */
export function runnableShards(shards: Map<string, Shard>): Shard[] {
  return [...shards.values()].filter((shard) => {
    if (shard.status !== 'waiting') return false;
    const parent = shard.info.parentShardId ? shards.get(shard.info.parentShardId) : undefined;
    return !parent || parent.status === 'done';
  });
}
