// One local controller per data directory, and one DynamoDB Local (docs/reliability.md, defect #1): a second start
// on a directory in use is refused and names the running controller's pid; a lock left by a
// controller that died is taken over; a DynamoDB Local left running on the directory is killed
// before another is launched on the same database.
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../embedded/controller.js';
import { LOCK_FILE } from '../../embedded/data-dir-lock.js';
import { DYNAMODB_PID_FILE, recordDynamoDbPid } from '../../embedded/dynamodb-pid-file.js';
import { isProcessAlive } from '#shared/provider/local/process-identity.js';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../embedded/dynamodb-local.js';
import { fakeAgentCommand, tempDataDir } from '../support/local-agents.js';
import { silentLogger } from '../support/silent-logger.js';

let controllers: RunningController[] = [];
let orphan: DynamoDbLocal | undefined;
afterEach(async () => {
  for (const c of controllers) await c.stop();
  controllers = [];
  await orphan?.stop();
  orphan = undefined;
});

async function start(dataDir: string): Promise<RunningController> {
  const controller = await startController({ dataDir, agentCommand: fakeAgentCommand(), logger: silentLogger });
  controllers.push(controller);
  return controller;
}

async function status(c: RunningController): Promise<number> {
  return (await fetch(`${c.apiUrl}/v1/status`, { headers: { authorization: `Bearer ${c.token}` } })).status;
}

describe('local controller data directory', () => {
  it(
    'a second controller on a data directory in use is refused, naming the running one; after a stop it may start',
    { timeout: 120_000 },
    async () => {
      const dataDir = tempDataDir();
      const first = await start(dataDir);
      await expect(start(dataDir)).rejects.toThrow(`another controller (pid ${process.pid}) is running from ${dataDir}`);
      // The refused start touched nothing: the first one serves on, its DynamoDB Local untouched.
      expect(await status(first)).toBe(200);
      expect(isProcessAlive({ pid: first.databasePid()! })).toBe(true);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);

      await first.stop();
      controllers = [];
      const second = await start(dataDir);
      expect(await status(second)).toBe(200);
    },
  );

  it('a lock left by a controller that died is taken over', { timeout: 60_000 }, async () => {
    const dataDir = tempDataDir();
    // A pid that certainly ran and has exited.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: dead, token: 'crashed' }));
    const controller = await start(dataDir);
    expect(await status(controller)).toBe(200);
  });

  it(
    'a DynamoDB Local left running on the data directory is killed before another starts on its database',
    { timeout: 120_000 },
    async () => {
      const dataDir = tempDataDir();
      mkdirSync(join(dataDir, 'dynamodb'));
      orphan = await startDynamoDbLocal({
        dbPath: join(dataDir, 'dynamodb'),
        onSpawn: (pid) => recordDynamoDbPid(join(dataDir, DYNAMODB_PID_FILE), pid),
      });
      const controller = await start(dataDir);
      expect(isProcessAlive({ pid: orphan.pid })).toBe(false);
      expect(controller.databasePid()).not.toBe(orphan.pid);
      expect(await status(controller)).toBe(200);
    },
  );

  it('a recorded pid that is now another process (same pid, other start time) is left alone', { timeout: 60_000 }, async () => {
    const dataDir = tempDataDir();
    // This test process stands for the unrelated process that reused the pid.
    writeFileSync(join(dataDir, DYNAMODB_PID_FILE), JSON.stringify({ pid: process.pid, startTime: '1' }));
    const controller = await start(dataDir);
    expect(await status(controller)).toBe(200);
  });
});
