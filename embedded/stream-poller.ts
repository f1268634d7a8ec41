// The local twin of a Lambda event source mapping on the table's DynamoDB stream (docs/architecture.md,
// 'The stream contract'): it reads the stream and invokes the same handler Lambda would, with the
// same event, the same batching, the same at-least-once retries, partial batch responses
// (ReportBatchItemFailures), bisection on error and failure destination. One poller is one
// mapping: the local controller runs one per stream consumer (functions/stream-consumers.ts).
//
// Its parts, in embedded/stream/: shards are read in parallel, each in order (shard-reader.ts);
// which shards exist and which may run (a child only once its parent is read to its end, as
// Lambda keeps per-key order across shard rollovers) is shard-tree.ts, looked for by
// discovery-loop.ts; how a batch is retried and when records give up is batch-delivery.ts, and
// where they go then failure-destination.ts. This file wires them and keeps the checkpoints.
import { DynamoDBStreamsClient, type DynamoDBStreamsClientConfig } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamHandler } from 'aws-lambda';
import { withoutRequestLogging } from '#shared/aws/without-request-logging.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { deliverBatch, type DeliveryPolicy } from './stream/batch-delivery.js';
import { memoryCheckpointStore, type CheckpointStore, type ShardCheckpoint } from './stream/checkpoints.js';
import { sequenceNumberOf, toLambdaRecord } from './stream/lambda-event.js';
import { invokeHandler, type InvokeOptions } from './stream/lambda-invoke.js';
import { DiscoveryLoop } from './stream/discovery-loop.js';
import { sendToFailureDestination, type StreamFailure } from './stream/failure-destination.js';
import { ChangeSignal, pause } from './stream/pause.js';
import { readShard } from './stream/shard-reader.js';
import { mergeListing, placeShard, runnableShards, type Shard } from './stream/shard-tree.js';
import { latestStreamArn, listShards, streamReader, type StreamReader } from './stream/stream-reader.js';

export { fileCheckpointStore, memoryCheckpointStore, type CheckpointStore, type ShardCheckpoint } from './stream/checkpoints.js';
export { RecordTooOldError } from './stream/batch-delivery.js';
export type { StreamFailure } from './stream/failure-destination.js';
export { BatchItemFailuresError, FunctionTimeoutError } from './stream/lambda-invoke.js';
export { streamReader, type StreamReader } from './stream/stream-reader.js';

export interface StreamPollerOptions {
  tableName: string;
  handler: DynamoDBStreamHandler;
  /** The failure destination. Retried until it succeeds: records are never dropped silently. */
  onFailure: (failure: StreamFailure) => Promise<void>;
  /** Where a shard without a checkpoint starts, the first time; shards created later start at their beginning. */
  startingPosition: 'TRIM_HORIZON' | 'LATEST';
  /** DynamoDB Local's endpoint; absent on AWS. */
  endpoint?: string;
  region?: string;
  credentials?: DynamoDBStreamsClientConfig['credentials'];
  /** Replaces the client built from endpoint/region (tests wrap it to inject service errors). */
  streams?: StreamReader;
  /** The stream to read; by default the table's latest stream. */
  streamArn?: string;
  /** Lambda's event filtering: records this rejects are passed over, never delivered. All by default. */
  filter?: (record: DynamoDBRecord) => boolean;
  /** Most records per invocation (Lambda: 1–10,000, default 100). */
  batchSize?: number;
  /** How long to gather records before invoking (Lambda: MaximumBatchingWindowInSeconds, default 0). */
  maxBatchingWindowMs?: number;
  /** Pause after a read that found the shard's end (Lambda polls each shard about 4 times a second). */
  pollIntervalMs?: number;
  /**
   * For a poller told of every write (`nudge`): the pause at a shard's end once no write has been
   * announced for this long, which a nudge ends; a fallback for writers it is not told of. No
   * shorter than pollIntervalMs. pollIntervalMs when absent.
   */
  idlePollIntervalMs?: number;
  /** Retries of a failing batch; -1: until the record expires. Default 3. */
  maxRetryAttempts?: number;
  bisectBatchOnFunctionError?: boolean;
  /** Records older than this go to the failure destination undelivered. Age comes from
   * ApproximateCreationDateTime, which DynamoDB Local rounds down to the minute. */
  maximumRecordAgeMs?: number;
  checkpointStore?: CheckpointStore;
  /** Names the function in the handler's context and in logs. */
  functionName?: string;
  /** Like a Lambda function's timeout: a longer invocation counts as a function error. None by default. */
  functionTimeoutMs?: number;
  /** First delay before retrying a failed batch; doubles up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** How often DescribeStream looks for new shards (also done at once when a shard ends). */
  shardDiscoveryIntervalMs?: number;
  log?: (message: string, details: Record<string, unknown>) => void;
}

