// `npm run bench:idle-polling`: what the local controller's stream pollers cost while nothing
// happens, and how soon they read a write that ends a quiet spell, side by side in one run:
// - every 100 ms: the pollers as the local controller ran them before, polling each shard every
//   100 ms whatever happened;
// - nudged: as it runs them now (embedded/controller.ts LOCAL_STREAM_POLLING), told of each write
//   its clients make (embedded/stream/write-nudges.ts), so that they poll every 100 ms while
//   writes come and every 2 s once none has come for 2 s;
// - no pollers: DynamoDB Local alone, the floor.
// One DynamoDB Local in memory; each setting gets a table of its own (its own stream) and one
// poller per stream consumer (functions/stream-consumers.ts), whose handler only notes what it
// got. The configurations take turns, ROUNDS times, so that they share the host's noise.
//
// BENCH_IDLE_SECONDS (default 20): the window at rest; BENCH_WRITES (default 8): writes after a
// quiet spell, each timed to the first handler that gets it.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { LOCAL_STREAM_POLLING } from '../embedded/controller.js';
import { startDynamoDbLocal } from '../embedded/dynamodb-local.js';
import { createStreamPoller, streamReader, type StreamReader } from '../embedded/stream-poller.js';
import { nudgeOnWrites } from '../embedded/stream/write-nudges.js';
import { STREAM_CONSUMERS } from '../functions/stream-consumers.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { createStore } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { ownCpuSeconds, processCpuSeconds } from './support/proc-cpu.js';
import { publishSection, runLine } from './support/results-file.js';
import { percentile } from './support/timing.js';

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
const WRITES = Number(process.env.BENCH_WRITES ?? 8);
const ROUNDS = 2;
/** Before the window: the pollers have found their shards and read them to the tip. */
const SETTLE_MS = 3_000;
/** A quiet spell before each timed write: longer than the nudged pollers' idle interval. */
const QUIET_MS = LOCAL_STREAM_POLLING.idlePollIntervalMs + 500;
/** A write no handler got by then means the pollers are broken: the bench stops rather than waiting for ever. */
const WRITE_TIMEOUT_MS = 30_000;
const HEADING = '## Idle stream polling (npm run bench:idle-polling)';

type Setting = 'no pollers' | 'every 100 ms' | 'nudged';
const SETTINGS: Setting[] = ['no pollers', 'every 100 ms', 'nudged'];

interface Sample {
  dynamoMsPerS: number;
  processMsPerS: number;
  getRecordsPerS: number;
  latenciesMs: number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const began = Date.now();
const loadBefore = loadavg()[0]!;
const dynamo = await startDynamoDbLocal();

async function measure(setting: Setting): Promise<Sample> {
  const table = `idle-${randomUUID()}`;
  const store = createStore({ table, endpoint: dynamo.endpoint, region: 'local' });
  await ensureTable(store.client, table);
  const streams = new DynamoDBStreamsClient({ endpoint: dynamo.endpoint, region: 'local', credentials: localCredentials() });
  const real = streamReader(streams);
  let getRecords = 0;
  const counting: StreamReader = {
    ...real,
    getRecords: (input, signal) => {
      getRecords++;
      return real.getRecords(input, signal);
    },
  };
  const arrived = new Map<string, number>();
  const pollers =
    setting === 'no pollers'
      ? []
      : STREAM_CONSUMERS.map((consumer) =>
          createStreamPoller({
            functionName: consumer.name,
            tableName: table,
            streams: counting,
            startingPosition: 'TRIM_HORIZON',
            ...(setting === 'nudged' ? LOCAL_STREAM_POLLING : { pollIntervalMs: LOCAL_STREAM_POLLING.pollIntervalMs }),
            handler: async (event) => {
              for (const record of event.Records) {
                const pk = record.dynamodb?.Keys?.pk?.S;
                if (pk && !arrived.has(pk)) arrived.set(pk, performance.now());
              }
            },
            onFailure: async () => undefined,
            log: () => undefined,
          }),
        );
  if (setting === 'nudged')
    nudgeOnWrites(store.client, () => {
      for (const poller of pollers) poller.nudge();
    });
  try {
    for (const poller of pollers) await poller.start();
    await sleep(SETTLE_MS);
    const [dynamo0, own0, reads0] = [processCpuSeconds(dynamo.pid), ownCpuSeconds(), getRecords];
    await sleep(IDLE_SECONDS * 1000);
    const [dynamo1, own1, reads1] = [processCpuSeconds(dynamo.pid), ownCpuSeconds(), getRecords];
    const latenciesMs: number[] = [];
    if (pollers.length > 0)
      for (let i = 0; i < WRITES; i++) {
        await sleep(QUIET_MS);
        const pk = `quiet-${i}`;
        const sent = performance.now();
        await store.client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk }, sk: { S: 'ITEM' } } }));
        while (!arrived.has(pk)) {
          if (performance.now() - sent > WRITE_TIMEOUT_MS)
            throw new Error(`bench:idle-polling: no handler got ${pk} within ${WRITE_TIMEOUT_MS / 1000} s (${setting})`);
          await sleep(1);
        }
        latenciesMs.push(arrived.get(pk)! - sent);
      }
    return {
      dynamoMsPerS: ((dynamo1 - dynamo0) * 1000) / IDLE_SECONDS,
      processMsPerS: ((own1 - own0) * 1000) / IDLE_SECONDS,
      getRecordsPerS: (reads1 - reads0) / IDLE_SECONDS,
      latenciesMs,
    };
  } finally {
    for (const poller of pollers) await poller.stop();
    streams.destroy();
    store.client.destroy();
  }
}

