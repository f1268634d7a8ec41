// The CLI against a real API: an in-process API server (the local controller's HTTP server and
// the API handler, over a fresh DynamoDB Local table) and a DROVER_HOME whose controllers.json
// points at it. Most tests call the CLI in-process (run(argv, io)); a few spawn `drover` as a
// user would, through its bin (cli/drover.mjs: the cached bundle), to prove exit codes and streams
// end to end.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ControllerEntry } from '../../cli/config.js';
import { createChangesHandler } from '../../functions/changes/handler.js';
import { streamConsumer } from '../../functions/stream-consumers.js';
import { startSqsServer } from '../../embedded/sqs-server.js';
import { pollerSettingsOf } from '../../embedded/stream/consumer-settings.js';
import { createStreamPoller } from '../../embedded/stream-poller.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { createApiHandler } from '../../functions/api/handler.js';
import { DEFAULT_CHARMHUB_SETTINGS } from '../../functions/api/charmhub-charm.js';
import { startApiServer, type ApiServer } from '../../embedded/api-server.js';
import { charmFileRoutes } from '../../embedded/charm-files.js';
import { run, type CliIo } from '../../cli/main.js';
import { type CharmStore } from '#shared/charmstore/charm-store.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { fileLogSink } from '#shared/logs/file-log-sink.js';
import type { LogSink } from '#shared/logs/log-sink.js';
import { ensureModel } from '#shared/state/operations/model.js';
import type { Store } from '#shared/state/engine/store.js';
import { freshStore } from './table.js';
import { testAgentKeys } from './agent-events.js';
import { dynamoEndpoint } from './dynamodb.js';
import { silentLogger } from './silent-logger.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const charmDir = (name: string) => join(REPO, 'test', 'charms', name);
/** The `drover` bin, as package.json names it. */
export const DROVER_BIN = join(REPO, 'cli', 'drover.mjs');
/** Node's arguments for `drover <args>`: the bin, as a user's shell runs it. */
export const droverArgs = (args: string[]) => [DROVER_BIN, ...args];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Lines answered to prompts. */
  stdin?: string[];
  signal?: AbortSignal;
  /** Called with each stdout write (for --watch). */
  onStdout?: (text: string) => void;
}

export async function writeClientConfig(home: string, current: string | undefined, controllers: Record<string, ControllerEntry>) {
  await mkdir(home, { recursive: true });
  await writeFile(join(home, 'controllers.json'), JSON.stringify({ ...(current ? { current } : {}), controllers }), { mode: 0o600 });
}

/** Runs the CLI in this process with captured streams. */
export async function runCli(args: string[], env: Record<string, string | undefined>, options: RunOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const stdin = [...(options.stdin ?? [])];
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
      options.onStdout?.(text);
    },
    stderr: (text) => void (stderr += text),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, ...options.env },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    readLine: async () => stdin.shift(),
    signal: options.signal ?? new AbortController().signal,
  };
  const code = await run(args, io);
  return { code, stdout, stderr };
}

/** Runs `drover` as a separate process, exactly as a user's shell would. */
export function spawnCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      droverArgs(args),
      { cwd: REPO, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface CliHarness {
  store: Store;
  /** The controller's charm store: what deploy uploaded, as the agents download it. */
  charms: CharmStore;
  /** The agents' log that debug-log reads. */
  logs: LogSink;
  server: ApiServer;
  home: string;
  env: Record<string, string>;
  run(args: string[], options?: RunOptions): Promise<CliResult>;
  spawn(args: string[]): Promise<CliResult>;
  close(): Promise<void>;
}

export const TOKEN = 'cli-test-token';

export interface CliControllerOptions {
  now?: () => Date;
  /**
   * Run the \`changes\` function on the table's stream as the local controller does (a stream poller,
   * hints to an SQS server): what moves the model's revision, which the dashboard follows.
   */
  changes?: boolean;
}

/**
 * Tests reach no host but this one: the controller's Charmhub client may ask only loopback
 * servers (test/support/charmhub-server.ts), so a fuzzed `deploy <name>` never asks Charmhub itself.
 */
const loopbackOnly: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
    return Promise.reject(new TypeError('fetch failed', { cause: new Error(`tests reach no host but this one, not ${url.host}`) }));
  return fetch(input, init);
};

/** A controller named "test" (current), served in-process over a fresh table. */
export async function startCliController(options: CliControllerOptions = {}): Promise<CliHarness> {
  const store = await freshStore(options.now ? { now: options.now } : {});
  await ensureModel(store);
  const charmsDir = await mkdtemp(join(tmpdir(), 'drover-cli-charms-'));
  const charms = localCharmStore(charmsDir);
  const logs = fileLogSink(await mkdtemp(join(tmpdir(), 'drover-cli-logs-')));
  const handler = createApiHandler({
    store,
    charms,
    logs,
    // Everything not Alive shows in `drover stuck` at once.
    stuckAfterSeconds: 0,
    auth: { kind: 'token', token: TOKEN },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: silentLogger,
    charmhub: { ...DEFAULT_CHARMHUB_SETTINGS, fetch: loopbackOnly },
  });
  const server = await startApiServer(handler, { direct: charmFileRoutes(charms) });
  const home = await mkdtemp(join(tmpdir(), 'drover-cli-home-'));
  await writeClientConfig(home, 'test', { test: { type: 'local', apiUrl: server.url, token: TOKEN } });
  const env = { DROVER_HOME: home };
  const changes = options.changes ? await startChanges(store) : undefined;
  return {
    store,
    charms,
    logs,
    server,
    home,
    env,
    run: (args, runOptions) => runCli(args, env, runOptions),
    spawn: (args) => spawnCli(args, env),
    close: async () => {
      await changes?.stop();
      await server.close();
    },
  };
}

/** The changes function fed by a stream poller, with an SQS server for its hints, as embedded/controller.ts runs it. */
async function startChanges(store: Store): Promise<{ stop(): Promise<void> }> {
  const sqsServer = await startSqsServer();
  const sqs = createSqsClient({ endpoint: sqsServer.endpoint, region: 'us-east-1' });
  const poller = createStreamPoller({
    ...pollerSettingsOf(streamConsumer('changes')),
    tableName: store.table,
    endpoint: await dynamoEndpoint(),
    region: 'local',
    startingPosition: 'TRIM_HORIZON',
    handler: createChangesHandler({ store, sqs, controllerId: 'test', logger: silentLogger }),
    onFailure: async () => undefined,
    pollIntervalMs: 50,
    retryDelayMs: 20,
    log: () => undefined,
  });
  await poller.start();
  return {
    async stop() {
      await poller.stop();
      sqs.destroy();
      await sqsServer.stop();
    },
  };
}

/** Runs the CLI and expects it to succeed: exit 0, no ERROR line. */
export async function expectOk(ctl: CliHarness, args: string[]): Promise<CliResult> {
  const res = await ctl.run(args);
  expect(res.stderr.startsWith('ERROR'), res.stderr).toBe(false);
  expect(res.code, res.stderr).toBe(0);
  return res;
}

/** Runs the CLI and expects Juju's kind of refusal: the exit code, `ERROR <message>`, never a stack trace. */
export async function expectError(ctl: CliHarness, code: number, args: string[], message: string | RegExp): Promise<CliResult> {
  const res = await ctl.run(args);
  expect(res.code).toBe(code);
  expect(res.stderr).toMatch(typeof message === 'string' ? `ERROR ${message}` : message);
  expect(res.stderr).not.toMatch(/\n\s+at /); // never a stack trace
  return res;
}
