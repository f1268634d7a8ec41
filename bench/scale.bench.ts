// `npm run bench:scale`: the controller driven at thousands of units by simulated agents
// (test/support/agent-simulator/: the real machine and unit agents on a thread of this
// process, hooks in-process), one machine per unit. For each size (BENCH_SIZES, default
// 1000,5000; 20000 only when asked), on a fresh table:
//
// 1. Start-up: applications of 100 units each, deployed one after another; units started per
//    second (deploy of the first to the start hook of the last), beside the raw write rate of
//    DynamoDB Local for the same writes (the writes of a 10-unit application's whole start-up,
//    captured, replayed on fresh keys: bench/support/raw-writes.ts), measured in the same run.
// 2. Per-operation DynamoDB requests in the big model: add-unit, set-unit-status, relate.
// 3. `status <app>` of a 10-unit application, and the full status read a page at a time (first
//    page, whole read, largest page), with their reads and times.
// 4. The notifier (the `changes` function) on an application-wide change: a config change of a
//    100-unit application, its reads per stream record, and the wave until every unit ran
//    config-changed.
//
// Everything goes through public entry points (the agent API, deploy and the other operations,
// readStatus and readStatusPageDoc), so the bench measures whatever main has. Records a section in bench/RESULTS.md.
import { PAGE_SIZE } from '#shared/messaging/affected-machines.js';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { availableParallelism, cpus, freemem, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startDynamoDbLocal, type DynamoDbLocal } from '../embedded/dynamodb-local.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { setApplicationConfig } from '#shared/state/operations/application-config.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { readStatus } from '#shared/state/queries/status.js';
import { readStatusPageDoc } from '#shared/state/queries/status-pages.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { startSimulatedController, type SimulatedController } from '../test/support/agent-simulator/simulated-controller.js';
import { findProcess, ownCpuSeconds, processCpuSeconds } from './support/proc-cpu.js';
import { RawWriter, describeShape, writeShapes, type WriteShape } from './support/raw-writes.js';
import { RequestCounter, minus, plus, type Counts } from './support/request-counter.js';
import { RequestLog, reads, tally, writes } from './support/request-log.js';
import { RequestsByOperation } from './support/requests-by-operation.js';
import { writeSection } from './support/results-file.js';
import { forEachLimited } from './support/timing.js';
import { waitFor } from '../test/support/wait-for.js';

const HEADING = '## Scale (npm run bench:scale)';
const SIZES = (process.env.BENCH_SIZES ?? '1000,5000').split(',').filter(Boolean).map(Number);
const APP_UNITS = 100;
const PROBE_UNITS = 10;
/** Units' worth of raw writes replayed (at most): enough for a steady rate. */
const RAW_UNITS = Number(process.env.BENCH_RAW_UNITS ?? 200);
const RAW_CONCURRENCY = 8;
/** The longest each raw replay series runs. */
const RAW_SECONDS = 45;
const TARGET_RATIO = 0.8;
const NPROC = availableParallelism();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Application names may not end in a number after a hyphen: 12 → "app-bc". */
const appName = (i: number) => `app-${[...String(i)].map((d) => 'abcdefghij'[Number(d)]).join('')}`;

interface Op {
  name: string;
  reads: number;
  writeActions: number;
  transactions: number;
}

interface SizeResult {
  units: number;
  deploySeconds: number;
  startSeconds: number;
  unitsPerSecond: number;
  /** From the 10th to the 90th percentile start: the rate once agents are up and before the tail. */
  steadyPerSecond: number;
  started: number;
  /** Every role's DynamoDB requests during the start-up, per unit. */
  perUnit: Counts;
  apiPerUnit: number;
  /** DynamoDB requests per unit during the start-up by role (user: the bench's deploys; api; changes; provisioner). */
  perRole: Record<string, { reads: number; writes: number }>;
  /** The API's DynamoDB requests per unit during the start-up, by `<agent operation> <command>`. */
  apiRequests: Map<string, number>;
  cpu: Cpu;
  sqsReceivesPerSecond: number;
  rssMb: number;
  /** The hottest partitions' writes per second during the start-up. */
  hottest: { pk: string; perSecond: number }[];
  raw: RawRate & { writesPerUnit: number; actionsPerUnit: number; shape: string; maxActions: number };
  ops: Op[];
  statusApp: { reads: number; ms: number; bytes: number };
  statusFull: PagedStatus;
  notifier: { records: number; reads: number; waveRecords: number; waveReads: number; waveSeconds: number; waveUnits: number };
}

