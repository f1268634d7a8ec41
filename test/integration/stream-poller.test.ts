// The local stream poller keeps the Lambda event source mapping contract (docs/architecture.md,
// 'The stream contract'): the handlers that run on Lambda run locally unchanged, fed the same events.
// Each test has its own table, hence its own stream, in the run's DynamoDB Local.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteItemCommand, DynamoDBClient, GetItemCommand, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  TrimmedDataAccessException,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { nudgeOnWrites } from '../../embedded/stream/write-nudges.js';
import {
  createStreamPoller,
  fileCheckpointStore,
  memoryCheckpointStore,
  RecordTooOldError,
  streamReader,
  type StreamFailure,
  type StreamPoller,
  type StreamPollerOptions,
  type StreamReader,
} from '../../embedded/stream-poller.js';
import { dynamoEndpoint } from '../support/dynamodb.js';
import { errorMessage } from '#shared/domain/errors.js';

const endpoint = await dynamoEndpoint();
const dynamo = new DynamoDBClient({ endpoint, region: 'local', credentials: localCredentials() });
let table: string;
let pollers: StreamPoller[] = [];
let invocations: DynamoDBRecord[][];
let failures: StreamFailure[];

beforeEach(async () => {
  table = `stream-${randomUUID()}`;
  await ensureTable(dynamo, table);
  invocations = [];
  failures = [];
});
afterEach(async () => {
  await Promise.all(pollers.map((p) => p.stop()));
  pollers = [];
});
afterAll(() => dynamo.destroy());

const put = (pk: string, attributes: Record<string, AttributeValue> = {}) =>
  dynamo.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk }, sk: { S: 'ITEM' }, ...attributes } }));
const remove = (pk: string) => dynamo.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: pk }, sk: { S: 'ITEM' } } }));
const putAll = async (pks: string[]) => {
  for (const pk of pks) await put(pk);
};

const pkOf = (record: DynamoDBRecord) => record.dynamodb?.Keys?.pk?.S;
const pks = (records: DynamoDBRecord[]) => records.map(pkOf);
const sequenceOf = (record: DynamoDBRecord) => record.dynamodb!.SequenceNumber!;

/** A handler that records each invocation, then answers with `answer` (which may throw). */
function recording(answer: (records: DynamoDBRecord[], call: number) => DynamoDBBatchResponse | void = () => {}) {
  return async (event: DynamoDBStreamEvent) => {
    invocations.push(event.Records);
    return answer(event.Records, invocations.length);
  };
}

function poller(options: Partial<StreamPollerOptions> = {}): StreamPoller {
  const created = createStreamPoller({
    tableName: table,
    endpoint,
    region: 'local',
    startingPosition: 'TRIM_HORIZON',
    handler: recording(),
    onFailure: async (failure) => {
      failures.push(failure);
    },
    pollIntervalMs: 20,
    retryDelayMs: 5,
    log: () => {},
    ...options,
  });
  pollers.push(created);
  return created;
}

