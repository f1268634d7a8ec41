// `npm run bench:dynamodb-local`: what DynamoDB Local itself costs the tests that lean on it
// hardest, measured side by side in one run, and recorded in bench/RESULTS.md.
//
// 1. Tables made: the same round of calls (the writes, reads and scans of a small model) on a
//    table made for the round and deleted after it, against the same round on one table with a
//    model of its own per round (its items deleted after it). Two DynamoDB Locals, one per way,
//    rounds alternating between them. The per-call time is compared over the first and the last
//    rounds: a fresh table per round gets slower with every table made.
// 2. Databases: many clients at once against one DynamoDB Local, and the same clients split over
//    two: whether a second one (on a second core) serves more.
//
// BENCH_ROUNDS (default 400) and BENCH_WINDOW (rounds per compared window, default 50);
// BENCH_SECONDS (each throughput measurement, default 15).
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { startDynamoDbLocal, type DynamoDbLocal } from '../embedded/dynamodb-local.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { writeSection } from './support/results-file.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 400);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
/** Items a round writes, reads and deletes; scans it makes (the model property's proportions). */
const ITEMS = 30;
const SCANS = 10;
/** Clients at once in the throughput comparison (the soak's eight lanes). */
const CLIENTS = 8;
const HEADING = '## DynamoDB Local (npm run bench:dynamodb-local)';

const clientOf = (db: DynamoDbLocal) =>
  DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: db.endpoint, region: 'local', credentials: localCredentials() }));

/** One round's calls on `table`, items under `prefix`; returns the milliseconds per call. */
async function round(doc: DynamoDBDocumentClient, table: string, prefix: string): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < ITEMS; i++) await doc.send(new PutCommand({ TableName: table, Item: { pk: `${prefix}#${i}`, sk: '-', n: i } }));
  for (let i = 0; i < ITEMS; i++)
    await doc.send(new GetCommand({ TableName: table, Key: { pk: `${prefix}#${i}`, sk: '-' }, ConsistentRead: true }));
  for (let i = 0; i < SCANS; i++) await doc.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return (performance.now() - start) / (2 * ITEMS + SCANS);
}

async function deleteItems(doc: DynamoDBDocumentClient, table: string, prefix: string): Promise<void> {
  for (let i = 0; i < ITEMS; i += 25) {
    const keys = Array.from({ length: Math.min(25, ITEMS - i) }, (_, j) => ({
      DeleteRequest: { Key: { pk: `${prefix}#${i + j}`, sk: '-' } },
    }));
    await doc.send(new BatchWriteCommand({ RequestItems: { [table]: keys } }));
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function tablesMade(): Promise<string> {
  const [fresh, shared] = await Promise.all([startDynamoDbLocal(), startDynamoDbLocal()]);
  try {
    const freshDoc = clientOf(fresh);
    const sharedDoc = clientOf(shared);
    await ensureTable(sharedDoc, 'one-table');
    const perCall = { fresh: [] as number[], shared: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      const table = `round-${r}`;
      await ensureTable(freshDoc, table);
      perCall.fresh.push(await round(freshDoc, table, 'model'));
      await freshDoc.send(new DeleteTableCommand({ TableName: table }));
      perCall.shared.push(await round(sharedDoc, 'one-table', `model-${r}`));
      await deleteItems(sharedDoc, 'one-table', `model-${r}`);
    }
    const first = (xs: number[]) => mean(xs.slice(0, WINDOW));
    const last = (xs: number[]) => mean(xs.slice(-WINDOW));
    const row = (name: string, xs: number[]) =>
      `| ${name} | ${first(xs).toFixed(2)} | ${last(xs).toFixed(2)} | ${(last(xs) / first(xs)).toFixed(2)}× |`;
    return [
      `### Tables made: ms per call, rounds 1-${WINDOW} against rounds ${ROUNDS - WINDOW + 1}-${ROUNDS}`,
      '',
      `Each round: ${ITEMS} puts, ${ITEMS} consistent gets, ${SCANS} scans, one client, one call at a time.`,
      '',
      '| each round on | first rounds | last rounds | last / first |',
      '| --- | --- | --- | --- |',
      row('a table made for it, deleted after', perCall.fresh),
      row('one table, a model of its own (items deleted after)', perCall.shared),
      '',
      `In the last rounds a table per round costs **${(last(perCall.fresh) / last(perCall.shared)).toFixed(1)}×** what one table does per call.`,
    ].join('\n');
  } finally {
    await Promise.all([fresh.stop(), shared.stop()]);
  }
}

/** Calls per second from CLIENTS clients at once, spread over `dbs`, for SECONDS. */
async function throughput(dbs: DynamoDbLocal[]): Promise<number> {
  const docs = dbs.map(clientOf);
  await Promise.all(docs.map((doc) => ensureTable(doc, 'throughput')));
  const until = performance.now() + SECONDS * 1000;
  let calls = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const doc = docs[c % docs.length]!;
      for (let i = 0; performance.now() < until; i++) {
        await doc.send(new PutCommand({ TableName: 'throughput', Item: { pk: `c${c}#${i % 50}`, sk: '-', n: i } }));
        await doc.send(new GetCommand({ TableName: 'throughput', Key: { pk: `c${c}#${i % 50}`, sk: '-' }, ConsistentRead: true }));
        calls += 2;
      }
    }),
  );
  return calls / SECONDS;
}

async function databases(): Promise<string> {
  const dbs = await Promise.all([startDynamoDbLocal(), startDynamoDbLocal()]);
  try {
    // Warm both JVMs first, so neither side is measured cold.
    await throughput(dbs);
    const one = await throughput([dbs[0]!]);
    const two = await throughput(dbs);
    return [
      `### Databases: calls per second from ${CLIENTS} clients at once (puts and consistent gets, ${SECONDS} s each)`,
      '',
      '| DynamoDB Locals | calls/s |',
      '| --- | --- |',
      `| one | ${Math.round(one)} |`,
      `| two, the clients split between them | ${Math.round(two)} |`,
      '',
      `Two serve **${(two / one).toFixed(2)}×** what one does on ${cpus().length} cores: one DynamoDB Local already uses the host.`,
    ].join('\n');
  } finally {
    await Promise.all(dbs.map((db) => db.stop()));
  }
}

const loadBefore = loadavg()[0]!;
const sections = [await tablesMade(), await databases()];
const body = [
  `Run ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}; ` +
    `1-minute load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after.`,
  '',
  'Why the model property gives each sequence a model on its lane\'s table rather than a table of its own, and runs its lanes on one DynamoDB Local (docs/reliability.md, "Model property, with faults").',
  '',
  ...sections.flatMap((s) => [s, '']),
].join('\n');
console.log(body);
await writeSection(new URL('./RESULTS.md', import.meta.url).pathname, HEADING, body);