try {
  const samples = new Map<Setting, Sample[]>(SETTINGS.map((s) => [s, []]));
  for (let round = 1; round <= ROUNDS; round++)
    for (const setting of SETTINGS) {
      samples.get(setting)!.push(await measure(setting));
      console.error(`bench:idle-polling: round ${round}, ${setting} done`);
    }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const summary = (setting: Setting) => {
    const all = samples.get(setting)!;
    const latencies = all.flatMap((s) => s.latenciesMs).sort((a, b) => a - b);
    return {
      dynamo: mean(all.map((s) => s.dynamoMsPerS)),
      process: mean(all.map((s) => s.processMsPerS)),
      reads: mean(all.map((s) => s.getRecordsPerS)),
      p50: latencies.length ? percentile(latencies, 50) : undefined,
      max: latencies.length ? latencies[latencies.length - 1] : undefined,
    };
  };
  const floor = summary('no pollers');
  const before = summary('every 100 ms');
  const now = summary('nudged');
  const ms = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(1));
  const row = (label: string, s: ReturnType<typeof summary>) =>
    `| ${label} | ${ms(s.dynamo)} | ${ms(s.dynamo - floor.dynamo)} | ${ms(s.process)} | ${s.reads.toFixed(1)} | ${ms(s.p50)} / ${ms(s.max)} |`;
  const body = [
    runLine(began, loadBefore, `DynamoDB Local in memory, ${STREAM_CONSUMERS.length} pollers (one per stream consumer), ${ROUNDS} rounds`),
    '',
    `| pollers | DynamoDB Local CPU ms/s at rest | above DynamoDB Local alone | this process CPU ms/s at rest | GetRecords/s at rest | a write after ${QUIET_MS / 1000} s quiet: ms to its handler, p50 / max |`,
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('none (DynamoDB Local alone)', floor),
    row(`every ${LOCAL_STREAM_POLLING.pollIntervalMs} ms (before)`, before),
    row('nudged (LOCAL_STREAM_POLLING)', now),
    '',
    `At rest, nudged against every ${LOCAL_STREAM_POLLING.pollIntervalMs} ms: DynamoDB Local's CPU above its own ×${((now.dynamo - floor.dynamo) / (before.dynamo - floor.dynamo)).toFixed(3)}, this process's ×${(now.process / before.process).toFixed(2)}; a write after a quiet spell reaches its handler in ×${((now.p50 ?? 0) / (before.p50 ?? 1)).toFixed(2)} the time at p50.`,
    '',
    `Method: each setting on a table of its own in one DynamoDB Local; ${SETTLE_MS / 1000} s for the pollers to reach the stream's tip, then ${IDLE_SECONDS} s with nothing written: CPU of DynamoDB Local (/proc, all its threads) and of this process (the pollers and their SDK clients), and the pollers' GetRecords calls. Then ${WRITES} writes, each after ${QUIET_MS / 1000} s with none, timed from sending the PutItem to the first handler invoked with it. The settings take turns, ${ROUNDS} rounds; the means (CPU) and all writes (latency) are shown.`,
  ].join('\n');
  await publishSection(HEADING, body);
} finally {
  await dynamo.stop();
}
