// `npm run bench:agents`: the agents at scale on the local provider (issue 4, "Benchmark").
//
// 1. Start-up: deploy -n N (default 100) of a charm with trivial hooks, on the local controller's
//    wiring (DynamoDB Local, fauxqs, the provisioner/cleanup/notifier handlers on stream pollers,
//    the API, the local provider starting one machine agent process per machine). Per unit: the
//    time from the deploy call to its start hook (which records the time). Targets: p99 ≤ 2 s
//    (Kubernetes' pod start SLO is p99 ≤ 5 s).
// 2. Idle cost: with every unit started and the hints settled, the agents' requests over a window
//    (default 120 s), per agent-hour: agent API requests (every DynamoDB read an agent causes is
//    behind one) and SQS requests. Target: ≤ 200 requests per idle agent-hour, no DynamoDB reads.
//    The periodic resync and the presence heartbeat come at most every 8 and 5 minutes, after the
//    agent's start-up requests, so they fall outside the window: the total adds them at their
//    rates (heartbeats at their bound, one per 5 min, though the resync's requests replace some).
//
// Run for the agent as the local controller starts it today (tsx) and as a bundle (esbuild, as the
// EC2 instances get it). Records a section in bench/RESULTS.md.
import { randomUUID } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, freemem, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { DEFAULT_HEARTBEAT_SECONDS, DEFAULT_RESYNC_SECONDS } from '../agent/config.js';
import { createApiHandler } from '../functions/api/handler.js';
import { createCleanupHandler } from '../functions/cleanup/handler.js';
import { createNotifierHandler } from '../functions/notifier/handler.js';
import { createProvisionerHandler } from '../functions/provisioner/handler.js';
import { startApiServer } from '../embedded/api-server.js';
import { startSqsServer } from '../embedded/sqs-server.js';
import { createStreamPoller } from '../embedded/stream-poller.js';
import { packCharmDir } from '../shared/charmstore/charm-archive.js';
import { localCharmStore } from '../shared/charmstore/charm-store.js';
import { parseCharm } from '../shared/domain/charm.js';
import { fileLogSink } from '../shared/logs/file-log-sink.js';
import { createSqsClient } from '../shared/messaging/sqs-client.js';
import { LocalProvider } from '../shared/provider/local/local-provider.js';
import { machineDirOf } from '../shared/provider/local/machine-dir.js';
import { derivedAgentCredentials, newAgentCredentialKey } from '../shared/provisioner/agent-credentials.js';
import { sqsMachineQueues } from '../shared/provisioner/sqs-machine-queues.js';
import { deploy } from '../shared/state/deploy.js';
import { localCredentials, startDynamoDbLocal, type DynamoDbLocal } from '../shared/state/dynamodb-local.js';
import { ensureModel } from '../shared/state/model.js';
import { createStore } from '../shared/state/store.js';
import { ensureTable } from '../shared/state/table.js';
import { killAllAgents } from '../test/support/local-agents.js';
import { startCountingProxy } from './support/counting-proxy.js';
import { writeSection } from './support/results-file.js';
import { percentile } from './support/timing.js';

const HEADING = '## Agents (npm run bench:agents)';
const UNITS = Number(process.env.BENCH_UNITS ?? 100);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 120);
const KINDS = (process.env.BENCH_AGENT ?? 'bundle,tsx').split(',').filter(Boolean) as ('bundle' | 'tsx')[];
const REPO = fileURLToPath(new URL('..', import.meta.url));
const CONTROLLER = 'bench';
const SILENT = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined } as never;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** One `view` per resync for a unit in no relation (each relation in scope adds a `relation-units`). */
const RESYNC_PER_HOUR = 3600 / DEFAULT_RESYNC_SECONDS;
/** At most one heartbeat per interval since the agent's last request (agent/machine/heartbeat.ts). */
const HEARTBEATS_PER_HOUR = 3600 / DEFAULT_HEARTBEAT_SECONDS;
const HEARTBEAT_PATH = '/v1/agent/heartbeat';

/** A charm whose hooks do nothing but record when start ran. */
function trivialCharm(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-trivial-'));
  mkdirSync(join(dir, 'hooks'));
  writeFileSync(join(dir, 'metadata.yaml'), 'name: trivial\nsummary: trivial hooks\nseries: [jammy]\n');
  for (const hook of ['install', 'config-changed']) writeFileSync(join(dir, 'hooks', hook), '#!/bin/sh\nexit 0\n');
  writeFileSync(join(dir, 'hooks', 'start'), '#!/bin/sh\ndate +%s%3N > "$CHARM_DIR/../started-at"\n');
  for (const hook of ['install', 'config-changed', 'start']) chmodSync(join(dir, 'hooks', hook), 0o755);
  return dir;
}