describe('stream poller: the Lambda event shape', () => {
  it('delivers INSERT, MODIFY and REMOVE in order, with keys, old and new images, as Lambda does', async () => {
    let context: Context | undefined;
    const consumer = poller({
      handler: async (event, ctx) => {
        context = ctx;
        invocations.push(event.Records);
      },
    });
    await put('a', { v: { N: '1' }, blob: { B: new Uint8Array([1, 2, 3]) } });
    await consumer.start();
    await put('a', { v: { N: '2' } });
    await remove('a');
    await put('b');
    await consumer.drain();

    const records = invocations.flat();
    expect(records.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE', 'INSERT']);
    expect(pks(records)).toEqual(['a', 'a', 'a', 'b']);
    expect(records[1]).toEqual({
      eventID: expect.any(String),
      eventName: 'MODIFY',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: expect.any(String),
      eventSourceARN: expect.stringContaining(`table/${table}/stream/`),
      dynamodb: {
        ApproximateCreationDateTime: expect.any(Number),
        Keys: { pk: { S: 'a' }, sk: { S: 'ITEM' } },
        NewImage: { pk: { S: 'a' }, sk: { S: 'ITEM' }, v: { N: '2' } },
        // Binary attributes arrive base64-encoded, as in a Lambda event.
        OldImage: { pk: { S: 'a' }, sk: { S: 'ITEM' }, v: { N: '1' }, blob: { B: 'AQID' } },
        SequenceNumber: expect.stringMatching(/^\d+$/),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    });
    expect(records[0]!.dynamodb).not.toHaveProperty('OldImage');
    expect(records[2]!.dynamodb).not.toHaveProperty('NewImage');
    // Epoch seconds, not milliseconds (DynamoDB Local rounds down to the minute).
    const created = records[0]!.dynamodb!.ApproximateCreationDateTime!;
    expect(created).toBeGreaterThan(Date.now() / 1000 - 120);
    expect(created).toBeLessThanOrEqual(Date.now() / 1000);
    const sequence = records.map((r) => BigInt(sequenceOf(r)));
    expect(sequence).toEqual([...sequence].sort((x, y) => (x < y ? -1 : 1)));
    expect(context).toMatchObject({ functionName: expect.any(String), awsRequestId: expect.any(String) });
    expect(context!.getRemainingTimeInMillis()).toBeGreaterThan(0);
  });

  it('from LATEST, delivers only what is written after start()', async () => {
    await putAll(['before-1', 'before-2']);
    const consumer = poller({ startingPosition: 'LATEST' });
    await consumer.start();
    await putAll(['after-1', 'after-2']);
    await consumer.drain();
    expect(pks(invocations.flat())).toEqual(['after-1', 'after-2']);
  });

  it('refuses to start on a table that has no stream', async () => {
    await expect(poller({ tableName: `missing-${randomUUID()}` }).start()).rejects.toThrow(/has no stream/);
  });

  it('gathers records for maxBatchingWindowMs before invoking', async () => {
    const consumer = poller({ maxBatchingWindowMs: 1_000 });
    await consumer.start();
    await putAll(['r0', 'r1', 'r2']);
    await consumer.drain();
    expect(invocations.map(pks)).toEqual([['r0', 'r1', 'r2']]);
  });

  it('gathers up to batchSize records per invocation', async () => {
    await putAll(['r0', 'r1', 'r2', 'r3', 'r4']);
    const consumer = poller({ batchSize: 2 });
    await consumer.start();
    await consumer.drain();
    expect(invocations.map(pks)).toEqual([['r0', 'r1'], ['r2', 'r3'], ['r4']]);
  });

  it('with a filter, delivers only the records it keeps, batchSize of them at a time, and passes over the rest', async () => {
    await putAll(['a0', 'b0', 'b1', 'a1', 'b2', 'a2', 'b3']);
    const consumer = poller({ batchSize: 2, filter: (record) => pkOf(record)!.startsWith('a') });
    await consumer.start();
    await consumer.drain();
    expect(invocations.map(pks)).toEqual([['a0', 'a1'], ['a2']]);
    // Nothing is left behind the filtered records: a later one comes at once.
    await put('a3');
    await consumer.drain();
    expect(invocations.map(pks)).toEqual([['a0', 'a1'], ['a2'], ['a3']]);
  });
});

describe('stream poller: retries (at least once)', () => {
  it('retries a batch whose handler throws, and delivers it', async () => {
    await putAll(['r0', 'r1', 'r2']);
    const consumer = poller({
      bisectBatchOnFunctionError: false,
      handler: recording((_, call) => {
        if (call === 1) throw new Error('transient');
      }),
    });
    await consumer.start();
    await consumer.drain();
    expect(invocations.map(pks)).toEqual([
      ['r0', 'r1', 'r2'],
      ['r0', 'r1', 'r2'],
    ]);
    expect(failures).toEqual([]);
  });

  it('bisects around a poison record, sends it alone to onFailure, and delivers every other record', async () => {
    const written = ['r0', 'r1', 'r2', 'r3', 'r4', 'poison', 'r6', 'r7', 'r8', 'r9'];
    await putAll(written);
    const consumer = poller({
      batchSize: 10,
      maxRetryAttempts: 2,
      handler: recording((records) => {
        if (pks(records).includes('poison')) throw new Error('cannot parse poison');
      }),
    });
    await consumer.start();
    await consumer.drain();

    expect(failures).toHaveLength(1);
    expect(pks(failures[0]!.records)).toEqual(['poison']);
    expect(failures[0]!.error).toBeInstanceOf(Error);
    expect(errorMessage(failures[0]!.error)).toBe('cannot parse poison');
    expect(failures[0]!.shardId).toMatch(/^shardId-/);
    const delivered = invocations.filter((batch) => !pks(batch).includes('poison')).flat();
    expect(pks(delivered)).toEqual(written.filter((pk) => pk !== 'poison'));
    // Once isolated, the poison record is tried once and retried maxRetryAttempts times.
    expect(invocations.filter((batch) => batch.length === 1 && pkOf(batch[0]!) === 'poison')).toHaveLength(3);
  });

  it('without bisection, sends a batch that keeps failing to onFailure after maxRetryAttempts, then moves on', async () => {
    await putAll(['a', 'b', 'c']);
    const consumer = poller({
      bisectBatchOnFunctionError: false,
      maxRetryAttempts: 2,
      handler: recording((records) => {
        if (pks(records).includes('b')) throw new Error('bad b');
      }),
    });
    await consumer.start();
    await consumer.drain();
    await put('d');
    await consumer.drain();
    expect(invocations.map(pks)).toEqual([['a', 'b', 'c'], ['a', 'b', 'c'], ['a', 'b', 'c'], ['d']]);
    expect(failures.map((f) => pks(f.records))).toEqual([['a', 'b', 'c']]);
  });

  it('sends a record older than maximumRecordAgeMs to onFailure without delivering it', async () => {
    await put('stale');
    const consumer = poller({ maximumRecordAgeMs: 1 });
    await consumer.start();
    await consumer.drain();
    expect(invocations).toEqual([]);
    expect(failures.map((f) => pks(f.records))).toEqual([['stale']]);
    expect(failures[0]!.error).toBeInstanceOf(RecordTooOldError);
  });
});

describe('stream poller: partial batch response (ReportBatchItemFailures)', () => {
  it('redelivers only the failed record and those after it, from the lowest sequence number reported', async () => {
    await putAll(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    const consumer = poller({
      handler: recording((records, call) => {
        if (call > 1) return;
        const bySequence = (pk: string) => ({ itemIdentifier: sequenceOf(records.find((r) => pkOf(r) === pk)!) });
        return { batchItemFailures: [bySequence('r5'), bySequence('r3')] };
      }),
    });
    await consumer.start();
    await consumer.drain();
    expect(invocations.map(pks)).toEqual([
      ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'],
      ['r3', 'r4', 'r5'],
    ]);
    expect(failures).toEqual([]);
  });

  it('after maxRetryAttempts, sends only the reported record to onFailure and delivers the rest', async () => {
    await putAll(['r0', 'r1', 'bad', 'r3']);
    const consumer = poller({
      maxRetryAttempts: 1,
      handler: recording((records) => {
        const bad = records.find((r) => pkOf(r) === 'bad');
        return bad ? { batchItemFailures: [{ itemIdentifier: sequenceOf(bad) }] } : undefined;
      }),
    });
    await consumer.start();
    await consumer.drain();
    expect(invocations.map(pks)).toEqual([['r0', 'r1', 'bad', 'r3'], ['bad', 'r3'], ['r3']]);
    expect(failures.map((f) => pks(f.records))).toEqual([['bad']]);
  });

  it('treats an itemIdentifier that names no record of the batch as a failure of the whole batch', async () => {
    await putAll(['r0', 'r1']);
    const consumer = poller({
      bisectBatchOnFunctionError: false,
      handler: recording((_, call) => (call === 1 ? { batchItemFailures: [{ itemIdentifier: '' }] } : undefined)),
    });
    await consumer.start();
    await consumer.drain();
    expect(invocations.map(pks)).toEqual([
      ['r0', 'r1'],
      ['r0', 'r1'],
    ]);
  });
});

describe('stream poller: told of writes (nudge), as the local controller is', () => {
  /** A reader that counts its GetRecords calls. */
  function countingReads() {
    const client = new DynamoDBStreamsClient({ endpoint, region: 'local', credentials: localCredentials() });
    const real = streamReader(client);
    const counted = { calls: 0 };
    const reader: StreamReader = {
      ...real,
      getRecords: (input, signal) => {
        counted.calls++;
        return real.getRecords(input, signal);
      },
    };
    return { reader, counted, close: () => client.destroy() };
  }

  it('reads a nudged write at once, though its idle interval is a minute', async () => {
    const consumer = poller({ pollIntervalMs: 20, idlePollIntervalMs: 60_000 });
    await consumer.start();
    await consumer.drain(); // at the tip, waiting out the idle minute
    await put('nudged');
    consumer.nudge();
    await vi.waitFor(() => expect(pks(invocations.flat())).toEqual(['nudged']), { timeout: 5_000 });
  });

  it('does not read an idle shard again before its idle interval, and reads at most every pollIntervalMs however often nudged', async () => {
    const { reader, counted, close } = countingReads();
    try {
      const consumer = poller({ streams: reader, pollIntervalMs: 300, idlePollIntervalMs: 60_000 });
      await consumer.start();
      await consumer.drain();
      const idleStart = counted.calls;
      await new Promise((r) => setTimeout(r, 400));
      expect(counted.calls).toBe(idleStart); // more than pollIntervalMs passed with no nudge: no read

      await putAll(Array.from({ length: 20 }, (_, i) => `w${i}`));
      const nudgedStart = counted.calls;
      const startedAt = Date.now();
      for (let i = 0; i < 20; i++) {
        consumer.nudge();
        await new Promise((r) => setTimeout(r, 10));
      }
      const nudgedReads = counted.calls - nudgedStart;
      // 20 nudges in about 200 ms: a read at once (and the read after its batch, which finds the
      // tip), then at most one per 300 ms.
      expect(nudgedReads).toBeGreaterThanOrEqual(1);
      expect(nudgedReads).toBeLessThanOrEqual(2 + Math.floor((Date.now() - startedAt) / 300));
      await vi.waitFor(() => expect(invocations.flat()).toHaveLength(20), { timeout: 5_000 });
    } finally {
      await Promise.all(pollers.map((p) => p.stop()));
      close();
    }
  });

  it('refuses an idle interval shorter than its poll interval', () => {
    expect(() => poller({ pollIntervalMs: 100, idlePollIntervalMs: 50 })).toThrow(
      /idlePollIntervalMs must be at least pollIntervalMs \(100\)/,
    );
  });

  it('nudgeOnWrites: every write through a client or its document client nudges, and no read does', async () => {
    const client = new DynamoDBClient({ endpoint, region: 'local', credentials: localCredentials() });
    const doc = DynamoDBDocumentClient.from(client);
    let nudges = 0;
    nudgeOnWrites(client, () => nudges++);
    try {
      const Key = { pk: 'n', sk: 'ITEM' };
      await doc.send(new PutCommand({ TableName: table, Item: Key }));
      expect(nudges).toBe(1);
      await doc.send(new GetCommand({ TableName: table, Key }));
      await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'n' }, sk: { S: 'ITEM' } } }));
      expect(nudges).toBe(1);
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [{ Update: { TableName: table, Key, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': 1 } } }],
        }),
      );
      await client.send(new DeleteItemCommand({ TableName: table, Key: { pk: { S: 'n' }, sk: { S: 'ITEM' } } }));
      expect(nudges).toBe(3);
      // A write that fails may still have been made as far as the caller knows: it nudges too.
      await expect(doc.send(new PutCommand({ TableName: table, Item: Key, ConditionExpression: 'attribute_exists(pk)' }))).rejects.toThrow(
        /conditional request failed/,
      );
      expect(nudges).toBe(4);
    } finally {
      client.destroy();
    }
  });
});