/**
 * CPU seconds so far: the controller's thread (API, pollers, handlers), the simulated agents'
 * thread, fauxqs's thread, the rest of this process (the garbage collector's and libuv's threads)
 * and DynamoDB Local.
 */
interface Cpu {
  controller: number;
  agents: number;
  sqs: number;
  other: number;
  dynamodb: number;
}

async function cpuNow(controller: SimulatedController, dynamoPid: number | undefined): Promise<Cpu> {
  const threads = await controller.cpuSeconds();
  return {
    ...threads,
    other: ownCpuSeconds() - threads.controller - threads.agents - threads.sqs,
    dynamodb: dynamoPid ? processCpuSeconds(dynamoPid) : NaN,
  };
}

/** All CPU of a start-up, and what bounds the rate on this host: every core busy with it. */
const allCpu = (c: Cpu) => c.controller + c.agents + c.sqs + c.other + c.dynamodb;

/** Start times of units by name, from the in-process start hooks. */
const startedAt = new Map<string, number>();
const configChangedAt = new Map<string, number>();

/** Deploys the 10-unit probe application, recording every write of its whole start-up with snapshots. */
async function captureProbe(
  controller: SimulatedController,
  dynamo: DynamoDbLocal,
): Promise<{ shapes: WriteShape[]; userLog: RequestLog }> {
  const { stores } = controller;
  const reader = createStore({ table: stores.user.table, endpoint: dynamo.endpoint, region: 'local' });
  const logs = [stores.user, stores.api, stores.changes, stores.provisioner].map((s) => new RequestLog(s, reader));
  const nest = (i: number, fn: () => Promise<void>): Promise<unknown> =>
    i === logs.length
      ? fn()
      : logs[i]!.capture(() => nest(i + 1, fn), { snapshots: true }).then(({ requests }) => shapes.push(...writeShapes(requests)));
  const shapes: WriteShape[] = [];
  await nest(0, async () => {
    await deploy(stores.user, {
      charm: controller.charm.meta,
      name: 'probe',
      charmArchive: controller.charm.archive,
      numUnits: PROBE_UNITS,
    });
    await waitFor(
      'every probe unit started',
      () => [...startedAt.keys()].filter((u) => u.startsWith('probe/')).length,
      (n) => n === PROBE_UNITS,
      5 * 60_000,
      100,
    );
    // The agent's idle status after start, and what the stream consumers do about it.
    await pause(3_000);
    await controller.drain();
  });
  return { shapes, userLog: logs[0]! };
}

interface RawRate {
  unitsPerSecond: number;
  concurrency: number;
}

/**
 * DynamoDB Local's rate for a unit start's writes: whole replays of the probe's capture on fresh
 * keys, one at a time and RAW_CONCURRENCY at once (DynamoDB Local's transactions slow down when
 * many run at once), each for at most RAW_SECONDS; the better of the two, and at which concurrency.
 */
async function rawRate(dynamo: DynamoDbLocal, shapes: WriteShape[], table: string): Promise<RawRate> {
  const store = createStore({ table, endpoint: dynamo.endpoint, region: 'local' });
  let best = { unitsPerSecond: 0, concurrency: 0 };
  for (const concurrency of [1, RAW_CONCURRENCY]) {
    const writer = new RawWriter(store, `unit-start-${concurrency}`);
    const replays = Math.max(concurrency, Math.round(RAW_UNITS / PROBE_UNITS));
    await writer.prepare(shapes, replays);
    const t0 = performance.now();
    let done = 0;
    await forEachLimited([...Array(replays).keys()], concurrency, async () => {
      if (performance.now() - t0 > RAW_SECONDS * 1000) return;
      await writer.runAll(shapes);
      done++;
    });
    const unitsPerSecond = (done * PROBE_UNITS) / ((performance.now() - t0) / 1000);
    console.error(`bench:scale: raw replay, ${concurrency} at once: ${unitsPerSecond.toFixed(2)} units/s`);
    if (unitsPerSecond > best.unitsPerSecond) best = { unitsPerSecond, concurrency };
  }
  return best;
}

async function measured(log: RequestLog, name: string, fn: () => Promise<unknown>): Promise<Op> {
  const { requests } = await log.capture(fn);
  const t = tally(requests);
  return { name, reads: reads(t), writeActions: writes(t), transactions: t.transactions };
}

async function timedStatus(log: RequestLog, store: Store, select?: string[]): Promise<{ reads: number; ms: number; bytes: number }> {
  const runs: { reads: number; ms: number; bytes: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const { value, requests } = await log.capture(() => readStatus(store, select ? { select: { applications: select } } : {}));
    runs.push({ reads: reads(tally(requests)), ms: performance.now() - t0, bytes: JSON.stringify(value).length });
  }
  return runs.sort((a, b) => a.ms - b.ms)[1]!;
}

