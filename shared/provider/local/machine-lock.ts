// One start or stop at a time per machine directory. Two reconciles of the same machine (a stream
// batch delivered twice, the periodic resync racing the stream) must find one agent, not spawn
// one each: EC2 gets this from RunInstances' ClientToken, the local provider from this lock.
//
// The lock is a file (lock-file.ts), so it holds between LocalProviders in one process and between
// processes on one dataDir; a lock left by a process that died is taken over, not waited on.
import { join } from 'node:path';
import { ProviderError } from '../provider.js';
import { ensureMachineDir, FILES } from './machine-dir.js';
import { lockState, newLockHolder, readLockHolder, tryCreateLock, unlinkLockIfHeldBy } from './lock-file.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function withMachineLock<T>(dir: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const path = join(dir, FILES.lock);
  const me = newLockHolder();
  const deadline = Date.now() + timeoutMs;
  // The directory is made again before each try: a stop that held the lock removed the whole of it.
  const tryLock = () => {
    ensureMachineDir(dir);
    return tryCreateLock(path, me);
  };
  while (!(await tryLock())) {
    const holder = await readLockHolder(path);
    const state = await lockState(path, holder);
    if (state === 'stale') await unlinkLockIfHeldBy(path, holder?.token);
    if (state !== 'held') continue;
    if (Date.now() > deadline) {
      throw new ProviderError(`machine directory ${dir} is busy (locked by process ${holder?.pid ?? 'unknown'})`, true);
    }
    await pause(10 + Math.random() * 20);
  }
  try {
    return await fn();
  } finally {
    await unlinkLockIfHeldBy(path, me.token).catch(() => undefined);
  }
}
