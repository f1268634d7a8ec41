// One start or stop at a time per machine directory. Two reconciles of the same machine (a stream
// batch delivered twice, the periodic resync racing the stream) must find one agent, not spawn
// one each: EC2 gets this from RunInstances' ClientToken, the local provider from this lock.
//
// The lock is a file created with O_EXCL, so it holds between LocalProviders in one process and
// between processes on one dataDir. It names its holder (pid and start time): a lock left by a
// process that died is taken over rather than waited on forever.
import { randomUUID } from 'node:crypto';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ProviderError } from '../provider.js';
import { ensureMachineDir, FILES } from './machine-dir.js';
import { isProcessAlive, processStartTime, type ProcessIdentity } from './process-identity.js';

interface LockHolder extends ProcessIdentity {
  token: string;
}

/** A lock file still empty after this long was left by a holder that died while writing it. */
const UNWRITTEN_LOCK_STALE_MS = 5_000;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const codeOf = (e: unknown) => (e as NodeJS.ErrnoException).code;

async function readHolder(path: string): Promise<LockHolder | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
}

async function unlinkIfHeldBy(path: string, token: string | undefined): Promise<void> {
  // Re-read just before unlinking, so a lock someone else took meanwhile is left alone.
  const holder = await readHolder(path);
  if (holder?.token !== token) return;
  await unlink(path).catch((e: unknown) => {
    if (codeOf(e) !== 'ENOENT') throw e;
  });
}

async function isStale(path: string, holder: LockHolder | undefined): Promise<boolean> {
  if (holder) return !isProcessAlive(holder);
  try {
    return Date.now() - (await stat(path)).mtimeMs > UNWRITTEN_LOCK_STALE_MS;
  } catch {
    return false; // gone already: just try again
  }
}

export async function withMachineLock<T>(dir: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const path = join(dir, FILES.lock);
  const startTime = processStartTime(process.pid);
  const me: LockHolder = { pid: process.pid, ...(startTime ? { startTime } : {}), token: randomUUID() };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      // Re-created each time: a stop that held the lock removed the whole directory.
      ensureMachineDir(dir);
      await writeFile(path, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if (codeOf(e) !== 'EEXIST') throw e;
      const holder = await readHolder(path);
      if (await isStale(path, holder)) {
        await unlinkIfHeldBy(path, holder?.token);
        continue;
      }
      if (Date.now() > deadline) {
        throw new ProviderError(`machine directory ${dir} is busy (locked by process ${holder?.pid ?? 'unknown'})`, true);
      }
      await pause(10 + Math.random() * 20);
    }
  }
  try {
    return await fn();
  } finally {
    await unlinkIfHeldBy(path, me.token).catch(() => undefined);
  }
}
