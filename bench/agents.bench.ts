// `npm run bench:agents`: the agents at scale on the local provider.
//
// 1. Start-up, two series, each N = 1, 10, 100 (BENCH_SERIES), each on a fresh table and agents:
//    - fresh machines: `deploy -n N`, each unit on a new machine: provisioning included;
//    - running machines: N machines added and their agents started beforehand, then
//      `deploy -n N --to <them>`: what Kubernetes' pod start SLO (p99 ≤ 5 s) measures, which
//      excludes node provisioning.
//    Per unit: the time from the deploy call to its start hook (which records the time). Target:
//    p99 ≤ 2 s. And the CPU time every process spent meanwhile (this process — the controller's
//    wiring —, DynamoDB Local, every agent with its hooks), so the table shows the floor this host
//    puts under p99: all that CPU time spread over its cores.
// 2. Idle cost, after the fresh N = 100 start-up: with every unit started and the hints settled,
//    the agents' requests over a window (default 120 s), per agent-hour: agent API requests (every
//    DynamoDB read an agent causes is behind one) and SQS requests. Target: ≤ 200 requests per
//    idle agent-hour, no DynamoDB reads. The periodic resync and the presence heartbeat come at
//    most every 8 and 5 minutes, after the agent's start-up requests, so they fall outside the
//    window: the total adds them at their rates (heartbeats at their bound, one per 5 min).
//    update-status runs in the window (the model's interval set to 1m for it): its hook sets the
//    status the start hook set, so it should cost no request.
// 3. Leader failover, BENCH_FAILOVERS times (default 20), on FAILOVERS + 1 fresh units:
//    the leader's unit removed → `leader-elected` ran on another unit; p50 and p99.
//
// 0. The floor under a unit start's CPU, first: the charm's start-up hooks run as a unit agent runs
//    them, with nothing of drover's around them (bench/support/hook-floor.ts).
// Diagnostics (not recorded): BENCH_AGENT_CPU_PROF=<dir> profiles every agent (`node --cpu-prof`),
// BENCH_COUNT_DYNAMODB=1 prints each start-up's DynamoDB requests per unit by action,
// BENCH_TRACE_FAILOVERS=1 prints each failover's milestones from the agents' log.
//
// The agent is the one the local controller runs (shared/provider/local/agent-build.ts). Records a
// section in bench/RESULTS.md.
import { startCountingApi } from './support/counting-api.js';
import { silentLogger } from '../test/support/silent-logger.js';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, freemem, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_HEARTBEAT_SECONDS, DEFAULT_RESYNC_SECONDS } from '../agent/config.js';
import { STREAM_CONSUMERS } from '../functions/stream-consumers.js';
import { LOCAL_PROVISIONING_CONCURRENCY, LOCAL_STREAM_POLLING } from '../embedded/controller.js';
import { nudgeOnWrites } from '../embedded/stream/write-nudges.js';
import { pollerSettingsOf } from '../embedded/stream/consumer-settings.js';
import { startSqsServer } from '../embedded/sqs-server.js';
import { createStreamPoller } from '../embedded/stream-poller.js';
import { packCharmDir } from '#shared/charmstore/charm-archive.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { parseCharm } from '#shared/domain/charm.js';
import { UPDATE_STATUS_HOOK_INTERVAL } from '#shared/domain/model-config.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { buildLocalAgent } from '#shared/provider/local/agent-build.js';
import { LocalProvider } from '#shared/provider/local/local-provider.js';
import { machineDirOf, readRecord } from '#shared/provider/local/machine-dir.js';
import { derivedAgentCredentials, newAgentCredentialKey } from '#shared/provisioner/agent-credentials.js';
import { sqsMachineQueues } from '#shared/provisioner/sqs-machine-queues.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { startDynamoDbLocal, type DynamoDbLocal } from '../embedded/dynamodb-local.js';
import { ensureModel, setModelConfig } from '#shared/state/operations/model.js';
import { getMachine } from '#shared/state/engine/reads.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { killAllAgents } from '../test/support/local-agents.js';
import { startCountingProxy, type CountingProxy } from './support/counting-proxy.js';
import { findProcess, ownCpuSeconds, processCpuSeconds } from './support/proc-cpu.js';
import { writeSection } from './support/results-file.js';
import { percentile } from './support/timing.js';
import { hookFloorCpuPerUnit } from './support/hook-floor.js';

