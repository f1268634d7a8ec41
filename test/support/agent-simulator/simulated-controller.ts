// The local controller's wiring in this thread, as bench/agents.bench.ts assembles it (and
// embedded/controller.ts runs it): a table in DynamoDB Local, the stream consumers of
// functions/stream-consumers.ts on pollers with their mappings' settings, the API on 127.0.0.1 —
// with simulated machines (simulated-machines.ts) as the provider, so every machine the
// provisioner starts is a real machine agent running a trivial charm in-process. What runs
// elsewhere on AWS runs on threads of its own (thread-rpc.ts): fauxqs (sqs-thread.ts) and the
// agents (agents-thread.ts), so this thread's CPU is the controller's.
import { startCountingApi } from '../../../bench/support/counting-api.js';
import { silentLogger } from '../silent-logger.js';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_PROVISIONING_CONCURRENCY, LOCAL_STREAM_POLLING } from '../../../embedded/controller.js';
import { nudgeOnWrites } from '../../../embedded/stream/write-nudges.js';
import { pollerSettingsOf } from '../../../embedded/stream/consumer-settings.js';
import { createStreamPoller, type StreamPoller } from '../../../embedded/stream-poller.js';
import { STREAM_CONSUMERS, type StreamConsumerName } from '../../../functions/stream-consumers.js';
import { packCharmDir } from '#shared/charmstore/charm-archive.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { parseCharm, type CharmMeta } from '#shared/domain/charm.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { derivedAgentCredentials, newAgentCredentialKey } from '#shared/provisioner/agent-credentials.js';
import { sqsMachineQueues } from '#shared/provisioner/sqs-machine-queues.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { threadCpuSeconds } from '../../../bench/support/proc-cpu.js';
import type { InProcessCharm } from './in-process-hooks.js';
import { SimulatorThread } from './thread-rpc.js';
import { AgentsThread } from './threaded-agents.js';

const CONTROLLER = 'sim';
/**
 * An idle simulated agent's queue is polled this often: a hint wakes its poll at once
 * (SharedHintPolls.watchSends), so this only bounds how late a send nobody reported is seen.
 */
const IDLE_POLL_MS = 5 * 60_000;

/**
 * The charm every simulated unit runs: what bench/agents.bench.ts's trivial charm does, without
 * processes. install and config-changed do nothing; start sets the workload active.
 */
export const TRIVIAL_CHARM: InProcessCharm = {
  install: [],
  'config-changed': [],
  start: [['status-set', 'active']],
};

export interface SimulatedControllerOptions {
  dynamoEndpoint: string;
  /** Receives in flight at once, all simulated agents together (shared-hint-polls.ts). */
  hintWorkers?: number;
  /** Every hook that ran and exited 0, by hook and unit, and when (the start hook's status-set is written by then). */
  onHookRan?: (hook: string, unit: string, at: number) => void;
  /** Every agent's log line, as a real agent prints it; dropped when absent. */
  logEcho?: (line: string) => void;
  /** Connections the simulated agents share to the API (simulated-machines.ts); default 128. */
  apiSockets?: number;
}

