// Where a poller remembers, per shard, how far it got: the last sequence number fully processed
// (delivered, or given to the failure destination), and whether the shard was read to its end.
// Lambda keeps this inside the event source mapping; locally it is pluggable: in memory for tests,
// a file for the local controller, so that a restart resumes where it left off instead of
// re-reading the stream from its trim horizon (harmless, since consumers are idempotent, but slow).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface ShardCheckpoint {
  /** The last sequence number fully processed; absent if none yet. */
  sequenceNumber?: string;
  /** The shard is closed and was processed to its end: its children may run. */
  ended?: boolean;
}

export interface CheckpointStore {
  /** Every shard's checkpoint, read once when the poller starts. */
  load(): Promise<Record<string, ShardCheckpoint>>;
  save(shardId: string, checkpoint: ShardCheckpoint): Promise<void>;
  /** Drops shards that no longer exist in the stream (trimmed after 24 h), so the store stays small. */
  forget(shardIds: string[]): Promise<void>;
}

export function memoryCheckpointStore(initial: Record<string, ShardCheckpoint> = {}): CheckpointStore {
  const shards = new Map(Object.entries(initial));
  return {
    load: async () => Object.fromEntries(shards),
    save: async (shardId, checkpoint) => {
      shards.set(shardId, { ...checkpoint });
    },
    forget: async (shardIds) => {
      for (const id of shardIds) shards.delete(id);
    },
  };
}

interface CheckpointFile {
  version: 1;
  shards: Record<string, ShardCheckpoint>;
}

/**
 * A checkpoint store in one JSON file (give each poller its own). Writes replace the file
 * atomically (write, then rename) and are serialized, so a crash leaves the old or the new
 * state, never half of one. A lost last write only means some records are delivered again.
 */
export function fileCheckpointStore(path: string): CheckpointStore {
  let shards: Record<string, ShardCheckpoint> | undefined;
  let writing: Promise<void> = Promise.resolve();

  async function read(): Promise<Record<string, ShardCheckpoint>> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw e;
    }
    let parsed: Partial<CheckpointFile> | undefined;
    try {
      parsed = JSON.parse(text) as Partial<CheckpointFile>;
    } catch {
      parsed = undefined;
    }
    if (parsed?.version !== 1 || typeof parsed.shards !== 'object' || parsed.shards === null) {
      // Refuse rather than guess: starting over silently could re-read or skip a whole stream.
      throw new Error(`${path} is not a stream checkpoint file (version 1); move it away to start from the stream's starting position`);
    }
    return parsed.shards;
  }

  // Each write persists the whole current state, so queued writes may coalesce into one.
  function persist(): Promise<void> {
    const snapshot: CheckpointFile = { version: 1, shards: { ...shards } };
    const next = writing.then(async () => {
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(snapshot, null, 1));
      await rename(temporary, path);
    });
    // A failed write must not poison the queue: the next one writes the full state again.
    writing = next.catch(() => {});
    return next;
  }

  async function loaded(): Promise<Record<string, ShardCheckpoint>> {
    shards ??= await read();
    return shards;
  }

  return {
    load: async () => ({ ...(await loaded()) }),
    save: async (shardId, checkpoint) => {
      (await loaded())[shardId] = { ...checkpoint };
      await persist();
    },
    forget: async (shardIds) => {
      const current = await loaded();
      if (!shardIds.some((id) => id in current)) return;
      for (const id of shardIds) delete current[id];
      await persist();
    },
  };
}