const HEADING = '## Agents (npm run bench:agents)';
const SERIES = (process.env.BENCH_SERIES ?? '1,10,100').split(',').map(Number);
const KINDS = (process.env.BENCH_KINDS ?? 'fresh,running')
  .split(',')
  .map((k): Series => (k === 'fresh' ? 'fresh machines' : 'running machines'));
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 120);
const FAILOVERS = Number(process.env.BENCH_FAILOVERS ?? 20);
/** The model's update-status interval during the idle window: the shortest Juju allows, so every agent runs it there. */
const IDLE_UPDATE_STATUS = process.env.BENCH_IDLE_UPDATE_STATUS ?? '1m';
/** Diagnostics: a directory for every agent's `node --cpu-prof` profile (written when it exits). */
const AGENT_CPU_PROF = process.env.BENCH_AGENT_CPU_PROF;
/** Diagnostics: count the DynamoDB requests of each start-up by action (through a proxy, whose own CPU counts as the controller's). */
const COUNT_DYNAMODB = process.env.BENCH_COUNT_DYNAMODB === '1';
/** Diagnostics: print each failover's milestones from the agents' log. */
const TRACE_FAILOVERS = process.env.BENCH_TRACE_FAILOVERS === '1';
const NPROC = availableParallelism();
const CONTROLLER = 'bench';
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** One `view` per resync for a unit in no relation (each relation in scope adds a `relation-units`). */
const RESYNC_PER_HOUR = 3600 / DEFAULT_RESYNC_SECONDS;

/**
 * A charm whose hooks do next to nothing: start sets the workload active and records when it ran,
 * update-status sets the same status again (as charms do; unchanged, it costs no request), and
 * leader-elected records when it ran.
 */
function trivialCharm(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-trivial-'));
  mkdirSync(join(dir, 'hooks'));
  writeFileSync(join(dir, 'metadata.yaml'), 'name: trivial\nsummary: trivial hooks\nseries: [jammy]\n');
  const hooks: Record<string, string> = {
    install: 'exit 0',
    'config-changed': 'exit 0',
    start: 'status-set active\ndate +%s%3N > "$CHARM_DIR/../started-at"',
    'update-status': 'status-set active\ndate +%s%3N >> "$CHARM_DIR/../update-status-at"',
    'leader-elected': 'date +%s%3N >> "$CHARM_DIR/../elected-at"',
  };
  for (const [hook, body] of Object.entries(hooks)) {
    writeFileSync(join(dir, 'hooks', hook), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, 'hooks', hook), 0o755);
  }
  return dir;
}

/**
 * Where a unit's start-up time goes: provisioning (deploy call → agent process started), agent
 * start (→ the agent's first log line), deploy (→ unit deployed: view, charm fetched and
 * unpacked; on running machines from the deploy call, so it includes the hint), hooks (→ start
 * ran: install, config-changed, start and their status writes).
 */
const PHASES = ['provisioning', 'agent start', 'deploy', 'hooks'] as const;
type Phase = (typeof PHASES)[number];
type Phases = Partial<Record<Phase, { p50: number; p99: number }>>;
type Series = 'fresh machines' | 'running machines';

interface CpuSeconds {
  controller: number;
  dynamodb: number;
  agents: number;
}

interface StartUp {
  series: Series;
  units: number;
  started: number;
  p50: number;
  p99: number;
  max: number;
  phases: Phases;
  cpu: CpuSeconds;
  /** Agent API requests from the deploy call to the last start, by operation. */
  apiCalls: Map<string, number>;
  loadBefore: number;
}

interface Idle {
  units: number;
  idleSeconds: number;
  apiPerAgentHour: number;
  receivesPerAgentHour: number;
  otherSqsPerAgentHour: number;
  rssMb: number;
  /** update-status hooks run in the window, all agents together. */
  updateStatusRuns: number;
}

interface Environment {
  store: Store;
  dataDir: string;
  proxy: CountingProxy;
  apiCalls: Map<string, number>;
  /** DynamoDB requests by action, when BENCH_COUNT_DYNAMODB=1. */
  dynamoCounts?: Map<string, number>;
  charmDir: string;
  charmArchive: Awaited<ReturnType<ReturnType<typeof localCharmStore>['put']>>;
  drain(): Promise<void>;
  stop(): Promise<void>;
}

