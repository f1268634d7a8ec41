// Which DynamoDB Local serves a data directory: its pid and process start time, recorded the
// moment it is spawned. DynamoDB Local stops when its controller dies (its launcher watches its
// standard input, embedded/dynamodb-local.ts); should one still outlive a crash (say, a
// launcher stuck in a long garbage collection), the next start kills it before launching another
// on the same database directory. The start time makes sure only that very process is killed,
// never an unrelated one that reused its pid.
import { readFileSync, rmSync } from 'node:fs';
import { isProcessAlive, processStartTime, type ProcessIdentity } from '#shared/provider/local/process-identity.js';
import { writePrivateJson } from './secrets.js';

export const DYNAMODB_PID_FILE = 'dynamodb.pid.json';

const KILL_WAIT_MS = 10_000;

function readIdentity(path: string): ProcessIdentity | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as ProcessIdentity;
    return Number.isInteger(value.pid) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Synchronous, so nothing can fall between the spawn and the record. */
export function recordDynamoDbPid(path: string, pid: number): void {
  const startTime = processStartTime(pid);
  writePrivateJson(path, { pid, ...(startTime ? { startTime } : {}) });
}

export function forgetDynamoDbPid(path: string): void {
  rmSync(path, { force: true });
}

/** Kills the recorded DynamoDB Local if it still runs; returns its pid if it had to. */
export async function killOrphanedDynamoDb(path: string): Promise<number | undefined> {
  const orphan = readIdentity(path);
  if (!orphan || !isProcessAlive(orphan)) {
    forgetDynamoDbPid(path);
    return undefined;
  }
  try {
    process.kill(orphan.pid, 'SIGKILL');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
  const deadline = Date.now() + KILL_WAIT_MS;
  while (isProcessAlive(orphan)) {
    if (Date.now() > deadline) throw new Error(`DynamoDB Local (pid ${orphan.pid}) left by an earlier controller does not die`);
    await new Promise((r) => setTimeout(r, 50));
  }
  forgetDynamoDbPid(path);
  return orphan.pid;
}
