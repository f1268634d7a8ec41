// `npm run bench:sdk`: what one DynamoDB request costs this process's CPU through a client as the
// AWS SDK makes it, against drover's own (createStore: the SDK's request logging removed,
// shared/aws/without-request-logging.ts), side by side in one run, recorded in bench/RESULTS.md.
//
// The requests are the state layer's own, on a deployed application's items: a unit read
// (GetItem), a unit and its machine (BatchGetItem, as an agent request's first read does) and
// set-unit-status (a read and a transaction). Each is sent BENCH_CALLS times, 8 at once, through
// each client in turn, over BENCH_ROUNDS rounds; the median round counts. DynamoDB Local's CPU is
// not counted: it answers both clients alike.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDynamoDbLocal } from '../embedded/dynamodb-local.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getEach, getUnit } from '#shared/state/engine/reads.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { parseCharm } from '#shared/domain/charm.js';
import { writeSection } from './support/results-file.js';

const HEADING = '## SDK requests (npm run bench:sdk)';
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const AT_ONCE = 8;
const UNITS = 8;

const CHARM = parseCharm(
  'name: sdk\nsummary: a charm for the bench\nseries: [jammy]\nprovides:\n  api: sdk-api\n',
  'options:\n  tuning: {type: string, default: "", description: any value}\n',
);

interface Request {
  name: string;
  send: (store: Store, i: number) => Promise<unknown>;
}

const REQUESTS: Request[] = [
  { name: 'GetItem (a unit)', send: (store, i) => getUnit(store, `sdk/${i % UNITS}`) },
  {
    name: 'BatchGetItem (a unit and its machine)',
    send: (store, i) =>
      getEach(store, [
        { kind: 'unit', name: `sdk/${i % UNITS}` },
        { kind: 'machine', id: String(i % UNITS) },
      ]),
  },
  {
    name: 'set-unit-status (a read and a TransactWriteItems)',
    send: (store, i) => setUnitStatus(store, `sdk/${i % UNITS}`, { workload: { current: 'active', message: `round ${i}` } }),
  },
];

/** CPU µs of this process per call: `CALLS` calls, `AT_ONCE` at a time. */
async function cpuPerCall(store: Store, request: Request): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i += AT_ONCE) await Promise.all(Array.from({ length: AT_ONCE }, (_, k) => request.send(store, i + k)));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const load = loadavg()[0]!;
  const dynamo = await startDynamoDbLocal();
  try {
    const table = 'sdk-requests';
    // No snapshot cache: every read goes to DynamoDB, which is what is measured.
    const drover = createStore({ table, endpoint: dynamo.endpoint, region: 'local', cache: false });
    const sdkDefault = createStore({
      table,
      cache: false,
      client: new DynamoDBClient({ region: 'local', endpoint: dynamo.endpoint, credentials: localCredentials() }),
    });
    await ensureTable(drover.client, table);
    await ensureModel(drover);
    await deploy(drover, { charm: CHARM, numUnits: UNITS });
    const rows: string[] = [];
    for (const request of REQUESTS) {
      // Warm both clients (connections, the JIT) before measuring.
      for (const store of [sdkDefault, drover]) for (let i = 0; i < 200; i++) await request.send(store, i);
      const sdk: number[] = [];
      const own: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        sdk.push(await cpuPerCall(sdkDefault, request));
        own.push(await cpuPerCall(drover, request));
      }
      const [a, b] = [median(sdk), median(own)];
      console.error(`bench:sdk: ${request.name}: ${a.toFixed(0)} µs → ${b.toFixed(0)} µs`);
      rows.push(`| ${request.name} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(b / a).toFixed(2)} |`);
    }
    const body = [
      `Run ${new Date().toISOString().slice(0, 10)}: node ${process.version}, nproc ${cpus().length} (${cpus()[0]?.model.trim() ?? 'unknown'}); 1-minute load average ${load.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after. ${CALLS} calls a round, ${AT_ONCE} at once, median of ${ROUNDS} rounds alternating between the clients.`,
      [
        "| request | CPU µs a call, the SDK's client as it comes | drover's client (no request logging) | ratio |",
        '| --- | ---: | ---: | ---: |',
        ...rows,
      ].join('\n'),
      "The SDK's logger middleware walks every request's input and output to blank sensitive fields before it calls its logger, and a client given no logger has a no-op one that is called all the same (shared/aws/without-request-logging.ts). This process's CPU only: DynamoDB Local answers both alike.",
    ].join('\n\n');
    console.log(body);
    await writeSection(join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md'), HEADING, body);
  } finally {
    await dynamo.stop();
  }
}

await main();
