// The environment a hook runs in, as Juju 3.6's HookContext.HookVars and ubuntuEnv build it
// (https://github.com/juju/juju/blob/3.6/worker/uniter/runner/context/context.go, `HookVars`;
// .../context/env.go, `ubuntuEnv`). JUJU_DISPATCH_PATH is added by hook-process.ts, which knows
// whether it runs a hook or an action. Built from scratch rather than from the agent's own
// environment: the agent holds its API credential, which no hook may see.
import { JUJU_VERSION } from '#shared/domain/juju-version.js';
import type { Hook } from './hooks.js';
import { hookName, isRelationHook, isSecretHook } from './hooks.js';

export { JUJU_VERSION };

/** The model's proxies for charms (Juju's juju-http-proxy and friends); none by default. */
export interface CharmProxySettings {
  http?: string;
  https?: string;
  ftp?: string;
  noProxy?: string;
}

export interface HookEnvInput {
  /** PATH, HOME and the like, passed through from the agent. */
  base: Record<string, string | undefined>;
  toolsDir: string;
  charmDir: string;
  unitName: string;
  contextId: string;
  /** What the hook's tools prove they are its with (agent/hook-tools/tool-server.ts). */
  secret: string;
  /** The unit's tool server, `127.0.0.1:<port>` (agent/hook-tools/tool-server.ts). */
  socketAddress: string;
  apiAddresses: string[];
  modelName: string;
  /** The model's uuid (stored with the model); empty only for a model made before uuids. */
  modelUuid?: string;
  machineId: string;
  /** The machine's availability zone, where the provider reported one. */
  availabilityZone?: string;
  principal?: string;
  /** What runs: a hook, or a task (an action or juju-exec). */
  hook?: Hook;
  action?: { name: string; id: string };
  /** The relation's remote application (relation hooks). */
  remoteApplication?: string;
  /** A storage hook's storage instance: its id, kind and location. */
  storage?: { id: string; kind: string; location?: string };
  proxies?: CharmProxySettings;
}

const PASSED_THROUGH = ['HOME', 'LC_ALL', 'TZ', 'TMPDIR', 'USER', 'LOGNAME', 'SHELL'];
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Juju sets no SLA on a model unless asked (`juju sla`), and then reports `unsupported`; drover
 * has no SLAs.
 */
const SLA = 'unsupported';

/**
 * Juju's legacy proxy variables (proxy.Settings.AsEnvironmentValues): lower and upper case, only
 * for the proxies that are set.
 */
function legacyProxyVars(proxies: CharmProxySettings): Record<string, string> {
  const vars: Record<string, string> = {};
  const add = (name: string, value: string | undefined) => {
    if (!value) return;
    vars[name] = value;
    vars[name.toUpperCase()] = value;
  };
  add('http_proxy', proxies.http);
  add('https_proxy', proxies.https);
  add('ftp_proxy', proxies.ftp);
  add('no_proxy', proxies.noProxy);
  return vars;
}

export function hookEnvironment(input: HookEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = input.base[name];
    if (value !== undefined) env[name] = value;
  }
  const { hook, action } = input;
  const proxies = input.proxies ?? {};
  Object.assign(env, legacyProxyVars(proxies), {
    CHARM_DIR: input.charmDir,
    JUJU_CHARM_DIR: input.charmDir,
    JUJU_CONTEXT_ID: input.contextId,
    // drover's own: Juju's tools run as root beside a root agent; here any local process could
    // otherwise drive the unit's tool server with the context id alone.
    DROVER_HOOK_SECRET: input.secret,
    // TCP, as Juju's jujuc socket is where a unix socket will not do: the tools are bash scripts,
    // and bash reaches TCP (/dev/tcp) but no unix socket.
    JUJU_AGENT_SOCKET_ADDRESS: input.socketAddress,
    JUJU_AGENT_SOCKET_NETWORK: 'tcp',
    // Juju 2's name for the socket, still read by older hook tools and charms.
    JUJU_AGENT_SOCKET: input.socketAddress,
    JUJU_UNIT_NAME: input.unitName,
    JUJU_MODEL_UUID: input.modelUuid ?? '',
    JUJU_MODEL_NAME: input.modelName,
    // Juju 1's name for the model, which old charms still read.
    JUJU_ENV_NAME: input.modelName,
    JUJU_API_ADDRESSES: input.apiAddresses.join(' '),
    JUJU_SLA: SLA,
    JUJU_MACHINE_ID: input.machineId,
    JUJU_PRINCIPAL_UNIT: input.principal ?? '',
    JUJU_AVAILABILITY_ZONE: input.availabilityZone ?? '',
    // A Juju 3.6 version: the ops framework enables app data, dispatch and the rest by it.
    JUJU_VERSION,
    // Set on Kubernetes models only; Juju exports it empty elsewhere.
    CLOUD_API_VERSION: '',
    // Juju exports these even when empty: "better to explicitly export them as empty".
    JUJU_CHARM_HTTP_PROXY: proxies.http ?? '',
    JUJU_CHARM_HTTPS_PROXY: proxies.https ?? '',
    JUJU_CHARM_FTP_PROXY: proxies.ftp ?? '',
    JUJU_CHARM_NO_PROXY: proxies.noProxy ?? '',
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
  // The secret hooks' (Juju's HookVars): the label even when empty, the revision only when there is one.
  if (hook && isSecretHook(hook)) {
    env.JUJU_SECRET_ID = hook.uri;
    env.JUJU_SECRET_LABEL = hook.label ?? '';
    if (hook.revision !== undefined && hook.revision > 0) env.JUJU_SECRET_REVISION = String(hook.revision);
  }
  // Juju's HookVars: the storage hook's instance, once it has a location.
  if (input.storage?.location !== undefined) {
    env.JUJU_STORAGE_ID = input.storage.id;
    env.JUJU_STORAGE_LOCATION = input.storage.location;
    env.JUJU_STORAGE_KIND = input.storage.kind;
  }
  // Juju's ubuntuEnv, last so that it wins over anything passed through.
  Object.assign(env, {
    APT_LISTCHANGES_FRONTEND: 'none',
    DEBIAN_FRONTEND: 'noninteractive',
    LANG: 'C.UTF-8',
    // "$PATH is prefixed by a directory containing command line tools"
    PATH: `${input.toolsDir}:${input.base.PATH ?? DEFAULT_PATH}`,
    TERM: 'tmux-256color',
  });
  return env;
}

/** `<unit>-<hook>-<random>`, as Juju's context ids (https://github.com/juju/juju/blob/3.6/worker/uniter/runner/context/contextfactory.go); `<unit>-<action>-<random>` for a task. */
export function newContextId(unitName: string, hook: Hook | string): string {
  const random = BigInt.asUintN(63, BigInt(Math.floor(Math.random() * 2 ** 53)) * 1024n + BigInt(Math.floor(Math.random() * 1024)));
  return `${unitName}-${typeof hook === 'string' ? hook : hookName(hook)}-${random}`;
}

/** The availability zone in a machine's hardware line (`... availability-zone=us-east-1a`). */
export function availabilityZoneOf(hardware: string | undefined): string | undefined {
  return /(?:^|\s)availability-zone=(\S+)/.exec(hardware ?? '')?.[1];
}