/** The agent bundled as infra/agent-bundle.ts bundles it for EC2, with the hook tool beside it. */
function bundledAgent(): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-'));
  buildSync({
    entryPoints: [join(REPO, 'agent', 'machine-agent.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: join(dir, 'machine-agent.js'),
    banner: {
      js: "import { createRequire as __droverCreateRequire } from 'node:module'; const require = __droverCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  mkdirSync(join(dir, 'hook-tools'));
  cpSync(join(REPO, 'agent', 'hook-tools', 'hook-tool.mjs'), join(dir, 'hook-tools', 'hook-tool.mjs'));
  return [process.execPath, join(dir, 'machine-agent.js')];
}

const tsxAgent = () => [process.execPath, '--import', import.meta.resolve('tsx'), join(REPO, 'agent', 'machine-agent.ts')];

/**
 * Where a unit's start-up time goes, per unit: provisioning (deploy call → agent process started),
 * agent start (→ the agent's first log line), deploy (→ unit deployed: view, charm fetched and
 * unpacked), hooks (→ start ran: install, config-changed, start and their status writes).
 */
const PHASES = ['provisioning', 'agent start', 'deploy', 'hooks'] as const;
type Phases = Record<(typeof PHASES)[number], { p50: number; p99: number }>;

interface Result {
  phases: Phases;
  kind: string;
  units: number;
  started: number;
  p50: number;
  p99: number;
  max: number;
  idleSeconds: number;
  apiPerAgentHour: number;
  receivesPerAgentHour: number;
  otherSqsPerAgentHour: number;
  rssMb: number;
}

function agentRssMb(dataDir: string, machines: string[]): number {
  let total = 0;
  for (const m of machines) {
    try {
      const pid = Number(readFileSync(join(machineDirOf(dataDir, m), 'agent.pid'), 'utf8'));
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      // gone
    }
  }
  return machines.length ? total / machines.length : 0;
}

async function scenario(dynamo: DynamoDbLocal, kind: 'bundle' | 'tsx', charmDir: string): Promise<Result> {
  const store = createStore({ table: `bench-agents-${randomUUID()}`, endpoint: dynamo.endpoint, region: 'local' });
  await ensureTable(store.client, store.table);
  await ensureModel(store);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-agents-'));
  const sqsServer = await startSqsServer();
  const proxy = await startCountingProxy(sqsServer.endpoint);
  const sqs = createSqsClient({ endpoint: sqsServer.endpoint });
  const charms = localCharmStore(join(dataDir, 'charms'));
  const handler = createApiHandler({
    store,
    charms,
    auth: { kind: 'token', token: 'bench' },
    controller: CONTROLLER,
    logger: SILENT,
    logs: fileLogSink(join(dataDir, 'logs')),
  });
  let agentRequests = 0;
  const api = await startApiServer(async (event) => {
    // Heartbeats are added at their bound in the total; counting one that falls in the window too would count it twice.
    if (event.rawPath.startsWith('/v1/agent/') && event.rawPath !== HEARTBEAT_PATH) agentRequests++;
    return handler(event);
  });
  const provider = new LocalProvider({
    dataDir,
    agentCommand: kind === 'bundle' ? bundledAgent() : tsxAgent(),
    env: { DROVER_SQS_ENDPOINT: proxy.endpoint, AWS_REGION: 'local' },
    stopGraceMs: 2_000,
  });
  const provisioner = {
    store,
    provider,
    queues: sqsMachineQueues(sqs, CONTROLLER),
    credentials: derivedAgentCredentials(newAgentCredentialKey()),
    controllerId: CONTROLLER,
    apiUrl: api.url,
  };
  const consumers = {
    provisioner: createProvisionerHandler(provisioner),
    cleanup: createCleanupHandler({ store }),
    notifier: createNotifierHandler({ store, sqs, controllerId: CONTROLLER, logger: SILENT }),
  };
  const pollers = Object.entries(consumers).map(([name, h]) =>
    createStreamPoller({
      tableName: store.table,
      endpoint: dynamo.endpoint,
      region: 'local',
      credentials: localCredentials(),
      handler: h as never,
      functionName: name,
      startingPosition: 'TRIM_HORIZON',
      batchSize: name === 'provisioner' ? 20 : 100,
      pollIntervalMs: 100,
      onFailure: async () => undefined,
      log: () => undefined,
    }),
  );
  for (const p of pollers) await p.start();
  try {
    const meta = parseCharm(readFileSync(join(charmDir, 'metadata.yaml'), 'utf8'));
    const charmArchive = await charms.put(await packCharmDir(charmDir));
    const t0 = Date.now();
    const { units, machines } = await deploy(store, { charm: meta, charmArchive, numUnits: UNITS });
    const startedAt = new Map<string, number>();
    const deadline = Date.now() + 15 * 60_000;
    while (startedAt.size < units.length && Date.now() < deadline) {
      for (let i = 0; i < units.length; i++) {
        const unit = units[i]!;
        if (startedAt.has(unit)) continue;
        try {
          const at = Number(readFileSync(join(machineDirOf(dataDir, machines[i]!), 'units', unit.replace('/', '-'), 'started-at'), 'utf8'));
          if (at > 0) startedAt.set(unit, at);
        } catch {
          // not yet
        }
      }
      await pause(100);
    }
    const latencies = [...startedAt.values()].map((at) => (at - t0) / 1000).sort((a, b) => a - b);
    const phases = await startPhases(dataDir, machines, units, t0);
    // Settle: the agents go idle, and the echoes of their last writes are delivered.
    await pause(10_000);
    for (const p of pollers) await p.drain();
    await pause(2_000);
    const sqsBefore = new Map(proxy.counts);
    const apiBefore = agentRequests;
    await pause(IDLE_SECONDS * 1000);
    let receives = 0;
    let otherSqs = 0;
    for (const [key, n] of proxy.counts) {
      const delta = n - (sqsBefore.get(key) ?? 0);
      if (key.startsWith('ReceiveMessage ')) receives += delta;
      else otherSqs += delta;
    }
    const perAgentHour = (n: number) => (n / units.length) * (3600 / IDLE_SECONDS);
    return {
      phases,
      kind,
      units: units.length,
      started: startedAt.size,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? NaN,
      idleSeconds: IDLE_SECONDS,
      apiPerAgentHour: perAgentHour(agentRequests - apiBefore),
      receivesPerAgentHour: perAgentHour(receives),
      otherSqsPerAgentHour: perAgentHour(otherSqs),
      rssMb: agentRssMb(dataDir, machines),
    };
  } finally {
    for (const p of pollers) await p.stop();
    await killAllAgents(dataDir);
    await api.close();
    await proxy.close();
    sqs.destroy();
    await sqsServer.stop();
  }
}

async function startPhases(dataDir: string, machines: string[], units: string[], t0: number): Promise<Phases> {
  const records = (await fileLogSink(join(dataDir, 'logs')).read({ limit: 1_000_000 })).records;
  const first = (entity: string, text: string) => {
    const at = records.find((r) => r.entity === entity && r.message.includes(text))?.time;
    return at ? Date.parse(at) : undefined;
  };
  const samples: Record<string, number[]> = Object.fromEntries(PHASES.map((p) => [p, []]));
  units.forEach((unit, i) => {
    const machine = machines[i]!;
    let processStarted: number | undefined;
    try {
      const record = JSON.parse(readFileSync(join(machineDirOf(dataDir, machine), 'instance.json'), 'utf8')) as { startedAt: string };
      processStarted = Date.parse(record.startedAt);
    } catch {
      // killed already
    }
    const times = [
      t0,
      processStarted,
      first(`machine-${machine}`, 'machine agent for machine'),
      first(`machine-${machine}`, `deployed unit "${unit}"`),
      first(`unit-${unit.replace('/', '-')}`, 'ran "start" hook'),
    ];
    if (times.some((t) => t === undefined)) return;
    PHASES.forEach((phase, k) => samples[phase]!.push((times[k + 1]! - times[k]!) / 1000));
  });
  return Object.fromEntries(
    PHASES.map((p) => {
      const sorted = samples[p]!.sort((a, b) => a - b);
      return [p, { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }];
    }),
  ) as Phases;
}

function phaseTable(results: Result[]): string {
  return [
    `| agent | ${PHASES.map((p) => `${p} p50 / p99 s`).join(' | ')} |`,
    `| ----- | ${PHASES.map(() => '---:').join(' | ')} |`,
    ...results.map(
      (r) => `| ${r.kind} | ${PHASES.map((p) => `${r.phases[p].p50.toFixed(2)} / ${r.phases[p].p99.toFixed(2)}`).join(' | ')} |`,
    ),
  ].join('\n');
}

/** What the window measured, plus the resync and the heartbeat at their rates (they fall outside it). */
const totalPerAgentHour = (r: Result) =>
  r.apiPerAgentHour + r.receivesPerAgentHour + r.otherSqsPerAgentHour + RESYNC_PER_HOUR + HEARTBEATS_PER_HOUR;

function table(results: Result[]): string {
  const f = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : '–');
  const rows = results.map(
    (r) =>
      `| ${r.kind} | ${r.units} | ${r.started} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.max)} | ${r.p99 <= 2 ? 'yes' : 'no'} | ${r.idleSeconds} | ${f(r.apiPerAgentHour, 1)} | ${f(r.receivesPerAgentHour, 1)} | ${f(r.otherSqsPerAgentHour, 1)} | ${f(totalPerAgentHour(r), 1)} | ${f(r.rssMb, 0)} |`,
  );
  return [
    '| agent | units | started | p50 s | p99 s | max s | p99 ≤ 2 s | idle window s | API req / agent-h | SQS receives / agent-h | other SQS / agent-h | total incl. resync and heartbeat / agent-h (≤ 200) | agent RSS MB |',
    '| ----- | ----: | ------: | ----: | ----: | ----: | :-------: | ------------: | ----------------: | ---------------------: | ------------------: | -------------------------------------------------: | -----------: |',
    ...rows,
  ].join('\n');
}

const METHOD = `### Method

- The local controller's wiring, in one process: DynamoDB Local in memory, fauxqs, the provisioner, cleanup and notifier handlers on stream pollers (100 ms), the API on 127.0.0.1, the local provider starting one machine agent process per machine. A counting proxy sits between the agents and fauxqs; the API server counts agent requests.
- Start-up: one \`deploy -n ${UNITS}\` (each unit on a new machine) of a charm whose install and config-changed exit 0 and whose start hook writes the time; latency per unit = that time − the time of the deploy call. It includes provisioning (the provisioner starting the agent process), the agent's start, fetching and unpacking the charm, three hooks, and every status and API call between.
- Idle: once every unit has started, 12 s to settle, then a window of ${IDLE_SECONDS} s with nothing changing; requests in the window, per agent, scaled to an hour. The periodic resync (every 10 min ± 20%, one \`view\` and one \`relation-units\` per relation in scope) falls outside the window; the total adds it as ${RESYNC_PER_HOUR} requests an hour for a unit in no relation. So does the presence heartbeat (one \`heartbeat\` request when the agent has made no other for 5–6 min): not counted in the window's API requests, added at its bound of ${HEARTBEATS_PER_HOUR} an hour (with the resync's requests counting as presence too, about 7.5 on average). Agents hold no DynamoDB credentials: every DynamoDB read they cause is behind an agent API request, so idle API requests = 0 means no DynamoDB reads.
- \`tsx\`: the agent as the local controller starts it today (\`node --import tsx agent/machine-agent.ts\`); \`bundle\`: the agent bundled by esbuild (as infra/agent-bundle.ts bundles it for EC2).`;

async function main() {
  const before = loadavg();
  const started = Date.now();
  const dynamo = await startDynamoDbLocal();
  const charmDir = trivialCharm();
  const results: Result[] = [];
  try {
    for (const kind of KINDS) {
      console.error(`bench:agents: ${kind}, ${UNITS} units…`);
      results.push(await scenario(dynamo, kind, charmDir));
      console.error(table(results));
      console.error(phaseTable(results));
    }
  } finally {
    await dynamo.stop();
  }
  const header = `Run ${new Date().toISOString().slice(0, 10)}: node ${process.version}, nproc ${availableParallelism()} (${cpus()[0]?.model.trim() ?? 'unknown'}), ${Math.round(freemem() / 2 ** 30)} GiB free. Whole run ${Math.round((Date.now() - started) / 1000)} s; 1-minute load average ${before[0]!.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after.`;
  const body = `${header}\n\n${table(results)}\n\nWhere the start-up time goes, per unit (units with every milestone logged): provisioning = deploy call → agent process started (the provisioner and the local provider); agent start = → the agent's first log line; deploy = → unit deployed (view, charm fetched and unpacked); hooks = → start hook done (install, config-changed, start, statuses).\n\n${phaseTable(results)}\n\n${METHOD}`;
  console.log(body);
  await writeSection(join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md'), HEADING, body);
}

await main();
