// Harness for machine-agent integration tests: the real API handler on a local HTTP server over
// DynamoDB Local, fauxqs for the machine queues, the changes function fed by stream
// pollers (as the local controller runs them), and real machine agent processes
// (the agent bundled as the local controller bundles it: shared/provider/local/agent-build.ts). Every process a test starts is killed, with its
// process group (hooks included), when the harness stops.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { SQSClient } from '@aws-sdk/client-sqs';
import { createApiHandler } from '../../functions/api/handler.js';
import { createChangesHandler } from '../../functions/changes/handler.js';
import { sweep } from '../../functions/cleanup/handler.js';
import { streamConsumer } from '../../functions/stream-consumers.js';
import { startApiServer, type ApiServer } from '../../embedded/api-server.js';
import { charmFileRoutes } from '../../embedded/charm-files.js';
import { startSqsServer, type SqsServer } from '../../embedded/sqs-server.js';
import { pollerSettingsOf } from '../../embedded/stream/consumer-settings.js';
import { createStreamPoller, type StreamPoller } from '../../embedded/stream-poller.js';
import { killLeftoverHookGroups } from '../../agent/uniter/hook-groups.js';
import { packCharmDir } from '#shared/charmstore/charm-archive.js';
import { type CharmStore } from '#shared/charmstore/charm-store.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { parseCharm } from '#shared/domain/charm.js';
import type { Unit } from '#shared/domain/entities.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import type { LogSink } from '#shared/logs/log-sink.js';
import { ensureMachineQueue } from '#shared/messaging/machine-queues.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { buildLocalAgent } from '#shared/provider/local/agent-build.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy, type DeployRequest } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getUnit } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { freshStore } from './table.js';
import { MACHINE_HEADER } from '#shared/api/agent-signing.js';
import { derivedAgentCredentials, newAgentCredentialKey, type AgentCredentials } from '#shared/provisioner/agent-credentials.js';
import { dynamoEndpoint } from './dynamodb.js';
import { silentLogger } from './silent-logger.js';

export const CONTROLLER = 'agents-test';
const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const CHARMS = join(REPO, 'test', 'charms');

export interface AgentProcess {
  machineId: string;
  dir: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  /**
   * SIGKILL to the agent and its process group: "agent killed mid-hook". Its hooks run in groups
   * of their own (agent/uniter/hook-groups.ts) and outlive it until an agent starts on the machine
   * again, or the harness stops.
   */
  kill(): Promise<void>;
}

export interface AgentHarness {
  store: Store;
  /** The machines' keys: a provisioner that starts agents for this harness's API must hand out these. */
  agentKeys: AgentCredentials;
  charms: CharmStore;
  logs: LogSink;
  api: ApiServer;
  /** The SQS server's endpoint, for agents started some other way (the local provider). */
  sqsEndpoint: string;
  /** The SQS client machine queues are made with. */
  sqs: SQSClient;
  /** The bundled machine agent: the command the local provider would run. */
  agentCommand: string[];
  dataDir: string;
  machineDir(machineId: string): string;
  /** A deployed unit's directory on its machine (its charm dir, hook log and state beneath). */
  unitDir(machineId: string, unit: string): string;
  /** The machine's gates directory, made if missing: a test charm's hook fails while `fail-<hook>` is in it. */
  gatesDir(machineId: string): string;
  deployCharm(
    charm: string,
    request?: Omit<DeployRequest, 'charm' | 'charmArchive'>,
  ): Promise<{ application: string; units: string[]; machines: string[] }>;
  startAgent(machineId: string, env?: Record<string, string>): Promise<AgentProcess>;
  /** Agent API requests made with the machine's credential so far. */
  agentRequests(machineId: string): number;
  /** Settles the stream: every hint for what was written so far is sent. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export interface AgentHarnessOptions {
  /** The API's presence threshold (and so its write interval): short, for tests of lost/down. */
  agentLostAfterSeconds?: number;
  /** The leadership lease's length (ApiDeps.leadershipLeaseSeconds): short, for tests of failover. */
  leadershipLeaseSeconds?: number;
  /** Run the cleanup sweep (functions/cleanup/handler.ts) this often, as the controller does; default: never. */
  sweepMs?: number;
}

