// One controller per data directory. Two controllers on one directory would run two DynamoDB
// Locals on one database file and two sets of pollers and agents: the second start must fail and
// name the first. The lock is a file created with O_EXCL that names its holder (pid and process
// start time, shared/provider/local/process-identity.ts): a lock left by a controller that
// crashed is taken over, never waited on, and a reused pid is not mistaken for its holder.
import { randomUUID } from 'node:crypto';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive, processStartTime, type ProcessIdentity } from '../shared/provider/local/process-identity.js';

export const LOCK_FILE = 'controller.lock';

/** A lock file still empty after this long was left by a holder that died while writing it. */
const UNWRITTEN_LOCK_STALE_MS = 5_000;
/** Takeovers of stale locks before giving up (each one means another start raced this one). */
const MAX_TAKEOVERS = 5;

interface LockHolder extends ProcessIdentity {
  token: string;
}

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

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException).code;

async function readHolder(path: string): Promise<LockHolder | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
}

async function isStale(path: string, holder: LockHolder | undefined): Promise<boolean> {
  if (holder) return !isProcessAlive(holder);
  try {
    return Date.now() - (await stat(path)).mtimeMs > UNWRITTEN_LOCK_STALE_MS;
  } catch {
    return true; // gone already: just try again
  }
}

async function unlinkIfHeldBy(path: string, token: string | undefined): Promise<void> {
  // Re-read just before unlinking, so a lock another start took meanwhile is left alone.
  const holder = await readHolder(path);
  if (holder?.token !== token) return;
  await unlink(path).catch((e: unknown) => {
    if (codeOf(e) !== 'ENOENT') throw e;
  });
}

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE);
  const startTime = processStartTime(process.pid);
  const me: LockHolder = { pid: process.pid, ...(startTime ? { startTime } : {}), token: randomUUID() };
  for (let takeovers = 0; ; takeovers++) {
    try {
      await writeFile(path, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if (codeOf(e) !== 'EEXIST') throw e;
      const holder = await readHolder(path);
      if (takeovers >= MAX_TAKEOVERS || !(await isStale(path, holder))) throw new DataDirLockedError(dataDir, holder?.pid);
      await unlinkIfHeldBy(path, holder?.token);
    }
  }
  return { release: () => unlinkIfHeldBy(path, me.token) };
}