export interface SimulatedController {
  /** Stores on the one table, one per role, so a bench can count each role's requests apart. */
  stores: { user: Store; api: Store; changes: Store; provisioner: Store };
  apiUrl: string;
  /** Agent API requests by operation, and stream records handed to each consumer. */
  apiCalls: Map<string, number>;
  streamRecords: Map<StreamConsumerName, number>;
  /** The simulated agents, on their own thread: the provisioner's provider. */
  agents: AgentsThread;
  /** CPU time so far, in seconds, of this thread (the controller), the agents' thread and the SQS thread. */
  cpuSeconds(): Promise<{ controller: number; agents: number; sqs: number }>;
  /** The trivial charm's metadata and archive, for deploy. */
  charm: { meta: CharmMeta; archive: string };
  /** Waits until the stream pollers have handed every record so far to their consumers. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

/** Endpoints to relate simulated applications by, and an option to change their config by; their hooks are missing. */
const METADATA = `name: sim
summary: a charm the agent simulator runs in-process
series: [jammy]
provides:
  api: sim-api
requires:
  backend: sim-api
`;
const CONFIG = `options:
  tuning: {type: string, default: '', description: any value}
`;

/** A charm directory whose hooks exist (the runner looks for them) but never run as processes. */
function writeCharmDir(charm: InProcessCharm): string {
  const dir = mkdtempSync(join(tmpdir(), 'sim-charm-'));
  mkdirSync(join(dir, 'hooks'));
  writeFileSync(join(dir, 'metadata.yaml'), METADATA);
  writeFileSync(join(dir, 'config.yaml'), CONFIG);
  for (const hook of Object.keys(charm)) {
    writeFileSync(join(dir, 'hooks', hook), '#!/bin/sh\n# run in-process by test/support/agent-simulator/in-process-hooks.ts\nexit 0\n');
    chmodSync(join(dir, 'hooks', hook), 0o755);
  }
  return dir;
}

export async function startSimulatedController(options: SimulatedControllerOptions): Promise<SimulatedController> {
  const table = `sim-${randomUUID()}`;
  const storeOf = () => createStore({ table, endpoint: options.dynamoEndpoint, region: 'local' });
  const stores = { user: storeOf(), api: storeOf(), changes: storeOf(), provisioner: storeOf() };
  await ensureTable(stores.user.client, table);
  await ensureModel(stores.user);
  const dataDir = mkdtempSync(join(tmpdir(), 'sim-controller-'));
  const sqsThread = await SimulatorThread.start('./sqs-thread.ts', undefined);
  const sqsEndpoint = await sqsThread.call<string>('endpoint');
  const sqs = createSqsClient({ endpoint: sqsEndpoint });
  const charms = localCharmStore(join(dataDir, 'charms'));
  const agentKeys = derivedAgentCredentials(newAgentCredentialKey());
  const api = await startCountingApi({
    store: stores.api,
    charms,
    agentKeys,
    token: 'sim',
    controller: CONTROLLER,
    logsDir: join(dataDir, 'logs'),
  });
  const apiCalls = api.apiCalls;
  const charmDir = writeCharmDir(TRIVIAL_CHARM);
  const agents = await AgentsThread.start({
    dataDir: join(dataDir, 'machines'),
    sqsEndpoint,
    charm: TRIVIAL_CHARM,
    idleIntervalMs: IDLE_POLL_MS,
    apiSockets: options.apiSockets ?? 128,
    ...(options.hintWorkers ? { hintWorkers: options.hintWorkers } : {}),
    ...(options.onHookRan ? { onHookRan: options.onHookRan } : {}),
    ...(options.logEcho ? { logEcho: options.logEcho } : {}),
  });
  // The provisioner's and the changes function's hints: the agents' thread hears of each send.
  agents.watchSends(sqs);
  const provisioner = {
    store: stores.provisioner,
    provider: agents,
    queues: sqsMachineQueues(sqs, CONTROLLER),
    credentials: agentKeys,
    controllerId: CONTROLLER,
    apiUrl: api.url,
    policy: { concurrency: LOCAL_PROVISIONING_CONCURRENCY },
  };
  const streamRecords = new Map<StreamConsumerName, number>();
  const pollers: StreamPoller[] = STREAM_CONSUMERS.map((consumer) => {
    const handle = consumer.create({
      provisioner,
      changes: { store: stores.changes, sqs, controllerId: CONTROLLER, logger: silentLogger },
    });
    return createStreamPoller({
      ...pollerSettingsOf(consumer),
      tableName: table,
      endpoint: options.dynamoEndpoint,
      region: 'local',
      credentials: localCredentials(),
      handler: (event) => {
        streamRecords.set(consumer.name, (streamRecords.get(consumer.name) ?? 0) + event.Records.length);
        return handle(event);
      },
      startingPosition: 'TRIM_HORIZON',
      ...LOCAL_STREAM_POLLING,
      onFailure: async () => undefined,
      log: () => undefined,
    });
  });
  for (const store of Object.values(stores))
    nudgeOnWrites(store.client, () => {
      for (const p of pollers) p.nudge();
    });
  for (const p of pollers) await p.start();
  const archive = await charms.put(await packCharmDir(charmDir));
  rmSync(charmDir, { recursive: true, force: true });
  return {
    stores,
    apiUrl: api.url,
    apiCalls,
    streamRecords,
    agents,
    cpuSeconds: async () => {
      const [agentsCpu, sqsCpu] = await Promise.all([agents.cpuSeconds(), sqsThread.cpuSeconds()]);
      return { controller: threadCpuSeconds(), agents: agentsCpu, sqs: sqsCpu };
    },
    charm: { meta: parseCharm(METADATA, CONFIG), archive },
    drain: async () => {
      for (const p of pollers) await p.drain();
    },
    stop: async () => {
      for (const p of pollers) await p.stop();
      await agents.stop();
      await api.close();
      sqs.destroy();
      await sqsThread.call('stop');
      await sqsThread.terminate();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