export interface StreamPoller {
  /** Finds the stream and positions every shard; resolves once a LATEST start is fixed. */
  start(): Promise<void>;
  /** Stops reading, waits for an invocation in flight, and leaves no timer or request behind. */
  stop(): Promise<void>;
  /** Resolves once every record written before the call is settled (delivered or failed). For tests. */
  drain(): Promise<void>;
  /** A write to the table was made: after a quiet spell, read each shard at once (shard-reader.ts). */
  nudge(): void;
}

function settings(options: StreamPollerOptions) {
  const batchSize = options.batchSize ?? 100;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    throw new Error(`batchSize must be an integer from 1 to 10000, not ${batchSize}`);
  const maxRetryAttempts = options.maxRetryAttempts ?? 3;
  if (!(maxRetryAttempts >= -1)) throw new Error(`maxRetryAttempts must be -1 (no limit) or more, not ${maxRetryAttempts}`);
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  if (!(pollIntervalMs > 0)) throw new Error(`pollIntervalMs must be positive, not ${pollIntervalMs}`);
  const idlePollIntervalMs = options.idlePollIntervalMs ?? pollIntervalMs;
  if (!(idlePollIntervalMs >= pollIntervalMs))
    throw new Error(`idlePollIntervalMs must be at least pollIntervalMs (${pollIntervalMs}), not ${idlePollIntervalMs}`);
  const policy: DeliveryPolicy = {
    maxRetryAttempts: maxRetryAttempts === -1 ? Infinity : maxRetryAttempts,
    bisectBatchOnFunctionError: options.bisectBatchOnFunctionError ?? true,
    retryDelayMs: options.retryDelayMs ?? 100,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 5_000,
    ...(options.maximumRecordAgeMs !== undefined ? { maximumRecordAgeMs: options.maximumRecordAgeMs } : {}),
  };
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const functionName = options.functionName ?? `${options.tableName}-stream-consumer`;
  const invoke: InvokeOptions = {
    functionName,
    region,
    ...(options.functionTimeoutMs !== undefined ? { timeoutMs: options.functionTimeoutMs } : {}),
  };
  return {
    batchSize,
    pollIntervalMs,
    idlePollIntervalMs,
    maxBatchingWindowMs: options.maxBatchingWindowMs ?? 0,
    discoveryIntervalMs: options.shardDiscoveryIntervalMs ?? 1_000,
    policy,
    region,
    functionName,
    invoke,
    store: options.checkpointStore ?? memoryCheckpointStore(),
    log:
      options.log ??
      ((message: string, details: Record<string, unknown>) =>
        console.warn(JSON.stringify({ level: 'WARN', message, poller: functionName, ...details }))),
  };
}

