// The local controller: the same handlers as on AWS, wired together on one machine.
//
//   DynamoDB Local (data on disk) ──stream──> pollers ──> provisioner / changes (hints, cleanups)
//   HTTP API on 127.0.0.1 ──> the api handler          fauxqs (SQS) <── hints
//   local provider: machine agents as processes        timers: watchdog, full reconcile, sweep
//
// One controller per data directory (embedded/data-dir-lock.ts), and DynamoDB Local is supervised:
// restarted when it dies, with the API answering 503 meanwhile (embedded/supervised-dynamodb.ts).
import { appendFile, chmod, mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { createApiHandler } from '../functions/api/handler.js';
import { sweep } from '../functions/cleanup/handler.js';
import { STREAM_CONSUMERS } from '../functions/stream-consumers.js';
import { createWatchdogHandler } from '../functions/watchdog/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { DEFAULT_STUCK_AFTER_SECONDS } from '#shared/domain/stuck.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import { deadLetterQueueName } from '#shared/messaging/queue-names.js';
import { createSqsClient, queueNameOfUrl, SQS_ACCESS_KEY_ENV } from '#shared/messaging/sqs-client.js';
import { buildLocalAgent } from '#shared/provider/local/agent-build.js';
import { localHookSandbox } from '#shared/provider/local/hook-sandbox.js';
import { LocalProvider } from '#shared/provider/local/local-provider.js';
import { derivedAgentCredentials } from '#shared/provisioner/agent-credentials.js';
import type { ProvisionerDeps } from '#shared/provisioner/deps.js';
import { reconcileAll } from '#shared/provisioner/reconcile-all.js';
import { reviveAgents } from '#shared/provisioner/revive-agents.js';
import { sqsMachineQueues } from '#shared/provisioner/sqs-machine-queues.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { bootstrapModel } from '#shared/state/operations/model.js';
import { setModelDefaults } from '#shared/state/operations/model-defaults.js';
import { createStore } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { startApiServer } from './api-server.js';
import { charmFileRoutes } from './charm-files.js';
import { lockDataDir } from './data-dir-lock.js';
import { guardedByDatabase } from './database-guard.js';
import { DYNAMODB_PID_FILE, killOrphanedDynamoDb } from './dynamodb-pid-file.js';
import { resumeAgents } from './resume-agents.js';
import { loadOrCreateSecrets, writePrivateJson } from './secrets.js';
import { sqsEndpointFile, writeSqsEndpoint } from './sqs-endpoint-file.js';
import { agentSqsAccessKey } from './sqs-access.js';
import { startSqsServer } from './sqs-server.js';
import { pollerSettingsOf } from './stream/consumer-settings.js';
import { nudgeOnWrites } from './stream/write-nudges.js';
import { createStreamPoller, fileCheckpointStore, type StreamPoller } from './stream-poller.js';
import { superviseDynamoDb } from './supervised-dynamodb.js';
import { partsLog } from './parts-log.js';
import { errorMessage } from '#shared/domain/errors.js';

export interface ControllerOptions {
  dataDir: string;
  /** API port; by default the one used last time, or any free one. */
  port?: number;
  /**
   * How often the watchdog, the full reconcile and the cleanup sweep run, and how often dead
   * machine agents are looked for (and started again: shared/provisioner/revive-agents.ts).
   */
  timers?: { watchdogMs?: number; reconcileMs?: number; sweepMs?: number; agentCheckMs?: number };
  /** The machine agent; by default agent/main.ts bundled into the data dir (agent-build.ts). */
  agentCommand?: string[];
  stuckAfterSeconds?: number;
  /** An agent silent this long shows as lost/down in status; default 12 min. */
  agentLostAfterSeconds?: number;
  /** The length of a leadership lease (ApiDeps.leadershipLeaseSeconds); default 5.5 min. */
  leadershipLeaseSeconds?: number;
  logger?: Logger;
  /**
   * `bootstrap --model-default key=value`: the controller's model defaults, set before bootstrap's
   * model is made, so that it takes them as every later model does.
   */
  modelDefaults?: Record<string, string>;
}

export interface RunningController {
  controllerId: string;
  apiUrl: string;
  token: string;
  dataDir: string;
  /** The supervised DynamoDB Local's pid while it runs (tests kill it to show it comes back). */
  databasePid(): number | undefined;
  /** DynamoDB Local's address, the same across its restarts (tests read the table behind the API). */
  databaseEndpoint: string;
  /** The only access key DynamoDB Local accepts (tests reading the table behind the API sign with it). */
  databaseAccessKey: string;
  /** What the operator must know about this controller (no hook sandbox), also in controller.json and its log. */
  warnings: string[];
  stop(): Promise<void>;
}

export const TABLE = 'drover';
/**
 * The region every local client names, the controller's and the agents' alike. The SQS server
 * keys queues by region (their ARN) but hands out one URL per name: a queue re-created by an
 * agent in another region than the controller's replaced the controller's under the same URL,
 * and a long poll waiting on the old one missed every hint.
 */
export const LOCAL_REGION = 'local';

/**
 * How many machines the provisioner starts at once. The host's CPU is what agents starting
 * together share, so starting 32 at once made a `deploy -n 100` slower at p50 (16 s against 9 s:
 * every agent finishes late) and no faster at p99, and 4 at once made provisioning the bottleneck
 * (bench/RESULTS.md, "Agents").
 */
export const LOCAL_PROVISIONING_CONCURRENCY = 8;

/**
 * How the local controller's stream pollers read the stream. Told of every write this process
 * makes (stream/write-nudges.ts), a poller polls every 100 ms while writes come, every 2 s once
 * none has come for 2 s, and at once on the first write after that. Polling an idle stream every
 * 100 ms cost DynamoDB Local about 108 ms of CPU a second and this process about 60 (measured by
 * bench/idle-polling.bench.ts; bench/RESULTS.md, "Idle stream polling").
 */
export const LOCAL_STREAM_POLLING = { pollIntervalMs: 100, idlePollIntervalMs: 2_000 } as const;

export async function startController(options: ControllerOptions): Promise<RunningController> {
  const dataDir = resolve(options.dataDir);
  // The database, the token and the agent key live here: this user's only, however it was made.
  await mkdir(join(dataDir, 'dynamodb'), { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  const logger = options.logger ?? new Logger({ serviceName: 'controller' });
  // First, before anything touches the data: a second controller on this directory stops here.
  const lock = await lockDataDir(dataDir);
  const secrets = loadOrCreateSecrets(dataDir);
  const stops: (() => Promise<unknown>)[] = [() => lock.release()];
  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    for (const stop of stops.reverse()) await stop().catch((e: unknown) => logger.error('stop failed', { error: e as Error }));
  };

  try {
    const logs = fileLogSink(join(dataDir, 'logs'));
    const parts = partsLog(logger, logs);
    const pidFile = join(dataDir, DYNAMODB_PID_FILE);
    const orphan = await killOrphanedDynamoDb(pidFile);
    if (orphan !== undefined) parts.error(`killed DynamoDB Local (pid ${orphan}), left running on ${dataDir} by a controller that crashed`);
    const dynamo = await superviseDynamoDb({
      dbPath: join(dataDir, 'dynamodb'),
      // Only this controller's key is let in: other local users cannot read or write the model.
      accessKeyId: secrets.databaseAccessKey,
      pidFile,
      log: parts,
    });
    stops.push(() => dynamo.stop());
    const store = createStore({ table: TABLE, endpoint: dynamo.endpoint, accessKeyId: secrets.databaseAccessKey, region: LOCAL_REGION });
    await ensureTable(store.client, TABLE);
    if (options.modelDefaults && Object.keys(options.modelDefaults).length > 0)
      await setModelDefaults(store, { set: options.modelDefaults });
    await bootstrapModel(store);

    // Only this controller's key, and each agent's for its own queue, are let in (sqs-access.ts).
    const sqsServer = await startSqsServer({
      ...(secrets.sqsPort ? { port: secrets.sqsPort } : {}),
      access: { key: secrets.sqsAccessKey, deadLetterQueue: deadLetterQueueName(secrets.controllerId) },
    });
    stops.push(() => sqsServer.stop());
    if (secrets.sqsPort && sqsServer.port !== secrets.sqsPort)
      parts.error(
        `SQS port ${secrets.sqsPort} is taken; the SQS server listens on ${sqsServer.port}, and running agents read it from ${sqsEndpointFile(dataDir)}`,
      );
    writeSqsEndpoint(dataDir, sqsServer.endpoint);
    const sqs = createSqsClient({ endpoint: sqsServer.endpoint, accessKeyId: secrets.sqsAccessKey, region: LOCAL_REGION });

    // One source of machine keys: the provisioner hands them to agents, the API checks their signatures.
    const agentKeys = derivedAgentCredentials(secrets.agentCredentialKey);
    const charms = localCharmStore(join(dataDir, 'charms'), secrets.charmUrlKey);
    const api = createApiHandler({
      store,
      charms,
      // The agents' logs, for `drover debug-log`.
      logs,
      auth: { kind: 'token', token: secrets.token },
      agents: { kind: 'machine-keys', keys: agentKeys },
      controller: secrets.controllerId,
      stuckAfterSeconds: options.stuckAfterSeconds ?? DEFAULT_STUCK_AFTER_SECONDS,
      ...(options.agentLostAfterSeconds !== undefined ? { agentLostAfterSeconds: options.agentLostAfterSeconds } : {}),
      ...(options.leadershipLeaseSeconds !== undefined ? { leadershipLeaseSeconds: options.leadershipLeaseSeconds } : {}),
    });
    const server = await startApiServer(guardedByDatabase(api, dynamo), {
      port: options.port ?? secrets.apiPort ?? 0,
      direct: charmFileRoutes(charms),
    });
    stops.push(() => server.close());
    writePrivateJson(join(dataDir, 'secrets.json'), { ...secrets, apiPort: Number(new URL(server.url).port), sqsPort: sqsServer.port });

    // Hooks see neither this directory nor the user's home (the CLI's credentials), where bwrap works.
    const hookSandbox = localHookSandbox(dataDir, process.env.HOME);
    const warnings = hookSandbox.warning ? [hookSandbox.warning] : [];
    for (const warning of warnings) parts.warn(warning);
    const provider = new LocalProvider({
      dataDir,
      agentCommand: options.agentCommand ?? (await buildLocalAgent(dataDir)),
      env: {
        DROVER_SQS_ENDPOINT: sqsServer.endpoint,
        DROVER_SQS_ENDPOINT_FILE: sqsEndpointFile(dataDir),
        AWS_REGION: LOCAL_REGION,
        ...hookSandbox.env,
      },
      agentEnv: (request) => ({ [SQS_ACCESS_KEY_ENV]: agentSqsAccessKey(secrets.sqsAccessKey, queueNameOfUrl(request.agent.queueUrl)) }),
    });
    // A clean stop leaves no process behind: the agents stop too, and resume at the next start.
    stops.push(() => provider.shutDownAgents(secrets.controllerId));
    const provisioner: ProvisionerDeps = {
      store,
      provider,
      queues: sqsMachineQueues(sqs, secrets.controllerId),
      credentials: agentKeys,
      controllerId: secrets.controllerId,
      apiUrl: server.url,
      policy: { concurrency: LOCAL_PROVISIONING_CONCURRENCY },
      log: { info: (m, d) => logger.info(m, d ?? {}), warn: (m, d) => logger.warn(m, d ?? {}), error: (m, d) => logger.error(m, d ?? {}) },
    };

    // One poller per stream consumer, with its event source mapping's settings (functions/stream-consumers.ts).
    const failures = join(dataDir, 'stream-failures.jsonl');
    const consumers = STREAM_CONSUMERS.map((consumer) => ({
      consumer,
      handler: consumer.create({ provisioner, changes: { store, sqs, controllerId: secrets.controllerId } }),
    }));
    const createPollers = (): StreamPoller[] =>
      consumers.map(({ consumer, handler }) =>
        createStreamPoller({
          ...pollerSettingsOf(consumer),
          tableName: TABLE,
          endpoint: dynamo.endpoint,
          region: LOCAL_REGION,
          credentials: localCredentials(secrets.databaseAccessKey),
          handler,
          startingPosition: 'TRIM_HORIZON',
          checkpointStore: fileCheckpointStore(join(dataDir, `checkpoints-${consumer.name}.json`)),
          ...LOCAL_STREAM_POLLING,
          // The failure destination: records given up on, kept for the operator.
          onFailure: (f) =>
            appendFile(
              failures,
              JSON.stringify({ consumer: consumer.name, shardId: f.shardId, error: String(f.error), records: f.records }) + '\n',
            ),
          log: (message, details) => logger.warn(message, { poller: consumer.name, ...details }),
        }),
      );
    let pollers: StreamPoller[] = [];
    nudgeOnWrites(store.client, () => {
      for (const poller of pollers) poller.nudge();
    });
    // Stops run one after another and a start waits for them: two pollers of one consumer must
    // never read the stream, and write its checkpoint file, at the same time.
    let pollersStopped: Promise<void> = Promise.resolve();
    const stopPollers = (): Promise<void> => {
      const running = pollers;
      pollers = [];
      pollersStopped = pollersStopped.then(async () => void (await Promise.all(running.map((p) => p.stop()))));
      return pollersStopped;
    };
    const startPollers = async () => {
      await pollersStopped;
      pollers = createPollers();
      for (const poller of pollers) await poller.start();
    };
    await startPollers();
    stops.push(stopPollers);
    // Paused while DynamoDB Local is down: a batch whose handler kept failing meanwhile would
    // use up its retries and go to the failure destination, undone. Once it is back, new pollers
    // take up each shard from its checkpoint file, as after a controller restart (the stream
    // lives in the database and survives).
    dynamo.onStopped(() => void stopPollers());
    dynamo.onRestarted(async () => {
      for (let attempt = 1; !stopping; attempt++) {
        try {
          await startPollers();
          parts.info('stream pollers resumed from their checkpoints');
          return;
        } catch (e) {
          await stopPollers();
          parts.error(`cannot resume the stream pollers (attempt ${attempt}): ${errorMessage(e)}`);
          await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** attempt)));
        }
      }
    });

    await resumeAgents(provisioner).catch((e: unknown) => logger.error('cannot resume agents', { error: e as Error }));
    const watchdog = createWatchdogHandler({ store, thresholdSeconds: options.stuckAfterSeconds ?? DEFAULT_STUCK_AFTER_SECONDS, logger });
    const every = (ms: number, task: () => Promise<unknown>, name: string) => {
      let running = false;
      const timer = setInterval(() => {
        // Nothing to do while the database restarts: the task would only fail.
        if (running || !dynamo.isUp()) return;
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
    writePrivateJson(info, { controllerId: secrets.controllerId, apiUrl: server.url, token: secrets.token, pid: process.pid, warnings });
    // Removed at the very end of a stop (the list runs in reverse), just before the lock is
    // released: while it exists, the controller's process is still winding down.
    stops.splice(1, 0, () => rm(info, { force: true }));
    return {
      controllerId: secrets.controllerId,
      apiUrl: server.url,
      token: secrets.token,
      dataDir,
      databasePid: () => dynamo.pid(),
      databaseEndpoint: dynamo.endpoint,
      databaseAccessKey: secrets.databaseAccessKey,
      warnings,
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
