// One controller per data directory. Two controllers on one directory would run two DynamoDB
// Locals on one database file and two sets of pollers and agents: the second start must fail and
// name the first. The lock names its holder (shared/provider/local/lock-file.ts): a lock left by a
// controller that crashed is taken over, never waited on, and a reused pid is not mistaken for
// its holder.
import { join } from 'node:path';
import { lockState, newLockHolder, readLockHolder, tryCreateLock, unlinkLockIfHeldBy } from '#shared/provider/local/lock-file.js';

export const LOCK_FILE = 'controller.lock';

/** Tries at the lock before giving up (each one past the first means another start raced this one). */
const MAX_TRIES = 5;

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number | undefined,
  ) {
    super(
      `another controller (pid ${pid ?? 'unknown'}) is running from ${dataDir}; stop it first ` +
        `("drover kill-controller", or Ctrl-C where it runs), or use another --data-dir`,
    );
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE);
  const me = newLockHolder();
  for (let tries = 0; !(await tryCreateLock(path, me)); tries++) {
    const holder = await readLockHolder(path);
    const state = await lockState(path, holder);
    if (state === 'held' || tries >= MAX_TRIES) throw new DataDirLockedError(dataDir, holder?.pid);
    if (state === 'stale') await unlinkLockIfHeldBy(path, holder?.token);
  }
  return { release: () => unlinkLockIfHeldBy(path, me.token) };
}
