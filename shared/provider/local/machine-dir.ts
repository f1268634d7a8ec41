// The on-disk layout of the local provider: one directory per machine,
// `<dataDir>/machines/<machine id>/` for the `default` model's machines (where they were before
// there were many models) and `<dataDir>/models/<model key>/machines/<machine id>/` for another
// model's (machine ids repeat across models), holding
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
import { DEFAULT_MODEL_KEY } from '../../domain/models.js';
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
  /** The key of the machine's model; absent in records written before there were many models: `default`. */
  model?: string;
  machineId: string;
  attempt: number;
  series: string;
  startedAt: string;
}

/**
 * Instance ids name controller, model, machine and attempt, as EC2's ClientToken is derived from
 * them; a `default` machine's leave the model out, as they did before there were many models.
 */
export const localInstanceId = (controllerId: string, model: string, machineId: string, attempt: number) =>
  model === DEFAULT_MODEL_KEY ? `local-${controllerId}-${machineId}-${attempt}` : `local-${controllerId}-${model}-${machineId}-${attempt}`;

/** The model of the machine a record is about (LocalInstanceRecord.model). */
export const modelOfRecord = (record: LocalInstanceRecord) => record.model ?? DEFAULT_MODEL_KEY;

export const machinesDir = (dataDir: string, model: string = DEFAULT_MODEL_KEY) =>
  model === DEFAULT_MODEL_KEY ? join(dataDir, 'machines') : join(dataDir, 'models', encodeURIComponent(model), 'machines');

/** Machine ids of containers hold slashes (`0/lxd/1`); escaping keeps one flat directory per machine. */
export const machineDirOf = (dataDir: string, machineId: string, model: string = DEFAULT_MODEL_KEY) =>
  join(machinesDir(dataDir, model), encodeURIComponent(machineId));

const subdirectories = (dir: string): string[] => {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(dir, e.name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
};

/** Every machine directory of every model. */
export function listMachineDirs(dataDir: string): string[] {
  return [
    ...subdirectories(machinesDir(dataDir)),
    ...subdirectories(join(dataDir, 'models')).flatMap((model) => subdirectories(join(model, 'machines'))),
  ];
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