describe('stream poller: iterators and checkpoints', () => {
  it('recovers from an expired shard iterator without losing or repeating a record', async () => {
    const client = new DynamoDBStreamsClient({ endpoint, region: 'local', credentials: localCredentials() });
    const real = streamReader(client);
    let expireNext = false;
    const iteratorRequests: Array<{ type?: string; after?: string }> = [];
    // Iterators expire after 15 minutes; this wrapper makes the next one expire now.
    const expiring: StreamReader = {
      ...real,
      getShardIterator: (input, signal) => {
        iteratorRequests.push({ type: input.ShardIteratorType, after: input.SequenceNumber });
        return real.getShardIterator(input, signal);
      },
      getRecords: async (input, signal) => {
        if (expireNext) {
          expireNext = false;
          throw new ExpiredIteratorException({ message: 'Iterator expired', $metadata: {} });
        }
        return real.getRecords(input, signal);
      },
    };
    try {
      const consumer = poller({ streams: expiring });
      await consumer.start();
      await putAll(['w1', 'w2']);
      await consumer.drain();
      expireNext = true;
      await putAll(['w3', 'w4']);
      await consumer.drain();

      expect(expireNext).toBe(false);
      expect(pks(invocations.flat())).toEqual(['w1', 'w2', 'w3', 'w4']);
      const w2 = invocations.flat()[1]!;
      expect(iteratorRequests).toContainEqual({ type: 'AFTER_SEQUENCE_NUMBER', after: sequenceOf(w2) });
    } finally {
      await Promise.all(pollers.map((p) => p.stop()));
      client.destroy();
    }
  });

  it('resumes from a file checkpoint store: a new poller does not redeliver processed records', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'drover-checkpoints-'));
    const path = join(directory, 'consumer.json');
    try {
      const first = poller({ checkpointStore: fileCheckpointStore(path) });
      await first.start();
      await putAll(['a', 'b', 'c']);
      await first.drain();
      await first.stop();

      await putAll(['d', 'e']);
      const second = poller({ checkpointStore: fileCheckpointStore(path) });
      await second.start();
      await second.drain();

      expect(pks(invocations.flat())).toEqual(['a', 'b', 'c', 'd', 'e']);
      const saved = JSON.parse(await readFile(path, 'utf8'));
      const last = invocations.flat()[4]!;
      expect(Object.values(saved.shards)).toEqual([{ sequenceNumber: sequenceOf(last) }]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('stream poller: stop()', () => {
  const resources = (kind: string) => process.getActiveResourcesInfo().filter((r) => r === kind).length;

  it('waits for the invocation in flight, then leaves no timer, socket or request behind', async () => {
    const timersBefore = resources('Timeout');
    const socketsBefore = resources('TCPSocketWrap');
    let release = () => {};
    let entered = () => {};
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const consumer = poller({
      handler: async (event) => {
        invocations.push(event.Records);
        entered();
        await new Promise<void>((resolve) => (release = resolve));
      },
    });
    await consumer.start();
    await put('in-flight');
    await inHandler;

    let stopped = false;
    const stopping = consumer.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;

    await put('after-stop');
    await new Promise((r) => setTimeout(r, 100));
    expect(pks(invocations.flat())).toEqual(['in-flight']);
    expect(resources('Timeout')).toBeLessThanOrEqual(timersBefore);
    expect(resources('TCPSocketWrap')).toBeLessThanOrEqual(socketsBefore);
  });

  it('returns at once from the middle of a poll interval', async () => {
    const consumer = poller({ pollIntervalMs: 60_000 });
    await consumer.start();
    await consumer.drain(); // the shard is read to its tip: the reader now waits out the interval
    const started = Date.now();
    await consumer.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('aborts a request in flight rather than waiting for it', async () => {
    const client = new DynamoDBStreamsClient({ endpoint, region: 'local', credentials: localCredentials() });
    const real = streamReader(client);
    let pending = 0;
    // A GetRecords that never answers, like a request on a dead connection.
    const hanging: StreamReader = {
      ...real,
      getRecords: (_, signal) =>
        new Promise((_resolve, reject) => {
          pending++;
          signal?.addEventListener('abort', () => {
            pending--;
            reject(signal.reason);
          });
        }),
    };
    try {
      const consumer = poller({ streams: hanging });
      await consumer.start();
      await vi.waitFor(() => expect(pending).toBe(1));
      const started = Date.now();
      await consumer.stop();
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(pending).toBe(0);
    } finally {
      client.destroy();
    }
  });
});

// DynamoDB Local rolls shards over on its own schedule (hours), and never trims: a scripted
// stream stands in for the service here, behind the same StreamReader port.
function scriptedStream() {
  interface ScriptedShard {
    id: string;
    parent?: string;
    closed: boolean;
    records: _Record[];
    /** Records before this index have been trimmed. */
    trimmedBefore?: number;
  }
  const arn = 'arn:aws:dynamodb:local:000000000000:table/scripted/stream/2024-01-01T00:00:00.000';
  const shards: ScriptedShard[] = [];
  let sequence = 0;
  const record = (pk: string): _Record => ({
    eventID: randomUUID(),
    eventName: 'INSERT',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'local',
    dynamodb: {
      ApproximateCreationDateTime: new Date(),
      Keys: { pk: { S: pk } },
      NewImage: { pk: { S: pk } },
      SequenceNumber: String(++sequence).padStart(21, '0'),
      SizeBytes: 10,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  });
  const shard = (id: string | undefined) => {
    const found = shards.find((s) => s.id === id);
    if (!found) throw new Error(`no shard ${id}`);
    return found;
  };
  const reader: StreamReader = {
    listStreams: async () => ({
      Streams: [{ StreamArn: arn, StreamLabel: '2024-01-01T00:00:00.000', TableName: 'scripted' }],
      $metadata: {},
    }),
    describeStream: async () => ({
      StreamDescription: {
        StreamArn: arn,
        Shards: shards.map((s) => ({
          ShardId: s.id,
          ParentShardId: s.parent,
          SequenceNumberRange: { StartingSequenceNumber: '1', ...(s.closed ? { EndingSequenceNumber: String(sequence) } : {}) },
        })),
      },
      $metadata: {},
    }),
    getShardIterator: async (input) => {
      const s = shard(input.ShardId);
      const horizon = s.trimmedBefore ?? 0;
      let index = input.ShardIteratorType === 'LATEST' ? s.records.length : horizon;
      if (input.ShardIteratorType === 'AFTER_SEQUENCE_NUMBER') {
        index = s.records.findIndex((r) => r.dynamodb?.SequenceNumber === input.SequenceNumber) + 1;
        if (index - 1 < horizon) throw new TrimmedDataAccessException({ message: 'trimmed', $metadata: {} });
      }
      return { ShardIterator: `${s.id}|${index}`, $metadata: {} };
    },
    getRecords: async (input) => {
      const [id, at] = input.ShardIterator!.split('|');
      const s = shard(id);
      const page = s.records.slice(Number(at), Number(at) + (input.Limit ?? 1000));
      const next = Number(at) + page.length;
      const atEnd = s.closed && next >= s.records.length;
      return { Records: page, NextShardIterator: atEnd ? undefined : `${s.id}|${next}`, $metadata: {} };
    },
  };
  return { arn, shards, record, reader };
}

describe('stream poller: shards', () => {
  it('reads a parent shard to its end before its children, and finds shards created later', async () => {
    const stream = scriptedStream();
    const parent = { id: 'shardId-1-parent', closed: true, records: ['p1', 'p2', 'p3'].map(stream.record) };
    const child = { id: 'shardId-2-child', parent: parent.id, closed: false, records: ['c1'].map(stream.record) };
    stream.shards.push(child, parent); // listed child first: order must come from lineage
    const store = memoryCheckpointStore();
    const consumer = poller({
      streams: stream.reader,
      streamArn: stream.arn,
      batchSize: 1,
      checkpointStore: store,
      // Slow enough that a child read in parallel would overtake its parent.
      handler: async (event) => {
        if (pkOf(event.Records[0]!)?.startsWith('p')) await new Promise((r) => setTimeout(r, 30));
        invocations.push(event.Records);
      },
    });
    await consumer.start();
    await consumer.drain();
    expect(pks(invocations.flat())).toEqual(['p1', 'p2', 'p3', 'c1']);

    // Roll over: the child closes with one more record; a grandchild takes the new writes.
    child.records.push(stream.record('c2'));
    child.closed = true;
    stream.shards.push({ id: 'shardId-3-grandchild', parent: child.id, closed: false, records: ['g1'].map(stream.record) });
    await consumer.drain();
    expect(pks(invocations.flat())).toEqual(['p1', 'p2', 'p3', 'c1', 'c2', 'g1']);
    const checkpoints = await store.load();
    expect(checkpoints[parent.id]).toEqual({ sequenceNumber: parent.records[2]!.dynamodb!.SequenceNumber, ended: true });
    expect(checkpoints[child.id]).toMatchObject({ ended: true });
  });

  it('when the records after its checkpoint were trimmed, goes on from the oldest record left', async () => {
    const stream = scriptedStream();
    const records = ['s1', 's2', 's3', 's4', 's5'].map(stream.record);
    stream.shards.push({ id: 'shardId-1', closed: false, records, trimmedBefore: 3 });
    const logs: string[] = [];
    const consumer = poller({
      streams: stream.reader,
      streamArn: stream.arn,
      checkpointStore: memoryCheckpointStore({ 'shardId-1': { sequenceNumber: records[0]!.dynamodb!.SequenceNumber! } }),
      log: (message) => logs.push(message),
    });
    await consumer.start();
    await consumer.drain();
    expect(pks(invocations.flat())).toEqual(['s4', 's5']);
    expect(logs.some((m) => m.includes('trimmed'))).toBe(true);
  });
});
