// `npm run bench:notifier`: the notifier's fan-out on one large relation, a batch at a time
// against a record at a time, side by side in one run, on one model: two applications of UNITS
// units each (one machine per unit), related, every unit in the relation's scope (built through
// the state operations, no agents), and a queue per machine on the local SQS server.
//
// 1. The relation coming up: each unit's scope record and initial-settings record (one
//    transaction writes both, so the stream delivers them side by side), 2 × 2 × UNITS records in
//    batches of 100 (the `changes` consumer's batch size), handled as the changes function does.
//    Replayed once every unit is in scope, so every batch reads the whole scope: the worst case.
// 2. The last SAMPLE units' records again, at full scope, both ways: in batches of 100, and each
//    record alone (a batch of one: nothing shared, what a per-record notifier would cost).
// 3. An application-wide change (config): one record, every unit of one application; then the
//    same on an application of WIDE_UNITS units (its own machines and queues).
// Per record: DynamoDB read requests, hints sent (SQS message entries), milliseconds. Records a
// section in bench/RESULTS.md.
//
// BENCH_UNITS (default 1000): units per application. BENCH_SAMPLE (default 10): units in step 2.
// BENCH_WIDE_UNITS (default 20000; 0 to leave out): the large application of step 3.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startDynamoDbLocal } from '../embedded/dynamodb-local.js';
import { startSqsServer } from '../embedded/sqs-server.js';
import { hintStep } from '../functions/changes/hints.js';
import { streamBatchHandler } from '../functions/stream-batch.js';
import { parseCharm } from '#shared/domain/charm.js';
import type { Relation } from '#shared/domain/entities.js';
import { refs } from '#shared/domain/plan.js';
import { ensureMachineQueue } from '#shared/messaging/machine-queues.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { getRelation } from '#shared/state/engine/reads.js';
import { createStore } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { readItem, streamEvent, streamRecord } from '../test/support/stream.js';
import { RequestLog, reads, tally } from './support/request-log.js';
import { writeSection } from './support/results-file.js';
import { silentLogger } from '../test/support/silent-logger.js';

const UNITS = Number(process.env.BENCH_UNITS ?? 1000);
const SAMPLE = Number(process.env.BENCH_SAMPLE ?? 10);
const WIDE_UNITS = Number(process.env.BENCH_WIDE_UNITS ?? 20_000);
const BATCH = 100;
const HEADING = '## Notifier fan-out (npm run bench:notifier)';
const CONTROLLER = 'bench-notifier';

const server = parseCharm('name: db\nseries: [jammy]\nprovides:\n  db: {interface: sql}\n');
const client = parseCharm('name: app\nseries: [jammy]\nrequires:\n  db: {interface: sql}\n');
const wide = parseCharm('name: wide\nseries: [jammy]\n');

/** Counts the message entries sent to SQS (SendMessage and each SendMessageBatch entry). */
function countSends(sqs: SQSClient): () => number {
  let sent = 0;
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Entries?: unknown[] };
      if (context.commandName === 'SendMessageBatchCommand') sent += input.Entries?.length ?? 0;
      else if (context.commandName === 'SendMessageCommand') sent += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchSendCount' },
  );
  return () => sent;
}

interface Cost {
  records: number;
  reads: number;
  sends: number;
  ms: number;
}