interface PagedStatus {
  /** Until the first page had arrived, and the last (the median of 3 reads). */
  firstMs: number;
  ms: number;
  reads: number;
  pages: number;
  /** The largest page's JSON, against Lambda's 6 MB response; and all pages together. */
  largestBytes: number;
  bytes: number;
}

/** The whole model's status as `drover status` reads it: a page at a time (readStatusPageDoc, the API's own read). */
async function timedPagedStatus(log: RequestLog, store: Store): Promise<PagedStatus> {
  const runs: PagedStatus[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const { value, requests } = await log.capture(async () => {
      const sizes: number[] = [];
      let firstMs = 0;
      let cursor: string | undefined;
      do {
        const page = await readStatusPageDoc(store, cursor ? { cursor } : {});
        if (!sizes.length) firstMs = performance.now() - t0;
        sizes.push(Buffer.byteLength(JSON.stringify(page)));
        cursor = page.cursor;
      } while (cursor);
      return { sizes, firstMs };
    });
    const { sizes, firstMs } = value;
    runs.push({
      firstMs,
      ms: performance.now() - t0,
      reads: reads(tally(requests)),
      pages: sizes.length,
      largestBytes: Math.max(...sizes),
      bytes: sizes.reduce((a, b) => a + b, 0),
    });
  }
  return runs.sort((a, b) => a.ms - b.ms)[1]!;
}

async function runSize(dynamo: DynamoDbLocal, dynamoPid: number | undefined, size: number): Promise<SizeResult> {
  const { result, shapes, table } = await runModel(dynamo, dynamoPid, size);
  // Side by side: DynamoDB Local's rate for the same writes, right after, once the model's
  // controller has stopped: nothing else runs on DynamoDB Local meanwhile. The replay writes into
  // the model's own table (on keys no operation lists), so it meets the table, its indexes and its
  // stream as the controller's last writes met them. Two earlier designs gave a rate that was not
  // DynamoDB Local's: beside a 1,000-unit model's agents and pollers it wrote 50 times slower per
  // request than the controller had; on a fresh table made after the model's was deleted, at 1.6
  // units a second, against 15 on the model's own table (DynamoDB Local slows down once tables
  // have been deleted: bench/RESULTS.md, "DynamoDB Local", "Tables made").
  try {
    console.error(`bench:scale: ${size} units: raw replay…`);
    const raw = await rawRate(dynamo, shapes, table);
    return { ...result, raw: { ...result.raw, ...raw } };
  } finally {
    await dropTable(dynamo, table);
  }
}

const dropTable = (dynamo: DynamoDbLocal, table: string) =>
  createStore({ table, endpoint: dynamo.endpoint, region: 'local' })
    .client.send(new DeleteTableCommand({ TableName: table }))
    .catch(() => undefined);