export async function startAgentHarness(options: AgentHarnessOptions = {}): Promise<AgentHarness> {
  const store = await freshStore();
  await ensureModel(store);
  const dataDir = mkdtempSync(join(tmpdir(), 'drover-agents-'));
  const [node, ...agentArgs] = await buildLocalAgent(dataDir);
  const charms = localCharmStore(join(dataDir, 'charms'));
  const logs = fileLogSink(join(dataDir, 'logs'));
  const sqsServer: SqsServer = await startSqsServer();
  const sqs: SQSClient = createSqsClient({ endpoint: sqsServer.endpoint, region: 'us-east-1' });
  // The machines' keys, as the local controller derives them: startAgent hands them to the agents
  // it starts, a provisioner given `agentKeys` to the agents it starts, and the API checks both.
  const agentKeys = derivedAgentCredentials(newAgentCredentialKey());
  const handler = createApiHandler({
    store,
    charms,
    auth: { kind: 'token', token: 'test-token' },
    agents: { kind: 'machine-keys', keys: agentKeys },
    controller: CONTROLLER,
    logger: silentLogger,
    logs,
    ...(options.agentLostAfterSeconds !== undefined ? { agentLostAfterSeconds: options.agentLostAfterSeconds } : {}),
    ...(options.leadershipLeaseSeconds !== undefined ? { leadershipLeaseSeconds: options.leadershipLeaseSeconds } : {}),
  });
  const agentRequests = new Map<string, number>();
  const api = await startApiServer(
    async (event) => {
      const machine = event.headers[MACHINE_HEADER];
      if (machine !== undefined) agentRequests.set(machine, (agentRequests.get(machine) ?? 0) + 1);
      return handler(event);
    },
    { direct: charmFileRoutes(charms) },
  );
  const endpoint = await dynamoEndpoint();
  // The changes function as the local controller runs it (no provisioner: tests start the agents).
  const pollers: StreamPoller[] = [
    createStreamPoller({
      ...pollerSettingsOf(streamConsumer('changes')),
      tableName: store.table,
      endpoint,
      region: 'local',
      startingPosition: 'TRIM_HORIZON',
      handler: createChangesHandler({ store, sqs, controllerId: CONTROLLER, logger: silentLogger }),
      onFailure: async () => undefined,
      pollIntervalMs: 50,
      retryDelayMs: 20,
      log: () => undefined,
    }),
  ];
  await Promise.all(pollers.map((p) => p.start()));
  const sweeper = options.sweepMs !== undefined ? sweepEvery(store, options.sweepMs) : undefined;
  const agents: AgentProcess[] = [];
  const machineDir = (id: string) => join(dataDir, 'machines', id);

  return {
    store,
    agentKeys,
    charms,
    logs,
    api,
    sqsEndpoint: sqsServer.endpoint,
    sqs,
    agentCommand: [node!, ...agentArgs],
    dataDir,
    machineDir,
    unitDir: (id, unit) => join(machineDir(id), 'units', unit.replace('/', '-')),
    gatesDir(id) {
      const dir = join(machineDir(id), 'gates');
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    async deployCharm(charm, request = {}) {
      const dir = join(CHARMS, charm);
      const optional = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined);
      const manifest = optional('manifest.yaml');
      const meta = parseCharm(
        readFileSync(join(dir, 'metadata.yaml'), 'utf8'),
        optional('config.yaml'),
        optional('actions.yaml'),
        manifest ? { manifest } : {},
      );
      const charmArchive = await charms.put(await packCharmDir(dir));
      return deploy(store, { charm: meta, charmArchive, ...request });
    },
    async startAgent(machineId, env = {}) {
      const credential = await agentKeys.forAttempt({ model: store.model, machineId, attempt: 0 });
      await setAgentCredentialHash(store, machineId, hashAgentCredential(credential), 0);
      const queueUrl = await ensureMachineQueue(sqs, CONTROLLER, 'default', machineId);
      const dir = machineDir(machineId);
      mkdirSync(dir, { recursive: true });
      const child = spawn(node!, agentArgs, {
        cwd: REPO,
        detached: true,
        // The credential on standard input, as the local provider gives it.
        stdio: ['pipe', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          DROVER_CONTROLLER_ID: CONTROLLER,
          DROVER_MACHINE_ID: machineId,
          DROVER_API_URL: api.url,
          DROVER_AGENT_CREDENTIAL_STDIN: '1',
          DROVER_QUEUE_URL: queueUrl,
          DROVER_SQS_ENDPOINT: sqsServer.endpoint,
          DROVER_MACHINE_DIR: dir,
          DROVER_HOST_ADDRESS: '127.0.0.1',
          AWS_REGION: 'us-east-1',
          ...env,
        },
      });
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(`${credential}\n`);
      const output: string[] = [];
      child.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
      child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const agent: AgentProcess = {
        machineId,
        dir,
        child,
        exited,
        async kill() {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            // gone already
          }
          await exited;
        },
      };
      Object.defineProperty(agent, 'output', { get: () => output.join('') });
      agents.push(agent);
      return agent;
    },
    agentRequests: (machineId) => agentRequests.get(machineId) ?? 0,
    drain: async () => {
      await Promise.all(pollers.map((p) => p.drain()));
    },
    async stop() {
      await sweeper?.stop();
      await Promise.all(agents.map((a) => a.kill()));
      // What killed agents left running, as the next agent on each machine would.
      for (const agent of agents) killLeftoverHookGroups(join(agent.dir, 'running-hooks'));
      await Promise.all(pollers.map((p) => p.stop()));
      await api.close();
      sqs.destroy();
      await sqsServer.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The lines a test charm's hooks logged for a unit (see lib/common.sh in each test charm). */
export function hookLog(harness: AgentHarness, machineId: string, unit: string): string[] {
  try {
    return readFileSync(join(harness.unitDir(machineId, unit), 'hook-log'), 'utf8')
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

/** Just the hook names, in order. */
export const hookNames = (lines: string[]) => lines.map((l) => /^hook=(\S+)/.exec(l)?.[1] ?? '?');

export const unitOf = (harness: AgentHarness, name: string): Promise<Unit | undefined> => getUnit(harness.store, name);

/** The controller's periodic sweep (embedded/controller.ts): one run at a time. */
function sweepEvery(store: Store, ms: number): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => sweep(store)).catch(() => undefined);
  }, ms);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
