// The local controller: the same handlers as on AWS, wired together on one machine.
//
//   DynamoDB Local (data on disk) ──stream──> pollers ──> provisioner / cleanup / notifier
//   HTTP API on 127.0.0.1 ──> the api handler          fauxqs (SQS) <── notifier hints
//   local provider: machine agents as processes        timers: watchdog, full reconcile, sweep
import { appendFile, mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { createApiHandler } from '../functions/api/handler.js';
import { createCleanupHandler, sweep } from '../functions/cleanup/handler.js';
import { createNotifierHandler } from '../functions/notifier/handler.js';
import { createProvisionerHandler } from '../functions/provisioner/handler.js';
import { createWatchdogHandler } from '../functions/watchdog/handler.js';
import { localCharmStore } from '../shared/charmstore/charm-store.js';
import { fileLogSink } from '../shared/logs/file-log-sink.js';
import { createSqsClient } from '../shared/messaging/sqs-client.js';
import { buildLocalAgent } from '../shared/provider/local/agent-build.js';
import { LocalProvider } from '../shared/provider/local/local-provider.js';
import { derivedAgentCredentials } from '../shared/provisioner/agent-credentials.js';
import type { ProvisionerDeps } from '../shared/provisioner/deps.js';
import { reconcileAll } from '../shared/provisioner/reconcile-all.js';
import { reviveAgents } from '../shared/provisioner/revive-agents.js';
import { sqsMachineQueues } from '../shared/provisioner/sqs-machine-queues.js';
import { startDynamoDbLocal, localCredentials } from '../shared/state/dynamodb-local.js';
import { ensureModel } from '../shared/state/model.js';
import { createStore } from '../shared/state/store.js';
import { ensureTable } from '../shared/state/table.js';
import { startApiServer } from './api-server.js';
import { resumeAgents } from './resume-agents.js';
import { loadOrCreateSecrets, writePrivateJson } from './secrets.js';
import { startSqsServer } from './sqs-server.js';
import { createStreamPoller, fileCheckpointStore, type StreamPoller } from './stream-poller.js';

export interface ControllerOptions {
  dataDir: string;
  /** API port; by default the one used last time, or any free one. */
  port?: number;
  /**
   * How often the watchdog, the full reconcile and the cleanup sweep run, and how often dead
   * machine agents are looked for (and started again: shared/provisioner/revive-agents.ts).
   */
  timers?: { watchdogMs?: number; reconcileMs?: number; sweepMs?: number; agentCheckMs?: number };
  /** The machine agent; by default agent/machine-agent.ts bundled into the data dir (agent-build.ts). */
  agentCommand?: string[];
  stuckAfterSeconds?: number;
  /** An agent silent this long shows as lost/down in status; default 12 min. */
  agentLostAfterSeconds?: number;
  /** The length of a leadership lease (ApiDeps.leadershipLeaseSeconds); default 5.5 min. */
  leadershipLeaseSeconds?: number;
  logger?: Logger;
}

export interface RunningController {
  controllerId: string;
  apiUrl: string;
  token: string;
  dataDir: string;
  stop(): Promise<void>;
}

const TABLE = 'drover';

/**
 * The provisioner's stream batches are as large as the other consumers' here: a batch of 20
 * records (the AWS setting) holds only a few machines among the units, sequences and status-log
 * entries of the same transactions, and each batch waits for its slowest start. Its concurrency
 * stays at 8: the host's CPU is what agents starting together share, so starting 32 at once made
 * a `deploy -n 100` slower at p50 (16 s against 9 s: every agent finishes late) and no faster at
 * p99, and 4 at once made provisioning the bottleneck (bench/RESULTS.md, "Agents").
 */
export const LOCAL_PROVISIONING = { concurrency: 8, streamBatchSize: 100 };

export async function startController(options: ControllerOptions): Promise<RunningController> {
  const dataDir = resolve(options.dataDir);
  await mkdir(join(dataDir, 'dynamodb'), { recursive: true });
  const logger = options.logger ?? new Logger({ serviceName: 'controller' });
  const secrets = loadOrCreateSecrets(dataDir);
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((e: unknown) => logger.error('stop failed', { error: e as Error }));
  };

  try {
    const dynamo = await startDynamoDbLocal({ dbPath: join(dataDir, 'dynamodb') });
    stops.push(() => dynamo.stop());
    const store = createStore({ table: TABLE, endpoint: dynamo.endpoint, region: 'local' });
    await ensureTable(store.client, TABLE);
    await ensureModel(store);

    const sqsServer = await startSqsServer();
    stops.push(() => sqsServer.stop());
    const sqs = createSqsClient({ endpoint: sqsServer.endpoint });

    const api = createApiHandler({
      store,
      charms: localCharmStore(join(dataDir, 'charms')),
      // The agents' logs, for `drover debug-log`.
      logs: fileLogSink(join(dataDir, 'logs')),
      auth: { kind: 'token', token: secrets.token },
      controller: secrets.controllerId,
      stuckAfterSeconds: options.stuckAfterSeconds ?? 600,
      ...(options.agentLostAfterSeconds !== undefined ? { agentLostAfterSeconds: options.agentLostAfterSeconds } : {}),
      ...(options.leadershipLeaseSeconds !== undefined ? { leadershipLeaseSeconds: options.leadershipLeaseSeconds } : {}),
    });
    const server = await startApiServer(api, { port: options.port ?? secrets.apiPort ?? 0 });
    stops.push(() => server.close());
    writePrivateJson(join(dataDir, 'secrets.json'), { ...secrets, apiPort: Number(new URL(server.url).port) });

    const provider = new LocalProvider({
      dataDir,
      agentCommand: options.agentCommand ?? (await buildLocalAgent(dataDir)),
      env: { DROVER_SQS_ENDPOINT: sqsServer.endpoint, AWS_REGION: 'local' },
    });
    // A clean stop leaves no process behind: the agents stop too, and resume at the next start.
    stops.push(() => provider.shutDownAgents(secrets.controllerId));
    const provisioner: ProvisionerDeps = {
      store,
      provider,
      queues: sqsMachineQueues(sqs, secrets.controllerId),
      credentials: derivedAgentCredentials(secrets.agentCredentialKey),
      controllerId: secrets.controllerId,
      apiUrl: server.url,
      policy: { concurrency: LOCAL_PROVISIONING.concurrency },
      log: { info: (m, d) => logger.info(m, d ?? {}), warn: (m, d) => logger.warn(m, d ?? {}), error: (m, d) => logger.error(m, d ?? {}) },
    };

    // One poller per consumer, as Lambda has one event source mapping per function.
    const failures = join(dataDir, 'stream-failures.jsonl');
    const consumers = {
      provisioner: createProvisionerHandler(provisioner),
      cleanup: createCleanupHandler({ store }),
      notifier: createNotifierHandler({ store, sqs, controllerId: secrets.controllerId }),
    };
    const pollers: StreamPoller[] = Object.entries(consumers).map(([name, handler]) =>
      createStreamPoller({
        tableName: TABLE,
        endpoint: dynamo.endpoint,
        region: 'local',
        credentials: localCredentials(),
        handler: handler as never,
        functionName: name,
        startingPosition: 'TRIM_HORIZON',
        checkpointStore: fileCheckpointStore(join(dataDir, `checkpoints-${name}.json`)),
        batchSize: name === 'provisioner' ? LOCAL_PROVISIONING.streamBatchSize : 100,
        pollIntervalMs: 100,
        // The failure destination: records given up on, kept for the operator.
        onFailure: (f) =>
          appendFile(failures, JSON.stringify({ consumer: name, shardId: f.shardId, error: String(f.error), records: f.records }) + '\n'),
        log: (message, details) => logger.warn(message, { poller: name, ...details }),
      }),
    );
    for (const poller of pollers) {
      await poller.start();
      stops.push(() => poller.stop());
    }

    await resumeAgents(provisioner).catch((e: unknown) => logger.error('cannot resume agents', { error: e as Error }));
    const watchdog = createWatchdogHandler({ store, thresholdSeconds: options.stuckAfterSeconds ?? 600, logger });
    const every = (ms: number, task: () => Promise<unknown>, name: string) => {
      let running = false;
      const timer = setInterval(() => {
        if (running) return;
        running = true;
        task()
          .catch((e: unknown) => logger.error(`${name} failed`, { error: e as Error }))
          .finally(() => (running = false));
      }, ms);
      stops.push(async () => clearInterval(timer));
    };
    every(options.timers?.watchdogMs ?? 60_000, watchdog, 'watchdog');
    every(options.timers?.reconcileMs ?? 60_000, () => reconcileAll(provisioner), 'reconcile');
    every(options.timers?.sweepMs ?? 30_000, () => sweep(store), 'cleanup sweep');
    // Cheap while every agent lives (a look at each machine directory); the full reconcile revives too.
    every(options.timers?.agentCheckMs ?? 3_000, () => reviveAgents(provisioner), 'agent check');

    const info = join(dataDir, 'controller.json');
    writePrivateJson(info, { controllerId: secrets.controllerId, apiUrl: server.url, token: secrets.token, pid: process.pid });
    stops.unshift(() => rm(info, { force: true }));
    return { controllerId: secrets.controllerId, apiUrl: server.url, token: secrets.token, dataDir, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