/** One model of `size` units: everything but the raw rate, and the probe's writes to replay for it. */
async function runModel(
  dynamo: DynamoDbLocal,
  dynamoPid: number | undefined,
  size: number,
): Promise<{ result: Omit<SizeResult, 'raw'> & { raw: Omit<SizeResult['raw'], keyof RawRate> }; shapes: WriteShape[]; table: string }> {
  startedAt.clear();
  configChangedAt.clear();
  const controller = await startSimulatedController({
    dynamoEndpoint: dynamo.endpoint,
    onHookRan: (hook, unit, at) => {
      if (hook === 'start') startedAt.set(unit, at);
      if (hook === 'config-changed' && startedAt.has(unit)) configChangedAt.set(unit, at);
    },
  });
  const { stores } = controller;
  const roles = Object.keys(stores) as (keyof typeof stores)[];
  const counters = roles.map((role) => new RequestCounter(stores[role]));
  const byOperation = new RequestsByOperation(stores.api);
  let finished = false;
  const changesCounter = counters[2]!;
  try {
    console.error(`bench:scale: ${size} units: the probe application, its writes captured…`);
    const { shapes, userLog } = await captureProbe(controller, dynamo);
    const rawWrites = shapes.length / PROBE_UNITS;
    const rawActions =
      shapes.reduce((n, s) => n + ('transaction' in s ? s.transaction.length : 'batch' in s ? s.batch.length : 1), 0) / PROBE_UNITS;
    const maxActions = Math.max(...shapes.map((s) => ('transaction' in s ? s.transaction.length : 'batch' in s ? s.batch.length : 1)));

    const bulk = size - PROBE_UNITS;
    console.error(`bench:scale: ${size} units: deploying ${bulk} units, one machine each…`);
    const roleCountsBefore = counters.map((c) => c.now());
    const countsBefore = plus(...roleCountsBefore);
    const apiBefore = [...controller.apiCalls.values()].reduce((a, b) => a + b, 0);
    const receivesBefore = (await controller.agents.stats()).receives;
    const byOperationBefore = byOperation.now();
    const cpuBefore = await cpuNow(controller, dynamoPid);
    for (const c of counters) c.byPartition = true;
    const t0 = Date.now();
    const apps: string[] = [];
    for (let i = 0, left = bulk; left > 0; i++, left -= APP_UNITS) {
      apps.push(appName(i));
      await deploy(stores.user, {
        charm: controller.charm.meta,
        name: appName(i),
        charmArchive: controller.charm.archive,
        numUnits: Math.min(APP_UNITS, left),
      });
    }
    const deploySeconds = (Date.now() - t0) / 1000;
    let lastReport = Date.now();
    await waitFor(
      'every unit started',
      () => {
        if (Date.now() - lastReport > 15_000) {
          lastReport = Date.now();
          console.error(`bench:scale: ${startedAt.size - PROBE_UNITS}/${bulk} started after ${Math.round((Date.now() - t0) / 1000)} s`);
        }
        return startedAt.size - PROBE_UNITS;
      },
      (started) => started >= bulk,
      60 * 60_000,
      100,
    );
    const starts = [...startedAt]
      .filter(([u]) => !u.startsWith('probe/'))
      .map(([, at]) => at)
      .sort((a, b) => a - b);
    const end = starts[starts.length - 1] ?? Date.now();
    const startSeconds = (end - t0) / 1000;
    for (const c of counters) c.byPartition = false;
    const cpuAfter = await cpuNow(controller, dynamoPid);
    const cpu: Cpu = {
      controller: cpuAfter.controller - cpuBefore.controller,
      agents: cpuAfter.agents - cpuBefore.agents,
      sqs: cpuAfter.sqs - cpuBefore.sqs,
      other: cpuAfter.other - cpuBefore.other,
      dynamodb: cpuAfter.dynamodb - cpuBefore.dynamodb,
    };
    const perUnitTotal = minus(plus(...counters.map((c) => c.now())), countsBefore);
    const perRole = Object.fromEntries(
      roles.map((role, i) => {
        const { reads, writes } = minus(counters[i]!.now(), roleCountsBefore[i]!);
        return [role, { reads: reads / bulk, writes: writes / bulk }];
      }),
    );
    const perUnit: Counts = {
      reads: perUnitTotal.reads / bulk,
      writes: perUnitTotal.writes / bulk,
      writeActions: perUnitTotal.writeActions / bulk,
      transactions: perUnitTotal.transactions / bulk,
    };
    const apiPerUnit = ([...controller.apiCalls.values()].reduce((a, b) => a + b, 0) - apiBefore) / bulk;
    const apiRequests = new Map([...byOperation.now()].map(([k, n]) => [k, (n - (byOperationBefore.get(k) ?? 0)) / bulk]));
    const sqsReceivesPerSecond = ((await controller.agents.stats()).receives - receivesBefore) / startSeconds;
    const partitions = new Map<string, number>();
    for (const c of counters) for (const [pk, n] of c.partitions) partitions.set(pk, (partitions.get(pk) ?? 0) + n);
    const hottest = [...partitions]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([pk, n]) => ({ pk: pk.replace(/^[^#]+#/, '<model>#'), perSecond: n / startSeconds }));
    const rssMb = process.memoryUsage().rss / 2 ** 20;
    const p10 = starts[Math.floor(starts.length * 0.1)]!;
    const p90 = starts[Math.floor(starts.length * 0.9)]!;
    const steadyPerSecond = (0.8 * starts.length) / Math.max(0.001, (p90 - p10) / 1000);
    console.error(`bench:scale: ${size} units: ${bulk} started in ${startSeconds.toFixed(1)} s`);

    console.error(`bench:scale: ${size} units: notifier on an application-wide change…`);
    await controller.drain();
    const changeCounts = changesCounter.now();
    const records0 = controller.streamRecords.get('changes') ?? 0;
    const configured = apps[0]!;
    const waveStart = Date.now();
    await setApplicationConfig(stores.user, configured, { set: { tuning: `size-${size}` } });
    await controller.drain();
    const firstCounts = changesCounter.now();
    const records1 = controller.streamRecords.get('changes') ?? 0;
    const waveUnits = Math.min(APP_UNITS, bulk);
    const isConfigured = (u: string) => u.startsWith(`${configured}/`);
    await waitFor(
      'config-changed on every unit of the wave',
      () => [...configChangedAt.keys()].filter(isConfigured).length,
      (n) => n >= waveUnits,
      5 * 60_000,
      100,
    );
    const waveSeconds = (Math.max(...[...configChangedAt].filter(([u]) => isConfigured(u)).map(([, at]) => at)) - waveStart) / 1000;
    await pause(2_000);
    await controller.drain();
    const notifier = {
      records: records1 - records0,
      reads: firstCounts.reads - changeCounts.reads,
      waveRecords: (controller.streamRecords.get('changes') ?? 0) - records0,
      waveReads: changesCounter.now().reads - changeCounts.reads,
      waveSeconds,
      waveUnits: [...configChangedAt.keys()].filter(isConfigured).length,
    };

    console.error(`bench:scale: ${size} units: status and operations…`);
    const statusApp = await timedStatus(userLog, stores.user, ['probe']);
    const statusFull = await timedPagedStatus(userLog, stores.user);
    // Each measured once, after one of the same kind on other entities (the snapshot cache warm).
    for (const name of ['rel-a', 'rel-b', 'rel-c', 'rel-d'])
      await deploy(stores.user, { charm: controller.charm.meta, name, charmArchive: controller.charm.archive, numUnits: 0 });
    await addUnits(stores.user, apps[apps.length - 1]!, { count: 1 });
    await setUnitStatus(stores.user, 'probe/1', { workload: { current: 'active', message: 'bench' } });
    await addRelation(stores.user, ['rel-a:backend', 'rel-b:api']);
    const ops = [
      await measured(userLog, 'add-unit', () => addUnits(stores.user, apps[0]!, { count: 1 })),
      await measured(userLog, 'set-unit-status', () =>
        setUnitStatus(stores.user, 'probe/0', { workload: { current: 'active', message: 'bench' } }),
      ),
      await measured(userLog, 'relate', () => addRelation(stores.user, ['rel-c:backend', 'rel-d:api'])),
    ];
    const ended = await controller.agents.ended();
    if (ended.length > 0) console.error(`bench:scale: agents that stopped by themselves: ${JSON.stringify(ended.slice(0, 5))}`);
    const result = {
      units: size,
      deploySeconds,
      startSeconds,
      unitsPerSecond: bulk / startSeconds,
      steadyPerSecond,
      started: starts.length + [...startedAt.keys()].filter((u) => u.startsWith('probe/')).length,
      perUnit,
      apiPerUnit,
      apiRequests,
      perRole,
      cpu,
      sqsReceivesPerSecond,
      rssMb,
      hottest,
      raw: {
        writesPerUnit: rawWrites,
        actionsPerUnit: rawActions,
        shape: describeShape(shapes),
        maxActions,
      },
      ops,
      statusApp,
      statusFull,
      notifier,
    };
    finished = true;
    return { result, shapes, table: stores.user.table };
  } finally {
    await controller.stop();
    // The table outlives a finished run for the raw replay (runSize drops it after).
    if (!finished) await dropTable(dynamo, stores.user.table);
  }
}

const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');

/** The rate if the start-up's CPU were spread over every core of this host with nothing else running. */
const floorRate = (r: SizeResult) => NPROC / (allCpu(r.cpu) / (r.units - PROBE_UNITS));

function startTable(results: SizeResult[]): string {
  return [
    `| units (machines) | started | deploy calls s | first deploy → last start s | units/s | units/s, 10th–90th start | raw DynamoDB Local units/s (same writes) | ratio (target ≥ ${TARGET_RATIO}) | CPU s: controller / agents / SQS / other threads / DynamoDB Local | controller CPU s per unit | host floor units/s (${NPROC} cores ÷ all CPU s per unit) | ratio to the floor | agent API req / unit | DynamoDB req / unit: reads / writes (items) | SQS receives/s | RSS MB |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.map(
      (r) =>
        `| ${r.units} (${r.units}) | ${r.started} | ${f(r.deploySeconds)} | ${f(r.startSeconds)} | ${f(r.unitsPerSecond, 2)} | ${f(r.steadyPerSecond, 2)} | ${f(r.raw.unitsPerSecond, 2)} (${r.raw.concurrency} at once) | ${f(r.unitsPerSecond / r.raw.unitsPerSecond, 2)} | ${f(r.cpu.controller)} / ${f(r.cpu.agents)} / ${f(r.cpu.sqs)} / ${f(r.cpu.other)} / ${f(r.cpu.dynamodb)} | ${f(r.cpu.controller / (r.units - PROBE_UNITS), 3)} | ${f(floorRate(r), 2)} | ${f(r.unitsPerSecond / floorRate(r), 2)} | ${f(r.apiPerUnit)} | ${f(r.perUnit.reads)} / ${f(r.perUnit.writes)} (${f(r.perUnit.writeActions)}) | ${f(r.sqsReceivesPerSecond)} | ${f(r.rssMb, 0)} |`,
    ),
  ].join('\n');
}

function rolesTable(results: SizeResult[]): string {
  const roles = Object.keys(results[0]?.perRole ?? {});
  return [
    `| units | ${roles.join(' | ')} |`,
    `| ---: | ${roles.map(() => '---:').join(' | ')} |`,
    ...results.map(
      (r) => `| ${r.units} | ${roles.map((role) => `${f(r.perRole[role]!.reads, 2)} / ${f(r.perRole[role]!.writes, 2)}`).join(' | ')} |`,
    ),
  ].join('\n');
}

/** The API's DynamoDB requests per unit start by agent operation and command, the most first. */
function apiRequestsTable(results: SizeResult[]): string {
  const keys = [...new Set(results.flatMap((r) => [...r.apiRequests.keys()]))];
  const last = results[results.length - 1]!;
  keys.sort((a, b) => (last.apiRequests.get(b) ?? 0) - (last.apiRequests.get(a) ?? 0));
  return [
    `| agent operation | DynamoDB request | ${results.map((r) => `${r.units} units: per unit start`).join(' | ')} |`,
    `| --- | --- | ${results.map(() => '---:').join(' | ')} |`,
    ...keys
      .filter((k) => results.some((r) => (r.apiRequests.get(k) ?? 0) >= 0.05))
      .map((k) => `| ${k.split(' ').join(' | ')} | ${results.map((r) => f(r.apiRequests.get(k) ?? 0, 2)).join(' | ')} |`),
  ].join('\n');
}

function opsTable(results: SizeResult[]): string {
  const names = results[0]?.ops.map((o) => o.name) ?? [];
  return [
    `| operation | ${results.map((r) => `${r.units} units: reads / items written (transactions)`).join(' | ')} |`,
    `| --- | ${results.map(() => '---:').join(' | ')} |`,
    ...names.map(
      (name) =>
        `| ${name} | ${results
          .map((r) => {
            const o = r.ops.find((x) => x.name === name)!;
            return `${o.reads} / ${o.writeActions} (${o.transactions})`;
          })
          .join(' | ')} |`,
    ),
  ].join('\n');
}

function statusTable(results: SizeResult[]): string {
  return [
    '| units | `status probe` (10 units): reads / ms / KiB | full status, paged: first page ms | whole: reads / ms / pages | largest page KiB | full status ms per unit | bytes per unit |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.map(
      (r) =>
        `| ${r.units} | ${r.statusApp.reads} / ${f(r.statusApp.ms)} / ${f(r.statusApp.bytes / 1024)} | ${f(r.statusFull.firstMs, 0)} | ${r.statusFull.reads} / ${f(r.statusFull.ms, 0)} / ${r.statusFull.pages} | ${f(r.statusFull.largestBytes / 1024, 0)} | ${f(r.statusFull.ms / r.units, 3)} | ${f(r.statusFull.bytes / r.units, 0)} |`,
    ),
  ].join('\n');
}

function notifierTable(results: SizeResult[]): string {
  return [
    '| units | the change: records / notifier reads / reads per record | the wave (every unit ran config-changed): units / s / records / reads / reads per record |',
    '| ---: | ---: | ---: |',
    ...results.map(
      (r) =>
        `| ${r.units} | ${r.notifier.records} / ${r.notifier.reads} / ${f(r.notifier.reads / Math.max(1, r.notifier.records), 2)} | ${r.notifier.waveUnits} / ${f(r.notifier.waveSeconds)} / ${r.notifier.waveRecords} / ${r.notifier.waveReads} / ${f(r.notifier.waveReads / Math.max(1, r.notifier.waveRecords), 2)} |`,
    ),
  ].join('\n');
}

function writesTable(results: SizeResult[]): string {
  return [
    "| units | a unit start's writes (captured on the probe application, per unit): requests / items | largest request, items | shape (10 units) | hottest partitions during start-up, items written per second |",
    '| ---: | ---: | ---: | --- | --- |',
    ...results.map(
      (r) =>
        `| ${r.units} | ${f(r.raw.writesPerUnit)} / ${f(r.raw.actionsPerUnit)} | ${r.raw.maxActions} | ${r.raw.shape} | ${r.hottest.map((h) => `\`${h.pk}\` ${f(h.perSecond)}`).join(', ')} |`,
    ),
  ].join('\n');
}

/** Linear in units from the largest size measured; what each figure is at 100k units / 10k machines. */
function extrapolation(results: SizeResult[]): string {
  const r = results[results.length - 1]!;
  const k = 100_000 / r.units;
  const fullMs = r.statusFull.ms * k;
  const fullPages = r.statusFull.pages * k;
  const fullReads = r.statusFull.reads * k;
  return [
    `From the ${r.units}-unit run, scaled linearly to 100,000 units (AWS figures from the AWS quotas pages; a real 10k-machine model packs 10 units a machine, which shrinks the machines' share of status):`,
    '',
    '| figure | measured | at 100k units | the AWS limit it approaches |',
    '| --- | ---: | ---: | --- |',
    `| full status, largest page | ${f(r.statusFull.largestBytes / 1024, 0)} KiB | at most 1 MB whatever the size (900 KB of entities, 1,000 entities a page) | Lambda's 6 MB response payload (${f(r.statusFull.largestBytes / (6 * 2 ** 20), 2)} of it here) |`,
    `| full status, first page | ${f(r.statusFull.firstMs, 0)} ms | the same (one bounded page) | API Gateway's 29 s integration timeout, for each page's request (${f(r.statusFull.firstMs / 29_000, 3)} of it here) |`,
    `| full status, whole read | ${f(r.statusFull.ms, 0)} ms in ${r.statusFull.pages} pages | ${f(fullMs / 1000)} s in about ${f(fullPages, 0)} pages (DynamoDB Local on this host) | none per request: each page is its own request; the read as a whole grows with the model, as Juju's does |`,
    `| full status reads | ${r.statusFull.reads} requests | ${f(fullReads, 0)} requests, 4 at a time within a page | 3,000 RCU per partition: each page is a Query of the sharded byCollection index, so reads spread over shards, not one partition |`,
    `| \`status <app>\` (10 units) | ${r.statusApp.reads} reads, ${f(r.statusApp.ms)} ms | the same if flat (compare the sizes above) | none |`,
    `| unit starts | ${f(r.unitsPerSecond, 1)} /s, ${f(r.perUnit.writeActions)} items written each | 100k units at this rate: ${f(100_000 / r.unitsPerSecond / 60, 0)} min | DynamoDB's 1,000 WCU per partition: the hottest partition took ${r.hottest[0] ? `${f(r.hottest[0].perSecond)} items/s (\`${r.hottest[0].pk}\`)` : '–'} at this rate, so it holds up to ${r.hottest[0] ? f((1000 / r.hottest[0].perSecond) * r.unitsPerSecond, 0) : '–'} unit starts/s (an item over 1 KB costs more WCU); a table's default quota is 40,000 WCU |`,
    `| largest transaction in a unit start | ${r.raw.maxActions} items | the same (no transaction grows with the model) | 100 actions / 4 MB per transaction |`,
    `| notifier, application-wide change of ${r.notifier.waveUnits} units | ${r.notifier.reads} reads for ${r.notifier.records} record(s) | an application of 100k units on 10k machines: the unit listing in pages of ${PAGE_SIZE} (${f(100_000 / PAGE_SIZE, 0)} index Queries, ${f(100_000 / 100, 0)} BatchGetItems 4 at a time, the next page read while one is sent) and a hint on each of 10k machine queues (one SQS send each, 48 in flight) | the changes function's 60 s timeout (infra/functions.ts) for one record's fan-out; SQS standard queues take a nearly unlimited request rate; 3,000 RCU per partition for the units' index pages |`,
  ].join('\n');
}

function method(): string {
  return `### Method

- The local controller's wiring in this process, as bench/agents.bench.ts assembles it (test/support/agent-simulator/simulated-controller.ts): DynamoDB Local in memory (a separate Java process, a new one for each size), the provisioner and changes functions on stream pollers with their mappings' settings (functions/stream-consumers.ts), the API on 127.0.0.1, all on the process's main thread; fauxqs on a thread of its own, and the simulated agents on another (test/support/agent-simulator/thread-rpc.ts), as SQS and the agents' instances are apart from the controller on AWS. The provider is the agent simulator: each machine the provisioner starts is the real MachineAgent (agent/machine/machine-agent.ts) on the agents' thread, with its real unit agents, signing with the key the provisioner handed it, through the real API client (agent/api-client.ts) over HTTP (a shared keep-alive pool of 128 connections). Only two things differ from an agent process: hooks run in-process (the charm's install and config-changed do nothing, start calls \`status-set active\` through the unit agent's real tool socket), and the SQS receives of all agents go through 16 shared workers polling the real queues (short polls: a queue at once when a hint was sent to it, then after 0.2 s doubling to 5 min while empty). A real agent's long poll also returns at once on a hint, but costs one receive per 20 s while idle: that is SQS's work, not the controller's, so the receives per second here are fewer than on AWS (an idle agent: 180 receives an hour there).
- One machine per unit (\`deploy -n\`), applications of ${APP_UNITS} units deployed one after another, plus a 10-unit application \`probe\` deployed first. Units started per second = the bulk units ÷ the time from the first bulk deploy call to the last start hook's \`status-set active\` written. CPU over that window, each thread from /proc/thread-self/stat: the controller's (API, pollers, handlers), the agents', fauxqs's, the rest of this process (the garbage collector's and libuv's threads) and DynamoDB Local, on a ${NPROC}-core host shared with other jobs (load average in the header). The host's floor is the rate if all of that CPU were spread over its ${NPROC} cores with nothing else running: the most this host can start, whatever the code's concurrency; the ratio to it says how much of the host the start-up used. DynamoDB requests are counted by middleware on each role's client (stream polls are not), the API's by the agent operation it was serving (bench/support/requests-by-operation.ts).
- Raw rate: every write request of the probe application's whole start-up (deploy, provisioner, agent API, changes function; captured with the items each targets), replayed on fresh keys of the model's own table (bench/support/raw-writes.ts: keys no operation lists), one replay at a time and ${RAW_CONCURRENCY} at once, each series ${RAW_UNITS} units' worth or ${RAW_SECONDS} s, whichever ends first, right after the size's run, once its controller has stopped (nothing else running on DynamoDB Local), so the writes meet the table, its indexes and its stream as the controller's last ones did; the better rate counts: the rate DynamoDB Local writes what a unit start needs, with no reads, API, agents or stream. The ratio sets the controller's start rate against it.
- Operations (add-unit to a ${APP_UNITS}-unit application, set-unit-status, relate two applications), each called once after one of its kind on other entities; \`status probe\` read by readStatus with the application selected and the whole status a page at a time by readStatusPageDoc (the API's own reads, as \`drover status\` makes them), the median of 3 runs; the DynamoDB requests counted by middleware on the client.
- Notifier: \`config\` of one ${APP_UNITS}-unit application; the changes function's reads until its pollers drained (the change itself), then until every unit of it ran config-changed (the wave: agents' view reads are API reads, not the function's).`;
}

async function main() {
  const before = loadavg();
  const began = Date.now();
  const results: SizeResult[] = [];
  for (const size of SIZES) {
    // A DynamoDB Local of its own for each size: one that had a size's table before (dropped, its
    // stream's records kept) once spent minutes in each DescribeStream of the next size's pollers,
    // holding the one queue every request waits on.
    const dynamo = await startDynamoDbLocal();
    try {
      results.push(await runSize(dynamo, findProcess('DynamoDBLocal.jar', `-port ${dynamo.port}`), size));
    } finally {
      await dynamo.stop();
    }
    console.error(startTable(results));
    console.error(rolesTable(results));
    console.error(apiRequestsTable(results));
  }
  const header = `Run ${new Date().toISOString().slice(0, 10)}: node ${process.version}, nproc ${NPROC} (${cpus()[0]?.model.trim() ?? 'unknown'}), ${Math.round(freemem() / 2 ** 30)} GiB free. Sizes ${SIZES.join(', ')}; whole run ${Math.round((Date.now() - began) / 1000)} s; 1-minute load average ${before[0]!.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after.`;
  const body = [
    header,
    '### Start-up',
    startTable(results),
    writesTable(results),
    'DynamoDB requests per unit start by role, reads / writes (stream polls not counted):',
    rolesTable(results),
    "The API's DynamoDB requests during the start-up, by the agent operation they served (`other`: user requests and the rest):",
    apiRequestsTable(results),
    '### Operations in the big model',
    opsTable(results),
    '### Status',
    statusTable(results),
    '### Notifier',
    notifierTable(results),
    '### At 100k units / 10k machines on AWS',
    extrapolation(results),
    method(),
  ].join('\n\n');
  console.log(body);
  await writeSection(join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md'), HEADING, body);
}

await main();