async function environment(dynamoLocal: DynamoDbLocal, charmDir: string): Promise<Environment> {
  const dynamoProxy = COUNT_DYNAMODB ? await startCountingProxy(dynamoLocal.endpoint) : undefined;
  const dynamo = { endpoint: dynamoProxy?.endpoint ?? dynamoLocal.endpoint };
  const store = createStore({ table: `bench-agents-${randomUUID()}`, endpoint: dynamo.endpoint, region: 'local' });
  await ensureTable(store.client, store.table);
  await ensureModel(store);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-agents-'));
  const sqsServer = await startSqsServer();
  const proxy = await startCountingProxy(sqsServer.endpoint);
  const sqs = createSqsClient({ endpoint: sqsServer.endpoint });
  const charms = localCharmStore(join(dataDir, 'charms'));
  // The provisioner hands out the keys the API checks agents' signatures against.
  const agentKeys = derivedAgentCredentials(newAgentCredentialKey());
  const api = await startCountingApi({
    store,
    charms,
    agentKeys,
    token: 'bench',
    controller: CONTROLLER,
    logsDir: join(dataDir, 'logs'),
  });
  const apiCalls = api.apiCalls;
  const agentCommand = await buildLocalAgent(dataDir);
  if (AGENT_CPU_PROF) agentCommand.splice(1, 0, '--cpu-prof', `--cpu-prof-dir=${AGENT_CPU_PROF}`);
  const provider = new LocalProvider({
    dataDir,
    agentCommand,
    env: { DROVER_SQS_ENDPOINT: proxy.endpoint, AWS_REGION: 'local' },
    stopGraceMs: 2_000,
  });
  const provisioner = {
    store,
    provider,
    queues: sqsMachineQueues(sqs, CONTROLLER),
    credentials: agentKeys,
    controllerId: CONTROLLER,
    apiUrl: api.url,
    policy: { concurrency: LOCAL_PROVISIONING_CONCURRENCY },
  };
  // As the local controller wires them (embedded/controller.ts).
  const pollers = STREAM_CONSUMERS.map((consumer) =>
    createStreamPoller({
      ...pollerSettingsOf(consumer),
      tableName: store.table,
      endpoint: dynamo.endpoint,
      region: 'local',
      credentials: localCredentials(),
      handler: consumer.create({ provisioner, changes: { store, sqs, controllerId: CONTROLLER, logger: silentLogger } }),
      startingPosition: 'TRIM_HORIZON',
      ...LOCAL_STREAM_POLLING,
      onFailure: async () => undefined,
      log: () => undefined,
    }),
  );
  nudgeOnWrites(store.client, () => {
    for (const p of pollers) p.nudge();
  });
  for (const p of pollers) await p.start();
  const charmArchive = await charms.put(await packCharmDir(charmDir));
  return {
    store,
    dataDir,
    proxy,
    apiCalls,
    ...(dynamoProxy ? { dynamoCounts: dynamoProxy.counts } : {}),
    charmDir,
    charmArchive,
    drain: async () => {
      for (const p of pollers) await p.drain();
    },
    stop: async () => {
      for (const p of pollers) await p.stop();
      // A profile is written only by an agent that exits: SIGTERM, not SIGKILL.
      if (AGENT_CPU_PROF) await provider.shutDownAgents(CONTROLLER);
      await killAllAgents(dataDir);
      await api.close();
      await proxy.close();
      await dynamoProxy?.close();
      sqs.destroy();
      await sqsServer.stop();
    },
  };
}

const agentPids = (dataDir: string, machines: string[]) =>
  machines.map((m) => readRecord(machineDirOf(dataDir, m))?.pid).filter((pid): pid is number => pid !== undefined);

function cpuNow(dataDir: string, machines: string[], dynamoPid: number | undefined): CpuSeconds {
  return {
    controller: ownCpuSeconds(),
    dynamodb: dynamoPid ? processCpuSeconds(dynamoPid) : NaN,
    agents: agentPids(dataDir, machines).reduce((sum, pid) => sum + processCpuSeconds(pid), 0),
  };
}

