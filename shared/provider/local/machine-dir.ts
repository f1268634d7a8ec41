// The on-disk layout of the local provider: one directory per machine,
// `<dataDir>/machines/<machine id>/`, holding
//   instance.json  who runs here: controller, machine, attempt, pid and process start time
//   agent.pid      the agent's pid, for people and scripts
//   restarts.json  how often its agent died soon after starting (restart-backoff.ts)
//   running-hooks/ the hook process groups its agent runs (agent/uniter/hook-groups.ts)
// The agent's credential is in none of them: it gets it on its standard input.
//   agent.log      the agent's stdout and stderr
//   start.lock     held while an instance is started or stopped (machine-lock.ts)
// The directory is the provider's whole memory: a new LocalProvider on the same dataDir (after a
// controller restart) finds the running agents again from these files.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessIdentity } from './process-identity.js';

export const FILES = {
  record: 'instance.json',
  pid: 'agent.pid',
  /** Where controllers before the credential pipe wrote it; removed wherever found. */
  legacyCredential: 'credential',
  log: 'agent.log',
  lock: 'start.lock',
} as const;

export interface LocalInstanceRecord extends ProcessIdentity {
  instanceId: string;
  controllerId: string;
  machineId: string;
  attempt: number;
  series: string;
  startedAt: string;
}

/** Instance ids name controller, machine and attempt, as EC2's ClientToken is derived from them. */
export const localInstanceId = (controllerId: string, machineId: string, attempt: number) =>
  `local-${controllerId}-${machineId}-${attempt}`;

export const machinesDir = (dataDir: string) => join(dataDir, 'machines');

/** Machine ids of containers hold slashes (`0/lxd/1`); escaping keeps one flat directory per machine. */
export const machineDirOf = (dataDir: string, machineId: string) => join(machinesDir(dataDir), encodeURIComponent(machineId));

export function listMachineDirs(dataDir: string): string[] {
  try {
    return readdirSync(machinesDir(dataDir), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(machinesDir(dataDir), e.name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

export function ensureMachineDir(dir: string): void {
  // Owner only: the directory holds the agent's credential.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** The record, or undefined when there is none (never started, stopped, or half-written). */
export function readRecord(dir: string): LocalInstanceRecord | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, FILES.record), 'utf8')) as LocalInstanceRecord;
  } catch {
    return undefined;
  }
}

/** Written to a temporary name and renamed, so a reader never sees half a record. */
export function writeRecord(dir: string, record: LocalInstanceRecord): void {
  const tmp = join(dir, `${FILES.record}.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(record, null, 2), { mode: 0o600 });
  renameSync(tmp, join(dir, FILES.record));
  writeFileSync(join(dir, FILES.pid), `${record.pid}\n`);
}

/** Forgets a dead instance, keeping its log for whoever wants to know why it died. */
export function clearRecord(dir: string): void {
  for (const name of [FILES.record, FILES.pid, FILES.legacyCredential]) rmSync(join(dir, name), { force: true });
}

export function removeMachineDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
