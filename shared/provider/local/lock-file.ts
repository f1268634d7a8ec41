// A lock held by a file: created with O_EXCL, so it holds between objects in one process and
// between processes; it names its holder (pid and process start time, process-identity.ts), so a
// lock left by a process that died is taken over rather than waited on forever, and a reused pid
// is not mistaken for its holder. Used per machine directory (machine-lock.ts) and per controller
// data directory (embedded/data-dir-lock.ts).
import { randomUUID } from 'node:crypto';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { isProcessAlive, processStartTime, type ProcessIdentity } from './process-identity.js';

export interface LockHolder extends ProcessIdentity {
  /** Tells this holding apart from a later one by the same process. */
  token: string;
}

/** A lock file still empty after this long was left by a holder that died while writing it. */
const UNWRITTEN_LOCK_STALE_MS = 5_000;

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException).code;

export function newLockHolder(): LockHolder {
  const startTime = processStartTime(process.pid);
  return { pid: process.pid, ...(startTime ? { startTime } : {}), token: randomUUID() };
}

/** Creates the lock for `me`: false if someone holds it (or held it and left it behind). */
export async function tryCreateLock(path: string, me: LockHolder): Promise<boolean> {
  try {
    await writeFile(path, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (e) {
    if (codeOf(e) === 'EEXIST') return false;
    throw e;
  }
}

export async function readLockHolder(path: string): Promise<LockHolder | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock `holder` was read from is still held: `gone` if the file went meanwhile (try
 * again), `stale` if its holder is dead or it stayed unwritten too long (take it over).
 */
export async function lockState(path: string, holder: LockHolder | undefined): Promise<'held' | 'stale' | 'gone'> {
  if (holder) return isProcessAlive(holder) ? 'held' : 'stale';
  try {
    return Date.now() - (await stat(path)).mtimeMs > UNWRITTEN_LOCK_STALE_MS ? 'stale' : 'held';
  } catch {
    return 'gone';
  }
}

/** Removes the lock if `token` still holds it: re-read just before, so a lock taken meanwhile is left alone. */
export async function unlinkLockIfHeldBy(path: string, token: string | undefined): Promise<void> {
  const holder = await readLockHolder(path);
  if (holder?.token !== token) return;
  await unlink(path).catch((e: unknown) => {
    if (codeOf(e) !== 'ENOENT') throw e;
  });
}
