// The machine agent's settings, from the environment its provider gave it: the local provider
// (shared/provider/local/local-provider.ts) or EC2 user data (shared/provider/ec2/user-data.ts).
import { systemClock } from './clock.js';
import { readFileSync, readSync } from 'node:fs';
import { DEFAULT_MODEL_KEY } from '#shared/domain/models.js';
import { join } from 'node:path';
import { errorMessage } from '#shared/domain/errors.js';
import { SQS_ACCESS_KEY_ENV } from '#shared/messaging/sqs-client.js';
import { hookSandboxFromEnv, type HookSandbox } from '#shared/provider/local/hook-sandbox.js';
import { authorizedKeysFileFrom } from './machine/authorized-keys.js';
import { EC2_STORAGE_DIR, type MachineStorageConfig } from './storage/machine-storage.js';

export interface AgentConfig {
  controllerId: string;
  /**
   * The key of the model the machine belongs to (DROVER_MODEL): machine ids repeat across models,
   * so the agent names both to the API and in its queue's name. `default` when unset, the model of
   * every agent started before there were many models.
   */
  model: string;
  machineId: string;
  apiUrl: string;
  /**
   * The machine's key, which the agent signs its requests with (the local provider gives one);
   * absent on EC2, where the agent signs with its instance role.
   */
  credential?: string;
  /** Absent: no hints, only the periodic resync. */
  queueUrl?: string;
  /** The local SQS server; absent on AWS. */
  sqsEndpoint?: string;
  /** The local SQS server's key to this machine's queue (DROVER_SQS_ACCESS_KEY: embedded/sqs-access.ts). */
  sqsAccessKey?: string;
  region: string;
  machineDir: string;
  /** Where the model's SSH keys are installed (agent/machine/authorized-keys.ts). */
  authorizedKeysFile: string;
  /** Where units' storage goes on the machine (agent/storage/machine-storage.ts). */
  storage: MachineStorageConfig;
  /**
   * The sandbox every hook runs in (DROVER_HOOK_SANDBOX, set by the local provider where bwrap
   * works: shared/provider/local/hook-sandbox.ts); absent on EC2, where the instance is the sandbox.
   */
  hookSandbox?: HookSandbox;
  /** How often everything is read again, to cover lost hints (jittered ±20%). */
  resyncMs: number;
  /** The longest this agent stays silent on the API (jittered up to +20%), so status does not show it lost. */
  heartbeatMs: number;
}

/**
 * Twenty minutes (16 to 24, jittered): the backstop for a lost hint, and an idle agent's only
 * regular API request. Its cost per idle agent is computed from the template in
 * docs/deploy-to-aws.md ("Per idle agent"): one request every 20 minutes keeps it within $0.06 a
 * month beside SQS's long polls.
 */
export const DEFAULT_RESYNC_SECONDS = 1200;

/**
 * The longest this agent stays silent on the API, counted from its last request of any kind:
 * 1.2 × the resync, so the resync (at most 1.2 × its interval) always comes first and an idle
 * agent sends no heartbeat of its own; the heartbeat rides on the resync. It still fires when
 * resyncs fail or stall. The controller's lost threshold (DEFAULT_AGENT_LOST_AFTER_SECONDS,
 * shared/domain/presence.ts) is set above the longest silence this allows.
 */
export const DEFAULT_HEARTBEAT_SECONDS = DEFAULT_RESYNC_SECONDS * 1.2;

function positiveSeconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const seconds = Number(env[name] ?? fallback);
  if (!(seconds > 0)) throw new ConfigError(`machine agent: ${name} must be a positive number of seconds, not "${env[name]}"`);
  return seconds;
}

export class ConfigError extends Error {}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new ConfigError(`machine agent: environment variable ${name} is not set`);
  return value;
}

/** A credential is 43 characters; anything this long on standard input is not one. */
const MAX_CREDENTIAL_BYTES = 4096;

/** How long the agent waits for its credential on standard input. */
const STDIN_DEADLINE_MS = 30_000;

/**
 * Standard input to its end: the local provider writes the credential to a pipe and closes it.
 * The pipe may be non-blocking (the controller's Node made it so): a read before the controller
 * has written fails with EAGAIN, which means "not yet", so the read waits a moment and tries again
 * (on a loaded host, many agents starting at once, that happens).
 */