const cpuSince = (before: CpuSeconds, after: CpuSeconds): CpuSeconds => ({
  controller: after.controller - before.controller,
  dynamodb: after.dynamodb - before.dynamodb,
  agents: after.agents - before.agents,
});

const unitDir = (dataDir: string, machine: string, unit: string) => join(machineDirOf(dataDir, machine), 'units', unit.replace('/', '-'));

async function waitForStarts(dataDir: string, units: string[], machines: string[]): Promise<Map<string, number>> {
  const startedAt = new Map<string, number>();
  const deadline = Date.now() + 15 * 60_000;
  while (startedAt.size < units.length && Date.now() < deadline) {
    units.forEach((unit, i) => {
      if (startedAt.has(unit)) return;
      // A stat, not a read that throws, for each unit not started yet: this loop's CPU counts as the controller's.
      const file = join(unitDir(dataDir, machines[i]!, unit), 'started-at');
      if (!existsSync(file)) return;
      const at = Number(readFileSync(file, 'utf8'));
      if (at > 0) startedAt.set(unit, at);
    });
    await pause(100);
  }
  return startedAt;
}

/** Adds N machines and waits until every agent has reported its machine started, then for quiet. */
async function runningMachines(env: Environment, count: number): Promise<string[]> {
  const machines = await addMachines(env.store, { count });
  const deadline = Date.now() + 10 * 60_000;
  for (const id of machines) {
    while ((await getMachine(env.store, id))?.agentStatus.current !== 'started' && Date.now() < deadline) await pause(200);
  }
  await pause(5_000);
  await env.drain();
  await pause(2_000);
  return machines;
}

async function startUp(env: Environment, series: Series, n: number, dynamoPid: number | undefined): Promise<StartUp> {
  const placed = series === 'running machines' ? await runningMachines(env, n) : [];
  const loadBefore = loadavg()[0]!;
  const cpuBefore = cpuNow(env.dataDir, placed, dynamoPid);
  const callsBefore = new Map(env.apiCalls);
  const dynamoBefore = new Map(env.dynamoCounts);
  const t0 = Date.now();
  const deployed = await deploy(env.store, {
    charm: parseCharm(readFileSync(join(env.charmDir, 'metadata.yaml'), 'utf8')),
    charmArchive: env.charmArchive,
    numUnits: n,
    ...(placed.length ? { to: placed } : {}),
  });
  const units = deployed.units;
  // deploy reports the machines it added; placed units are on `placed`, in order.
  const machines = placed.length ? placed : deployed.machines;
  const startedAt = await waitForStarts(env.dataDir, units, machines);
  const cpu = cpuSince(cpuBefore, cpuNow(env.dataDir, machines, dynamoPid));
  const apiCalls = new Map([...env.apiCalls].map(([op, count]) => [op, count - (callsBefore.get(op) ?? 0)] as const));
  if (env.dynamoCounts) {
    const perUnit = [...env.dynamoCounts]
      .sort((a, b) => b[1] - (dynamoBefore.get(b[0]) ?? 0) - (a[1] - (dynamoBefore.get(a[0]) ?? 0)))
      .map(([op, count]) => `${op.trim()} ${((count - (dynamoBefore.get(op) ?? 0)) / n).toFixed(2)}`);
    console.error(`bench:agents: DynamoDB requests per unit, ${series}: ${perUnit.join(', ')}`);
  }
  const latencies = [...startedAt.values()].map((at) => (at - t0) / 1000).sort((a, b) => a - b);
  return {
    series,
    units: units.length,
    started: startedAt.size,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    phases: await startPhases(env.dataDir, machines, units, t0, series),
    cpu,
    apiCalls,
    loadBefore,
  };
}

