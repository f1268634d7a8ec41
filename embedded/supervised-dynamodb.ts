// The local controller's database, supervised: DynamoDB Local runs as a child process, and a
// child can die (killed by an operator or the OOM killer, a JVM crash). The controller notices
// at once (the child's exit event), says so, and starts it again on the same port with the same
// database directory, so every client, poller and agent keeps its endpoint. While it is down,
// `isUp()` is false and the API answers 503 (embedded/database-guard.ts); once it is back, the
// `onRestarted` listeners run (the controller restarts its stream pollers from their checkpoints).
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.js';
import { forgetDynamoDbPid, recordDynamoDbPid } from './dynamodb-pid-file.js';
import { errorMessage } from '#shared/domain/errors.js';
import type { PartsLog } from './parts-log.js';

export interface SupervisedDynamoDbOptions {
  dbPath: string;
  /** The only access key DynamoDB Local accepts (embedded/dynamodb-local.ts). */
  accessKeyId: string;
  /** Where the running DynamoDB Local's pid is recorded (embedded/dynamodb-pid-file.ts). */
  pidFile: string;
  log: PartsLog;
  /** Pauses between failed restarts; the last one repeats. */
  retryDelaysMs?: number[];
}

export interface SupervisedDynamoDb {
  endpoint: string;
  port: number;
  /** The running DynamoDB Local's pid, or undefined while it is down. */
  pid(): number | undefined;
  isUp(): boolean;
  /** How many times it was restarted since the controller started. */
  restarts(): number;
  /** Runs at once when DynamoDB Local stops unexpectedly. */
  onStopped(listener: () => void): void;
  /** Runs after every restart, once DynamoDB Local answers again. */
  onRestarted(listener: () => Promise<void>): void;
  stop(): Promise<void>;
}

const RETRY_DELAYS_MS = [500, 1_000, 2_000, 5_000];

export async function superviseDynamoDb(options: SupervisedDynamoDbOptions): Promise<SupervisedDynamoDb> {
  const { log } = options;
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const listeners: (() => Promise<void>)[] = [];
  const stoppedListeners: (() => void)[] = [];
  let current: DynamoDbLocal | undefined;
  let stopped = false;
  let restarts = 0;
  let restarting: Promise<void> | undefined;

  const launch = (port?: number) =>
    startDynamoDbLocal({
      dbPath: options.dbPath,
      accessKeyId: options.accessKeyId,
      ...(port !== undefined ? { port } : {}),
      onSpawn: (pid) => recordDynamoDbPid(options.pidFile, pid),
      onExit: (reason) => {
        if (stopped) return;
        const pid = current?.pid;
        current = undefined;
        log.error(
          `DynamoDB Local (pid ${pid}) stopped unexpectedly (${reason.trim()}); restarting it on port ${first.port} with the same data`,
        );
        for (const listener of stoppedListeners) listener();
        restarting ??= restart(Date.now()).finally(() => (restarting = undefined));
      },
    });

  // Until one runs again: a DynamoDB Local that dies while the listeners run is restarted too.
  async function restart(downSince: number): Promise<void> {
    for (let attempt = 0; !stopped && current === undefined; attempt++) {
      try {
        const started = await launch(first.port);
        if (stopped) {
          await started.stop();
          return;
        }
        current = started;
        restarts++;
        log.info(`DynamoDB Local is back (pid ${started.pid}) after ${((Date.now() - downSince) / 1000).toFixed(1)} s`, { restarts });
        for (const listener of listeners)
          await listener().catch((e: unknown) => log.error('cannot resume after the database restart', { error: String(e) }));
        attempt = -1;
      } catch (e) {
        const delay = delays[Math.min(attempt, delays.length - 1)]!;
        log.error(`cannot restart DynamoDB Local: ${errorMessage(e)}; trying again in ${delay} ms`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  const first = await launch();
  current = first;
  return {
    endpoint: first.endpoint,
    port: first.port,
    pid: () => current?.pid,
    isUp: () => current !== undefined,
    restarts: () => restarts,
    onStopped: (listener) => stoppedListeners.push(listener),
    onRestarted: (listener) => listeners.push(listener),
    async stop() {
      stopped = true;
      await restarting;
      await current?.stop();
      current = undefined;
      forgetDynamoDbPid(options.pidFile);
    },
  };
}