export function createStreamPoller(options: StreamPollerOptions): StreamPoller {
  const config = settings(options);
  const { log, store } = config;
  const abort = new AbortController();
  const signal = abort.signal;
  let state: 'new' | 'running' | 'stopped' = 'new';
  let stopping: Promise<void> | undefined;
  let client: DynamoDBStreamsClient | undefined;
  let reader: StreamReader;
  let streamArn = '';
  let checkpoints: Record<string, ShardCheckpoint> = {};
  const shards = new Map<string, Shard>();
  /** Every loop still running (discovery, shard readers), for stop() to wait on. */
  const tasks = new Set<Promise<unknown>>();
  const changes = new ChangeSignal();
  /** drain() bumps it; a shard reader that finds nothing new during generation g is caught up to g. */
  let generation = 0;
  const discovery = new DiscoveryLoop(() => discover(false), { intervalMs: config.discoveryIntervalMs, signal, log });

  const track = (task: Promise<unknown>) => {
    tasks.add(task);
    task.then(
      () => tasks.delete(task),
      (error: unknown) => {
        tasks.delete(task);
        if (!signal.aborted) log('a stream poller task failed', { error: String(error) });
      },
    );
  };

  async function saveCheckpoint(shard: Shard, checkpoint: ShardCheckpoint): Promise<void> {
    checkpoints[shard.info.shardId] = checkpoint;
    try {
      await store.save(shard.info.shardId, checkpoint);
    } catch (error) {
      // Not fatal: progress in memory goes on; a restart would re-deliver (at least once).
      log('cannot save the stream checkpoint', { shardId: shard.info.shardId, error: String(error) });
    }
  }

  function deliver(shard: Shard, records: DynamoDBRecord[]): Promise<void> {
    return deliverBatch(records, config.policy, {
      invoke: (batch) => invokeHandler(options.handler, batch, config.invoke),
      discard: (batch, error) =>
        sendToFailureDestination(
          options.onFailure,
          { records: batch, error, shardId: shard.info.shardId, streamArn },
          { retryDelayMs: config.policy.retryDelayMs, maxRetryDelayMs: config.policy.maxRetryDelayMs, signal, log },
        ),
      checkpoint: async (record) => {
        shard.checkpoint = sequenceNumberOf(record);
        await saveCheckpoint(shard, { sequenceNumber: shard.checkpoint });
      },
      signal,
      now: Date.now,
    });
  }

  /** Starts reading a shard; resolves once its first iterator is held. */
  function startShard(shard: Shard): Promise<void> {
    shard.status = 'running';
    const shardReader = readShard({
      reader,
      streamArn,
      shardId: shard.info.shardId,
      start: shard.start ?? { type: 'TRIM_HORIZON' },
      batchSize: config.batchSize,
      maxBatchingWindowMs: config.maxBatchingWindowMs,
      pollIntervalMs: config.pollIntervalMs,
      idlePollIntervalMs: config.idlePollIntervalMs,
      toRecord: (record) => toLambdaRecord(record, streamArn),
      ...(options.filter ? { keep: options.filter } : {}),
      deliver: (records) => deliver(shard, records),
      generation: () => generation,
      onProgress: () => changes.notify(),
      log,
      signal,
    });
    shard.reader = shardReader;
    track(
      shardReader.done.then(
        async (outcome) => {
          if (outcome !== 'ended') return;
          await saveCheckpoint(shard, { ...(shard.checkpoint ? { sequenceNumber: shard.checkpoint } : {}), ended: true });
          shard.status = 'done';
          void startRunnableShards();
          discovery.wake(); // its children may not be listed yet
          changes.notify();
        },
        async (error: unknown) => {
          // A bug, not a service error (those are retried inside): start over from the checkpoint.
          log('a shard reader failed; restarting it from its checkpoint', { shardId: shard.info.shardId, error: String(error) });
          await pause(1_000, signal);
          if (signal.aborted) return;
          if (shard.checkpoint) shard.start = { type: 'AFTER', sequenceNumber: shard.checkpoint };
          void startShard(shard);
        },
      ),
    );
    return shardReader.ready;
  }

  /** Starts every waiting shard whose parent is done (or gone from the stream). */
  function startRunnableShards(): Promise<unknown> {
    return Promise.all(runnableShards(shards).map(startShard));
  }

  /**
   * DescribeStream, then track new shards (parents before children) and start what can run.
   * `started` resolves once the shards started hold their first iterator.
   */
  async function discover(initial: boolean): Promise<{ started: Promise<unknown> }> {
    const listed = await listShards(reader, streamArn, signal);
    const gone = mergeListing(shards, listed, checkpoints, (info, parent) =>
      placeShard(info, {
        initial,
        ...(checkpoints[info.shardId] ? { checkpoint: checkpoints[info.shardId] } : {}),
        ...(parent ? { parent } : {}),
        startingPosition: options.startingPosition,
      }),
    );
    if (gone.length > 0) {
      for (const id of gone) delete checkpoints[id];
      await store.forget(gone).catch((error: unknown) => log('cannot forget trimmed shards', { error: String(error) }));
    }
    const started = startRunnableShards();
    changes.notify();
    return { started };
  }

  const poller: StreamPoller = {
    async start() {
      if (state !== 'new') throw new Error('a stream poller starts once; create a new one to start again');
      state = 'running';
      try {
        if (options.streams) reader = options.streams;
        else {
          client = withoutRequestLogging(
            new DynamoDBStreamsClient({
              region: config.region,
              ...(options.endpoint ? { endpoint: options.endpoint, credentials: options.credentials ?? localCredentials() } : {}),
              ...(!options.endpoint && options.credentials ? { credentials: options.credentials } : {}),
            }),
          );
          reader = streamReader(client);
        }
        const arn = options.streamArn ?? (await latestStreamArn(reader, options.tableName, signal));
        if (!arn)
          throw new Error(`table ${options.tableName} has no stream: enable one (StreamViewType NEW_AND_OLD_IMAGES) before polling it`);
        streamArn = arn;
        checkpoints = await store.load();
        const { started } = await discover(true);
        track(discovery.run());
        await started;
      } catch (error) {
        await poller.stop();
        throw error;
      }
    },

    stop() {
      stopping ??= (async () => {
        abort.abort();
        discovery.release();
        changes.notify();
        // A reader restarting after a failure adds a task; wait until none is left.
        while (tasks.size > 0) await Promise.allSettled([...tasks]);
        client?.destroy();
        state = 'stopped';
      })();
      return stopping;
    },

    async drain() {
      if (state !== 'running' || signal.aborted) throw new Error('drain() needs a started, running poller');
      const target = ++generation;
      await discovery.soon();
      for (;;) {
        if (signal.aborted) throw new Error('the stream poller stopped before it drained');
        const settled = [...shards.values()].every(
          (shard) => shard.status === 'done' || (shard.status === 'running' && (shard.reader?.caughtUpGeneration() ?? 0) >= target),
        );
        if (settled) return;
        for (const shard of shards.values()) shard.reader?.wake();
        await changes.next(signal);
      }
    },

    nudge() {
      for (const shard of shards.values()) shard.reader?.nudge();
    },
  };
  return poller;
}