/** When the units on these machines ran update-status (their hook appends the time). */
function updateStatusTimes(dataDir: string, machines: string[]): number[] {
  return machines.flatMap((machine) => {
    const units = join(machineDirOf(dataDir, machine), 'units');
    return (existsSync(units) ? readdirSync(units) : []).flatMap((unit) => {
      try {
        return readFileSync(join(units, unit, 'update-status-at'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map(Number);
      } catch {
        return [];
      }
    });
  });
}

async function idleCost(env: Environment, machines: string[]): Promise<Idle> {
  // update-status at the shortest interval, so that it runs in the window: its cost is counted.
  await setModelConfig(env.store, { set: { [UPDATE_STATUS_HOOK_INTERVAL]: IDLE_UPDATE_STATUS } });
  // Settle: the agents go idle (and read the new interval), and the echoes of their last writes are delivered.
  await pause(10_000);
  await env.drain();
  await pause(2_000);
  const sqsBefore = new Map(env.proxy.counts);
  const apiRequestsBut = (skipped: string) => [...env.apiCalls].reduce((sum, [op, n]) => (op === skipped ? sum : sum + n), 0);
  const apiBefore = apiRequestsBut('heartbeat');
  const windowStart = Date.now();
  await pause(IDLE_SECONDS * 1000);
  const windowEnd = Date.now();
  let receives = 0;
  let otherSqs = 0;
  for (const [key, n] of env.proxy.counts) {
    const delta = n - (sqsBefore.get(key) ?? 0);
    if (key.startsWith('ReceiveMessage ')) receives += delta;
    else otherSqs += delta;
  }
  const perAgentHour = (n: number) => (n / machines.length) * (3600 / IDLE_SECONDS);
  return {
    units: machines.length,
    idleSeconds: IDLE_SECONDS,
    apiPerAgentHour: perAgentHour(apiRequestsBut('heartbeat') - apiBefore),
    receivesPerAgentHour: perAgentHour(receives),
    otherSqsPerAgentHour: perAgentHour(otherSqs),
    rssMb: agentRssMb(env.dataDir, machines),
    updateStatusRuns: updateStatusTimes(env.dataDir, machines).filter((at) => at >= windowStart && at <= windowEnd).length,
  };
}

interface Failover {
  failovers: number;
  /** Seconds from the leader's removal to leader-elected on another unit. */
  samples: number[];
}

/** The times a unit's leader-elected hook ran (ms), from the file it appends to. */
function electedTimes(dataDir: string, machine: string, unit: string): number[] {
  try {
    return readFileSync(join(unitDir(dataDir, machine, unit), 'elected-at'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * FAILOVERS + 1 units on fresh machines; then, FAILOVERS times: remove the leader's unit and time
 * until leader-elected has run on another unit. Each new leader is the next one removed.
 */
async function leaderFailover(env: Environment): Promise<Failover> {
  const deployed = await deploy(env.store, {
    charm: parseCharm(readFileSync(join(env.charmDir, 'metadata.yaml'), 'utf8')),
    charmArchive: env.charmArchive,
    numUnits: FAILOVERS + 1,
  });
  const machineOf = new Map(deployed.units.map((unit, i) => [unit, deployed.machines[i]!] as const));
  await waitForStarts(env.dataDir, deployed.units, deployed.machines);
  const electedBy = (unit: string) => electedTimes(env.dataDir, machineOf.get(unit)!, unit);
  const samples: number[] = [];
  let leader: string | undefined;
  for (const deadline = Date.now() + 5 * 60_000; !leader && Date.now() < deadline; await pause(200)) {
    leader = deployed.units.find((u) => electedBy(u).length > 0);
  }
  const remaining = new Set(deployed.units);
  const trace: { t0: number; from: string; to?: string }[] = [];
  for (let i = 0; i < FAILOVERS && leader; i++) {
    const t0 = Date.now();
    await destroyUnit(env.store, leader);
    remaining.delete(leader);
    let next: string | undefined;
    for (const deadline = t0 + 5 * 60_000; !next && Date.now() < deadline; await pause(50)) {
      next = [...remaining].find((u) => electedBy(u).some((at) => at >= t0));
    }
    if (next) samples.push((Math.min(...electedBy(next).filter((at) => at >= t0)) - t0) / 1000);
    trace.push({ t0, from: leader, ...(next ? { to: next } : {}) });
    console.error(`bench:agents: failover ${i + 1}: ${leader} removed → ${next ?? 'no new leader'}`);
    leader = next;
  }
  if (TRACE_FAILOVERS) await traceFailovers(env.dataDir, trace);
  return { failovers: FAILOVERS, samples: samples.sort((a, b) => a - b) };
}

/** Diagnostics: each failover's milestones in the agents' log, in ms after the removal. */
async function traceFailovers(dataDir: string, trace: { t0: number; from: string; to?: string }[]): Promise<void> {
  await pause(3_000); // the last lines ship with the agents' next reports
  const { records } = await fileLogSink(join(dataDir, 'logs')).read({ limit: 1_000_000 });
  for (const { t0, from, to } of trace) {
    const of = (unit: string | undefined) => `unit-${unit?.replace('/', '-')}`;
    const lines = records
      .filter((r) => (r.entity === of(from) || r.entity === of(to)) && Date.parse(r.time) >= t0 && Date.parse(r.time) < t0 + 10_000)
      .map((r) => `${Date.parse(r.time) - t0} ${r.entity} ${r.message}`);
    console.error(`bench:agents: failover ${from} → ${to}:\n  ${lines.join('\n  ')}`);
  }
}

function failoverTable(failover: Failover): string {
  const s = failover.samples;
  return [
    '| failovers asked | failovers done | p50 s | p99 s | max s |',
    '| --------------: | -------------: | ----: | ----: | ----: |',
    `| ${failover.failovers} | ${s.length} | ${f(percentile(s, 50))} | ${f(percentile(s, 99))} | ${f(s[s.length - 1] ?? NaN)} |`,
  ].join('\n');
}

function agentRssMb(dataDir: string, machines: string[]): number {
  let total = 0;
  for (const pid of agentPids(dataDir, machines)) {
    try {
      total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    } catch {
      // gone
    }
  }
  return machines.length ? total / machines.length : 0;
}

async function startPhases(dataDir: string, machines: string[], units: string[], t0: number, series: Series): Promise<Phases> {
  // Agents ship their log lines asynchronously: wait (a while) for every unit's last milestone.
  const logs = fileLogSink(join(dataDir, 'logs'));
  let records = (await logs.read({ limit: 1_000_000 })).records;
  for (let waited = 0; waited < 10_000; waited += 250) {
    const done = new Set(records.filter((r) => r.message.includes('ran "start" hook')).map((r) => r.entity));
    if (units.every((u) => done.has(`unit-${u.replace('/', '-')}`))) break;
    await pause(250);
    records = (await logs.read({ limit: 1_000_000 })).records;
  }
  const first = (entity: string, text: string) => {
    const at = records.find((r) => r.entity === entity && r.message.includes(text))?.time;
    return at ? Date.parse(at) : undefined;
  };
  const phases: Phase[] = series === 'fresh machines' ? [...PHASES] : ['deploy', 'hooks'];
  const samples = new Map<Phase, number[]>(phases.map((p) => [p, []]));
  units.forEach((unit, i) => {
    const machine = machines[i]!;
    const record = readRecord(machineDirOf(dataDir, machine));
    const deployed = first(`machine-${machine}`, `deployed unit "${unit}"`);
    const started = first(`unit-${unit.replace('/', '-')}`, 'ran "start" hook');
    const times =
      series === 'fresh machines'
        ? [
            t0,
            record ? Date.parse(record.startedAt) : undefined,
            first(`machine-${machine}`, 'machine agent for machine'),
            deployed,
            started,
          ]
        : [t0, deployed, started];
    if (times.some((t) => t === undefined)) return;
    phases.forEach((phase, k) => samples.get(phase)!.push((times[k + 1]! - times[k]!) / 1000));
  });
  return Object.fromEntries(
    phases.map((p) => {
      const sorted = samples.get(p)!.sort((a, b) => a - b);
      return [p, { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }];
    }),
  ) as Phases;
}

const f = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : '–');
const totalCpu = (c: CpuSeconds) => c.controller + (Number.isFinite(c.dynamodb) ? c.dynamodb : 0) + c.agents;

function startUpTable(results: StartUp[]): string {
  return [
    `| series | units | started | p50 s | p99 s | max s | p99 ≤ 2 s | CPU s: controller / DynamoDB Local / agents+hooks | CPU s per unit | floor = CPU s ÷ ${NPROC} cores | load (1 min) before |`,
    '| ------ | ----: | ------: | ----: | ----: | ----: | :-------: | ------------------------------------------------: | -------------: | -----: | -----: |',
    ...results.map(
      (r) =>
        `| ${r.series} | ${r.units} | ${r.started} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.max)} | ${r.p99 <= 2 ? 'yes' : 'no'} | ${f(r.cpu.controller, 1)} / ${f(r.cpu.dynamodb, 1)} / ${f(r.cpu.agents, 1)} | ${f(totalCpu(r.cpu) / r.units, 3)} | ${f(totalCpu(r.cpu) / NPROC)} | ${f(r.loadBefore, 1)} |`,
    ),
  ].join('\n');
}

function phaseTable(results: StartUp[]): string {
  return [
    `| series | units | ${PHASES.map((p) => `${p} p50 / p99 s`).join(' | ')} |`,
    `| ------ | ----: | ${PHASES.map(() => '---:').join(' | ')} |`,
    ...results.map(
      (r) =>
        `| ${r.series} | ${r.units} | ${PHASES.map((p) => {
          const phase = r.phases[p];
          return phase ? `${f(phase.p50)} / ${f(phase.p99)}` : '–';
        }).join(' | ')} |`,
    ),
  ].join('\n');
}

function apiTable(results: StartUp[]): string {
  const ops = [...new Set(results.flatMap((r) => [...r.apiCalls].filter(([, n]) => n > 0).map(([op]) => op)))].sort();
  return [
    `| series | units | ${ops.join(' | ')} | total per unit |`,
    `| ------ | ----: | ${ops.map(() => '---:').join(' | ')} | ---: |`,
    ...results.map(
      (r) =>
        `| ${r.series} | ${r.units} | ${ops.map((op) => f((r.apiCalls.get(op) ?? 0) / r.units, 1)).join(' | ')} | ${f([...r.apiCalls.values()].reduce((a, b) => a + b, 0) / r.units, 1)} |`,
    ),
  ].join('\n');
}

function idleTable(idle: Idle): string {
  return [
    '| agents | idle window s | update-status runs in the window | API req / agent-h | SQS receives / agent-h | other SQS / agent-h | total incl. resync and heartbeat / agent-h (≤ 200) | agent RSS MB |',
    '| -----: | ------------: | -------------------------------: | ----------------: | ---------------------: | ------------------: | -------------------------------------------------: | -----------: |',
    `| ${idle.units} | ${idle.idleSeconds} | ${idle.updateStatusRuns} | ${f(idle.apiPerAgentHour, 1)} | ${f(idle.receivesPerAgentHour, 1)} | ${f(idle.otherSqsPerAgentHour, 1)} | ${f(idle.apiPerAgentHour + idle.receivesPerAgentHour + idle.otherSqsPerAgentHour + RESYNC_PER_HOUR, 1)} | ${f(idle.rssMb, 0)} |`,
  ].join('\n');
}

const METHOD = `### Method

- The local controller's wiring, in this one process: DynamoDB Local in memory (a separate Java process), fauxqs, the provisioner and changes functions on stream pollers (told of each write, reading at most every ${LOCAL_STREAM_POLLING.pollIntervalMs} ms, and every ${LOCAL_STREAM_POLLING.idlePollIntervalMs} ms with no write; each with its event source mapping's settings from functions/stream-consumers.ts, ${LOCAL_PROVISIONING_CONCURRENCY} machines started at once, as embedded/controller.ts sets them), the API on 127.0.0.1, the local provider starting one machine agent process per machine from the esbuild bundle (shared/provider/local/agent-build.ts). A counting proxy sits between the agents and fauxqs; the API server counts agent requests by operation.
- The charm's install and config-changed hooks exit 0; its start hook writes the time. Latency per unit = that time − the time of the deploy call. Each series (N = ${SERIES.join(', ')}) runs on a fresh table with no agent left from the one before.
  - fresh machines: \`deploy -n N\`, each unit on a new machine: provisioning (the provisioner starting the agent process), the agent's start, fetching and unpacking the charm, three hooks, and every status and API call between.
  - running machines: \`add-machine -n N\` first, until every agent has reported its machine started and the hints have settled; then \`deploy -n N --to <those machines>\`. This is what Kubernetes' pod start SLO measures (p99 ≤ 5 s from pod creation to running, image pulls and node start-up excluded).
- CPU: from the deploy call to the last start, user + system time of this process (process.cpuUsage(): API, stream pollers, handlers, fauxqs, the bench's own polling), of DynamoDB Local (/proc/<pid>/stat, all its threads) and of every agent (/proc/<pid>/stat with the children it reaped: hooks and hook tools). Floor = that CPU time ÷ the host's ${NPROC} cores: the earliest the last unit could start if the work were spread perfectly over the cores and nothing else ran. Other users' jobs share this host (the load average column); their CPU is not counted, so the floor is a lower bound.
- Idle (after the fresh N = ${Math.max(...SERIES)} series): once every unit has started, 12 s to settle, then a window of ${IDLE_SECONDS} s with nothing changing; requests in the window, per agent, scaled to an hour. The periodic resync (every ${DEFAULT_RESYNC_SECONDS / 60} min ± 20%, one \`view\` and one \`relation-units\` per relation in scope) falls outside the window; the total adds it as ${RESYNC_PER_HOUR} requests an hour for a unit in no relation. The presence heartbeat (after ${DEFAULT_HEARTBEAT_SECONDS / 60} min without any other request, 1.2 × the resync) rides on the resync and adds nothing. Agents hold no DynamoDB credentials: every DynamoDB read they cause is behind an agent API request, so idle API requests = 0 means no DynamoDB reads. In the idle window the model's update-status-hook-interval is ${IDLE_UPDATE_STATUS} (the shortest Juju allows; the default is 5m), so every agent runs update-status there, setting the status its start hook set; the table counts the runs.
- Leader failover: on a fresh table, ${FAILOVERS + 1} units on fresh machines; once every unit has started and one has run leader-elected, its unit is removed (\`remove-unit\`), and the time until leader-elected ran on another unit (the hook records it) is one sample; that unit is removed next, ${FAILOVERS} times.`;

async function main() {
  const before = loadavg();
  const started = Date.now();
  const dynamo = await startDynamoDbLocal();
  const dynamoPid = findProcess('DynamoDBLocal.jar', `-port ${dynamo.port}`);
  const charmDir = trivialCharm();
  const floorUnits = Math.max(...SERIES);
  const floor = await hookFloorCpuPerUnit(charmDir, floorUnits);
  console.error(`bench:agents: the hooks alone, ${floorUnits} units: ${f(floor, 3)} CPU-s per unit`);
  const results: StartUp[] = [];
  let idle: Idle | undefined;
  let failover: Failover | undefined;
  try {
    for (const series of KINDS) {
      for (const n of SERIES) {
        console.error(`bench:agents: ${series}, ${n} units…`);
        const env = await environment(dynamo, charmDir);
        try {
          const result = await startUp(env, series, n, dynamoPid);
          results.push(result);
          console.error(startUpTable(results));
          console.error(phaseTable(results));
          if (series === 'fresh machines' && n === Math.max(...SERIES) && IDLE_SECONDS > 0) {
            idle = await idleCost(env, [...Array(n).keys()].map(String));
            console.error(idleTable(idle));
          }
        } finally {
          await env.stop();
        }
      }
    }
    if (FAILOVERS > 0) {
      console.error(`bench:agents: leader failover, ${FAILOVERS} times…`);
      const env = await environment(dynamo, charmDir);
      try {
        failover = await leaderFailover(env);
        console.error(failoverTable(failover));
      } finally {
        await env.stop();
      }
    }
  } finally {
    await dynamo.stop();
  }
  const header = `Run ${new Date().toISOString().slice(0, 10)}: node ${process.version}, nproc ${NPROC} (${cpus()[0]?.model.trim() ?? 'unknown'}), ${Math.round(freemem() / 2 ** 30)} GiB free. Whole run ${Math.round((Date.now() - started) / 1000)} s; 1-minute load average ${before[0]!.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after.`;
  const body = [
    header,
    '### Start-up',
    startUpTable(results),
    `The floor, the hooks alone (install, config-changed and start run as a unit agent runs them, status-set answered by a server that does nothing, no controller, no DynamoDB, no agent), ${floorUnits} units: ${f(floor, 3)} CPU-s per unit.`,
    'Where the start-up time goes, per unit (units with every milestone logged):',
    phaseTable(results),
    'Agent API requests per unit, from the deploy call to the last start:',
    apiTable(results),
    '### Idle',
    idle ? idleTable(idle) : '(not measured)',
    '### Leader failover',
    failover ? failoverTable(failover) : '(not measured)',
    METHOD,
  ].join('\n\n');
  console.log(body);
  await writeSection(join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md'), HEADING, body);
}

await main();
