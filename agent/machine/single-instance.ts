// One machine agent per machine directory, and none after the machine is Dead.
// lifecycles.txt: "Once a machine has been set to Dying, the corresponding Machine Agent (MA) is
// responsible for setting it to Dead" — after which it has nothing left to do, ever: a marker
// file makes a restarted agent exit at once instead of acting for a dead machine.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isoNow, systemClock, type Clock } from '../clock.js';
import { isProcessAlive, processStartTime, type ProcessIdentity } from '#shared/provider/local/process-identity.js';

export const DEAD_MARKER = 'machine-dead';
export const LOCK_FILE = 'machine-agent.lock';

export const isMarkedDead = (machineDir: string) => existsSync(join(machineDir, DEAD_MARKER));

export function markDead(machineDir: string, clock: Clock = systemClock): void {
  writeFileSync(join(machineDir, DEAD_MARKER), `${isoNow(clock)}\n`);
}

/** Takes the machine directory for this process; throws if a live agent holds it. */
export function takeAgentLock(machineDir: string): () => void {
  const path = join(machineDir, LOCK_FILE);
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as ProcessIdentity;
    if (holder.pid !== process.pid && isProcessAlive(holder)) {
      throw new Error(`another machine agent (process ${holder.pid}) runs in ${machineDir}`);
    }
  } catch (e) {
    if (e instanceof Error && e.message.startsWith('another machine agent')) throw e;
  }
  const startTime = processStartTime(process.pid);
  writeFileSync(path, JSON.stringify({ pid: process.pid, ...(startTime ? { startTime } : {}) }));
  return () => rmSync(path, { force: true });
}
