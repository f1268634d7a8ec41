// The environment a hook runs in (charms-in-action, "Execution environment"; reference §4.3).
// Built from scratch rather than from the agent's own environment: the agent holds its API
// credential, which no hook may see.
import type { Hook } from './hooks.js';
import { hookName, isRelationHook } from './hooks.js';

export interface HookEnvInput {
  /** PATH, HOME, locale and the like, passed through from the agent. */
  base: Record<string, string | undefined>;
  toolsDir: string;
  charmDir: string;
  unitName: string;
  contextId: string;
  socketPath: string;
  apiAddresses: string[];
  modelName: string;
  machineId: string;
  principal?: string;
  /** What runs: a hook, or a task (an action or juju-exec). */
  hook?: Hook;
  action?: { name: string; id: string };
  /** The relation's remote application (relation hooks). */
  remoteApplication?: string;
}

/** The Juju version drover's hook contract matches (docs/juju-compat.md). */
export const JUJU_VERSION = '3.6.12';

const PASSED_THROUGH = ['HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'USER', 'LOGNAME', 'SHELL', 'TERM'];
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function hookEnvironment(input: HookEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = input.base[name];
    if (value !== undefined) env[name] = value;
  }
  const { hook, action } = input;
  Object.assign(env, {
    // "$PATH is prefixed by a directory containing command line tools"
    PATH: `${input.toolsDir}:${input.base.PATH ?? DEFAULT_PATH}`,
    CHARM_DIR: input.charmDir,
    JUJU_CHARM_DIR: input.charmDir,
    JUJU_UNIT_NAME: input.unitName,
    JUJU_CONTEXT_ID: input.contextId,
    JUJU_AGENT_SOCKET: input.socketPath,
    JUJU_AGENT_SOCKET_ADDRESS: input.socketPath,
    JUJU_AGENT_SOCKET_NETWORK: 'unix',
    JUJU_API_ADDRESSES: input.apiAddresses.join(' '),
    JUJU_ENV_NAME: input.modelName,
    JUJU_MODEL_NAME: input.modelName,
    JUJU_MACHINE_ID: input.machineId,
    JUJU_PRINCIPAL_UNIT: input.principal ?? '',
    // A Juju 3.6 version: the ops framework enables app data, dispatch and the rest by it.
    JUJU_VERSION: JUJU_VERSION,
  });
  // Juju's context (worker/uniter/runner/context/context.go, HookVars) names the hook for hooks
  // only; an action gets its name, its id (JUJU_ACTION_UUID is the task id in Juju 3) and tag.
  if (hook) env.JUJU_HOOK_NAME = hookName(hook);
  if (action) {
    env.JUJU_ACTION_NAME = action.name;
    env.JUJU_ACTION_UUID = action.id;
    env.JUJU_ACTION_TAG = `action-${action.id}`;
  }
  if (hook && isRelationHook(hook)) {
    env.JUJU_RELATION = hook.endpoint;
    env.JUJU_RELATION_ID = `${hook.endpoint}:${hook.relationId}`;
    env.JUJU_REMOTE_UNIT = hook.remoteUnit ?? '';
    env.JUJU_REMOTE_APP = input.remoteApplication ?? '';
    if (hook.kind === 'relation-departed') env.JUJU_DEPARTING_UNIT = hook.departingUnit ?? hook.remoteUnit ?? '';
  }
  return env;
}

/** `<unit>-<hook>-<random>`, as Juju's context ids (reference §4.3); `<unit>-<action>-<random>` for a task. */
export function newContextId(unitName: string, hook: Hook | string): string {
  const random = BigInt.asUintN(63, BigInt(Math.floor(Math.random() * 2 ** 53)) * 1024n + BigInt(Math.floor(Math.random() * 1024)));
  return `${unitName}-${typeof hook === 'string' ? hook : hookName(hook)}-${random}`;
}