async function main() {
  const dynamo = await startDynamoDbLocal();
  const sqsServer = await startSqsServer();
  try {
    const store = createStore({ table: `bench-notifier-${randomUUID().slice(0, 8)}`, endpoint: dynamo.endpoint, region: 'local' });
    await ensureTable(store.client, store.table);
    await ensureModel(store);
    const sqs = createSqsClient({ region: 'local', endpoint: sqsServer.endpoint });
    const sends = countSends(sqs);
    const log = new RequestLog(store, createStore({ table: store.table, endpoint: dynamo.endpoint, region: 'local' }));

    const built = performance.now();
    const sides = [await deploy(store, { charm: server, numUnits: UNITS }), await deploy(store, { charm: client, numUnits: UNITS })];
    const { key, id } = await addRelation(store, ['app', 'db']);
    const units = [...Array(UNITS).keys()].flatMap((i) => [`db/${i}`, `app/${i}`]);
    for (const unit of units) await enterScope(store, unit, key, { 'private-address': `10.0.0.${units.indexOf(unit) % 250}` });
    const ensureQueues = async (machines: string[]) => {
      for (let i = 0; i < machines.length; i += 20)
        await Promise.all(machines.slice(i, i + 20).map((m) => ensureMachineQueue(sqs, CONTROLLER, store.model, m)));
    };
    const machines = sides.flatMap((s) => s.machines);
    await ensureQueues(machines);
    console.error(
      `built ${units.length} units in scope, ${machines.length} queues, in ${((performance.now() - built) / 1000).toFixed(0)} s`,
    );

    const layout = (await getRelation(store, key))!;
    // As the stream delivers a unit's entry: its scope record, then its settings record.
    const recordsOf = async (unit: string): Promise<DynamoDBRecord[]> =>
      Promise.all(
        [refs.scope(layout, unit), refs.settings(id, unit)].map(async (ref) => streamRecord({ newItem: (await readItem(store, ref))! })),
      );
    const records: DynamoDBRecord[] = [];
    for (let i = 0; i < units.length; i += 50) records.push(...(await Promise.all(units.slice(i, i + 50).map(recordsOf))).flat());

    const notifier = streamBatchHandler(hintStep({ store, sqs, controllerId: CONTROLLER }, silentLogger), {
      inParallel: false,
    });
    const run = async (rs: DynamoDBRecord[], batch: number): Promise<Cost> => {
      const sentBefore = sends();
      const start = performance.now();
      const { requests } = await log.capture(async () => {
        for (let i = 0; i < rs.length; i += batch) {
          const { batchItemFailures } = await notifier(streamEvent(rs.slice(i, i + batch)));
          if (batchItemFailures.length > 0) throw new Error(`${batchItemFailures.length} record(s) failed`);
        }
      });
      return { records: rs.length, reads: reads(tally(requests)), sends: sends() - sentBefore, ms: performance.now() - start };
    };

    const comingUp = await run(records, BATCH);
    const sample = records.slice(-2 * SAMPLE);
    const sampleBatched = await run(sample, BATCH);
    const sampleAlone = await run(sample, 1);
    const app = (await readItem(store, refs.application('app')))!;
    const applicationWide = await run(
      [streamRecord({ oldItem: app, newItem: { ...app, configVersion: Number(app.configVersion ?? 0) + 1 } })],
      1,
    );
    const relation = (await readItem(store, refs.relation(key))) as unknown as Relation;
    let wideChange: Cost | undefined;
    if (WIDE_UNITS > 0) {
      const started = performance.now();
      const { machines: wideMachines } = await deploy(store, { charm: wide, numUnits: WIDE_UNITS });
      await ensureQueues(wideMachines);
      console.error(`built ${WIDE_UNITS} more units and queues in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      const item = (await readItem(store, refs.application('wide')))!;
      wideChange = await run(
        [streamRecord({ oldItem: item, newItem: { ...item, configVersion: Number(item.configVersion ?? 0) + 1 } })],
        1,
      );
    }

    const per = (n: number, c: Cost) => (n / c.records).toFixed(2);
    const row = (what: string, c: Cost) =>
      `| ${what} | ${c.records} | ${c.reads} | ${per(c.reads, c)} | ${c.sends} | ${per(c.sends, c)} | ${(c.ms / c.records).toFixed(1)} |`;
    const body = [
      `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? 'unknown CPU'} (${availableParallelism()} cores), load ${loadavg()[0]!.toFixed(1)}; DynamoDB Local in memory, the local SQS server.`,
      '',
      `One relation between two applications of ${UNITS} units each (${relation.unitCount} units in scope, one machine each), built through the state operations; the changes function's hint step on batches as its stream consumer gets them. Reads: DynamoDB read requests (GetItem, BatchGetItem, Query). Hints: SQS message entries sent.`,
      '',
      '| records | count | reads | reads / record | hints | hints / record | ms / record |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      row(`the relation coming up: every unit's scope and settings records, batches of ${BATCH}`, comingUp),
      row(`the last ${SAMPLE} units' records at full scope, batches of ${BATCH}`, sampleBatched),
      row(`the same records, each alone (nothing shared)`, sampleAlone),
      row(`an application-wide change (${UNITS} units)`, applicationWide),
      ...(wideChange ? [row(`an application-wide change (${WIDE_UNITS} units)`, wideChange)] : []),
      '',
      `At full scope, a batch costs ×${(sampleBatched.reads / sampleAlone.reads).toFixed(3)} the reads and ×${(sampleBatched.sends / sampleAlone.sends).toFixed(3)} the hints of the same records handled one by one.`,
    ].join('\n');
    console.log(body);
    await writeSection(join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md'), HEADING, body);
  } finally {
    await sqsServer.stop();
    await dynamo.stop();
  }
}

await main();