export function readCredentialFromStdin(): string {
  const buffer = Buffer.alloc(MAX_CREDENTIAL_BYTES + 1);
  const deadline = systemClock.now() + STDIN_DEADLINE_MS;
  let length = 0;
  while (length <= MAX_CREDENTIAL_BYTES) {
    let n: number;
    try {
      n = readSync(0, buffer, length, buffer.length - length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN' || systemClock.now() > deadline) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      continue;
    }
    if (n === 0) break;
    length += n;
  }
  if (length > MAX_CREDENTIAL_BYTES)
    throw new ConfigError(`machine agent: standard input holds more than ${MAX_CREDENTIAL_BYTES} bytes, not a credential`);
  return buffer.subarray(0, length).toString('utf8').trim();
}

/**
 * Where the machine's key comes from, first found wins:
 * - DROVER_AGENT_CREDENTIAL_STDIN=1: standard input (the local provider). Nothing on disk and
 *   nothing in /proc/<pid>/environ, which every process of the same user (a hook) can read: the
 *   scrub below changes only this process's copy of its environment, never what the kernel shows
 *   there;
 * - DROVER_AGENT_CREDENTIAL_FILE: a file;
 * - DROVER_AGENT_CREDENTIAL: the variable itself.
 * None of them: the agent has no key and signs with its instance role (EC2).
 */
function credentialOf(env: NodeJS.ProcessEnv, readStdin: () => string): string | undefined {
  if (env.DROVER_AGENT_CREDENTIAL_STDIN === '1') {
    const credential = readStdin();
    if (!credential) throw new ConfigError('machine agent: DROVER_AGENT_CREDENTIAL_STDIN=1 but standard input held no key');
    return credential;
  }
  if (env.DROVER_AGENT_CREDENTIAL_FILE) return readFileSync(env.DROVER_AGENT_CREDENTIAL_FILE, 'utf8').trim() || undefined;
  return env.DROVER_AGENT_CREDENTIAL || undefined;
}

function sandboxOf(env: NodeJS.ProcessEnv): HookSandbox | undefined {
  try {
    return hookSandboxFromEnv(env);
  } catch (e) {
    throw new ConfigError(`machine agent: ${errorMessage(e)}`);
  }
}

export function configFromEnv(env: NodeJS.ProcessEnv, readStdin: () => string = readCredentialFromStdin): AgentConfig {
  const machineId = required(env, 'DROVER_MACHINE_ID');
  const credential = credentialOf(env, readStdin);
  const resyncSeconds = positiveSeconds(env, 'DROVER_RESYNC_SECONDS', DEFAULT_RESYNC_SECONDS);
  const heartbeatSeconds = positiveSeconds(env, 'DROVER_HEARTBEAT_SECONDS', DEFAULT_HEARTBEAT_SECONDS);
  const hookSandbox = sandboxOf(env);
  return {
    controllerId: required(env, 'DROVER_CONTROLLER_ID'),
    model: env.DROVER_MODEL || DEFAULT_MODEL_KEY,
    machineId,
    apiUrl: required(env, 'DROVER_API_URL'),
    ...(credential !== undefined ? { credential } : {}),
    ...(env.DROVER_QUEUE_URL ? { queueUrl: env.DROVER_QUEUE_URL } : {}),
    ...(env.DROVER_SQS_ENDPOINT ? { sqsEndpoint: env.DROVER_SQS_ENDPOINT } : {}),
    ...(env[SQS_ACCESS_KEY_ENV] ? { sqsAccessKey: env[SQS_ACCESS_KEY_ENV] } : {}),
    region: env.AWS_REGION ?? 'us-east-1',
    // On EC2 there is no machine directory in the environment: the agent owns /var/lib/drover.
    machineDir: env.DROVER_MACHINE_DIR ?? `/var/lib/drover/machine-${machineId}`,
    authorizedKeysFile: authorizedKeysFileFrom(env),
    // The local provider names the machine's directory; an EC2 instance is the agent's own, and
    // its storage goes where Juju puts it.
    storage: env.DROVER_MACHINE_DIR
      ? { dir: join(env.DROVER_MACHINE_DIR, 'storage'), provider: 'local' }
      : { dir: EC2_STORAGE_DIR, provider: 'ec2' },
    ...(hookSandbox ? { hookSandbox } : {}),
    resyncMs: resyncSeconds * 1000,
    heartbeatMs: heartbeatSeconds * 1000,
  };
}

/** Hooks must never see the agent's credential: it leaves this process's environment at once. */
export function scrubCredential(env: NodeJS.ProcessEnv): void {
  delete env.DROVER_AGENT_CREDENTIAL;
}
