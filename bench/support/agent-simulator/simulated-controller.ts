// The local controller's wiring in this process, as bench/agents.bench.ts assembles it (and
// embedded/controller.ts runs it): a table in DynamoDB Local, fauxqs, the stream consumers of
// functions/stream-consumers.ts on pollers with their mappings' settings, the API on 127.0.0.1 —
// with simulated machines (simulated-machines.ts) as the provider, so every machine the
// provisioner starts is a real machine agent in this process running a trivial charm in-process.
import { SILENT, startCountingApi } from '../counting-api.js';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_PROVISIONING_CONCURRENCY } from '../../../embedded/controller.js';
import { startSqsServer } from '../../../embedded/sqs-server.js';
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
import { boundedFetch } from './bounded-fetch.js';
import { inProcessHooks, type InProcessCharm } from './in-process-hooks.js';
import { SharedHintPolls } from './shared-hint-polls.js';
import { SimulatedMachines } from './simulated-machines.js';

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
  /** Every hook that ran and exited 0, by hook and unit (the start hook's status-set is written by then). */
  onHookRan?: (hook: string, unit: string) => void;
  /** Every agent's log line, as a real agent prints it; dropped when absent. */
  logEcho?: (line: string) => void;
  /** Connections the simulated agents share to the API (bounded-fetch.ts); default 128. */
  apiSockets?: number;
}

export interface SimulatedController {
  /** Stores on the one table, one per role, so a bench can count each role's requests apart. */
  stores: { user: Store; api: Store; changes: Store; provisioner: Store };
  apiUrl: string;
  /** Agent API requests by operation, and stream records handed to each consumer. */
  apiCalls: Map<string, number>;
  streamRecords: Map<StreamConsumerName, number>;
  machines: SimulatedMachines;
  hints: SharedHintPolls;
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
    writeFileSync(join(dir, 'hooks', hook), '#!/bin/sh\n# run in-process by bench/support/agent-simulator/in-process-hooks.ts\nexit 0\n');
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
  const sqsServer = await startSqsServer();
  const sqs = createSqsClient({ endpoint: sqsServer.endpoint });
  const agentSqs: SQSClient = createSqsClient({ endpoint: sqsServer.endpoint, region: 'local' });
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
  const hints = new SharedHintPolls({
    sqs: agentSqs,
    idleIntervalMs: IDLE_POLL_MS,
    ...(options.hintWorkers ? { workers: options.hintWorkers } : {}),
  });
  // Every hint is sent through these: the provisioner's and the changes function's, and the agents'.
  hints.watchSends(sqs);
  hints.watchSends(agentSqs);
  const charmDir = writeCharmDir(TRIVIAL_CHARM);
  const machines = new SimulatedMachines({
    dataDir: join(dataDir, 'machines'),
    sqsEndpoint: sqsServer.endpoint,
    sqs: agentSqs,
    hints,
    hookRunner: inProcessHooks(TRIVIAL_CHARM, options.onHookRan),
    fetch: boundedFetch(options.apiSockets ?? 128),
    ...(options.logEcho ? { logEcho: options.logEcho } : {}),
  });
  const provisioner = {
    store: stores.provisioner,
    provider: machines,
    queues: sqsMachineQueues(sqs, CONTROLLER),
    credentials: agentKeys,
    controllerId: CONTROLLER,
    apiUrl: api.url,
    policy: { concurrency: LOCAL_PROVISIONING_CONCURRENCY },
  };
  const streamRecords = new Map<StreamConsumerName, number>();
  const pollers: StreamPoller[] = STREAM_CONSUMERS.map((consumer) => {
    const handle = consumer.create({ provisioner, changes: { store: stores.changes, sqs, controllerId: CONTROLLER, logger: SILENT } });
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
      pollIntervalMs: 100,
      onFailure: async () => undefined,
      log: () => undefined,
    });
  });
  for (const p of pollers) await p.start();
  const archive = await charms.put(await packCharmDir(charmDir));
  rmSync(charmDir, { recursive: true, force: true });
  return {
    stores,
    apiUrl: api.url,
    apiCalls,
    streamRecords,
    machines,
    hints,
    charm: { meta: parseCharm(METADATA, CONFIG), archive },
    drain: async () => {
      for (const p of pollers) await p.drain();
    },
    stop: async () => {
      for (const p of pollers) await p.stop();
      await machines.stopAll();
      await hints.stop();
      await api.close();
      sqs.destroy();
      agentSqs.destroy();
      await sqsServer.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
