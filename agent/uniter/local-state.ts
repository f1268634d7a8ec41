// What a unit agent remembers between runs, in `<unit dir>/state.json`: which hooks have run,
// the remote units it has seen in each relation and the settings versions it ran -changed for,
// and the hook in flight. Written atomically (temporary file, fsync, rename), so a crash leaves
// the old state or the new one, never half of either.
//
// charms-in-action.txt: "if the unit agent process is killed for any reason while running a hook,
// then when it recovers it will treat that hook as having failed". The in-flight hook is written
// before the hook starts, and cleared only once its outcome is recorded.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { SecretHooksDone } from '#shared/domain/secret-hooks.js';
import type { Hook } from './hooks.js';
import { isRelationHook, isSecretHook, isStorageHook } from './hooks.js';

export interface LocalRelation {
  id: number;
  endpoint: string;
  /**
   * The remote units this unit has run -joined for and not yet -departed: "known related units".
   * The value is the settings version its last -changed ran for; null until the -changed that
   * "always runs once immediately following the relation-joined hook".
   */
  members: Record<string, number | null>;
  /** The version of the other side's application bag its last application -changed ran for. */
  appVersion?: number;
  /** False from entering the scope until relation-created has run (absent: it has, or predates it). */
  created?: boolean;
  /** -broken has run: all that is left is leaving the scope. */
  broken?: boolean;
  /** A peer relation, which is never broken (agent/uniter/decide.ts, relationStep). */
  peer?: boolean;
}

export interface LocalState {
  installed: boolean;
  /** The application configVersion the last config-changed ran for; absent before the first. */
  configVersion?: number;
  started: boolean;
  stopped: boolean;
  /** The remove hook (Juju 3's last hook, after stop) has run. */
  removed?: boolean;
  /**
   * The charm URL whose contents the charm directory holds. Written only once the directory has
   * been replaced, so an agent killed mid-upgrade replaces it again, and one restarted after does not.
   */
  charmUrl?: string;
  /**
   * The application's charmModifiedVersion its last install or upgrade-charm ran with: a resource
   * attached since (a higher version) owes upgrade-charm, as in Juju. Absent: 0.
   */
  charmModifiedVersion?: number;
  /** The directory was replaced by an unforced upgrade: upgrade-charm is owed. */
  upgradeHookPending?: boolean;
  /** upgrade-charm ran: the config-changed that "likewise" follows it is owed. */
  configChangePending?: boolean;
  /** leader-elected ran, and the unit has not been deposed since: the leader needs no leader-settings-changed. */
  leader?: boolean;
  /** The version of the leader settings its last leader-settings-changed (or leader-elected) ran for. */
  leaderSettingsVersion?: number;
  /** True once a hook called status-set: then start does not reset the workload status to unknown. */
  workloadStatusSet: boolean;
  /** Relations whose scope this unit has entered, by relation key. */
  relations: Record<string, LocalRelation>;
  /** The hook running now; on start-up, a hook that never finished. */
  inFlight?: Hook;
  /** The task (action, juju-exec) running now; on start-up, one that never finished. */
  actionInFlight?: string;
  /** The failed hook awaiting `resolved`. */
  error?: Hook;
  /** The secret hooks it has run (shared/domain/secret-hooks.ts); absent: none yet. */
  secretHooks?: SecretHooksDone;
  /**
   * Its storage attachments, by storage id, from the storage-attached hook on (./decide-storage.ts):
   * `attached` once it ran; `detaching` once storage-detaching ran, the controller not yet told;
   * `detached` once told, until the attachment leaves the view. Absent: none attached yet.
   */
  storage?: Record<string, StorageProgress>;
  /**
   * Not saved: set when the agent (re)starts, so config-changed runs "when recovering from
   * transient unit agent errors".
   */
  recovering?: boolean;
}

export type StorageProgress = 'attached' | 'detaching' | 'detached';

export const STATE_FILE = 'state.json';

export const freshState = (): LocalState => ({
  installed: false,
  started: false,
  stopped: false,
  workloadStatusSet: false,
  relations: {},
});

/** The state after `hook` succeeded (or was resolved with --no-retry). */
export function afterHook(state: LocalState, hook: Hook): LocalState {
  const next: LocalState = { ...state, relations: { ...state.relations } };
  if (isSecretHook(hook)) return { ...next, secretHooks: afterSecretHook(state.secretHooks ?? noSecretHooks(), hook) };
  if (isStorageHook(hook)) return withStorage(next, hook.storage, hook.kind === 'storage-attached' ? 'attached' : 'detaching');
  if (!isRelationHook(hook)) {
    switch (hook.kind) {
      case 'install':
        next.installed = true;
        if (hook.charmModifiedVersion !== undefined) next.charmModifiedVersion = hook.charmModifiedVersion;
        break;
      case 'config-changed':
        next.configVersion = hook.configVersion ?? state.configVersion ?? 0;
        next.recovering = false;
        next.configChangePending = false;
        break;
      case 'upgrade-charm':
        next.upgradeHookPending = false;
        if (hook.charmModifiedVersion !== undefined) next.charmModifiedVersion = hook.charmModifiedVersion;
        next.configChangePending = true;
        break;
      case 'start':
        next.started = true;
        break;
      case 'stop':
        next.stopped = true;
        break;
      case 'remove':
        next.removed = true;
        break;
      case 'leader-elected':
        next.leader = true;
        next.leaderSettingsVersion = hook.leaderSettingsVersion ?? state.leaderSettingsVersion ?? 0;
        break;
      case 'leader-settings-changed':
        next.leaderSettingsVersion = hook.leaderSettingsVersion ?? state.leaderSettingsVersion ?? 0;
        break;
    }
    return next;
  }
  const prior = state.relations[hook.relation] ?? { id: hook.relationId, endpoint: hook.endpoint, members: {} };
  const relation: LocalRelation = { ...prior, members: { ...prior.members } };
  const remote = hook.remoteUnit;
  switch (hook.kind) {
    case 'relation-created':
      delete relation.created;
      break;
    case 'relation-joined':
      if (remote !== undefined) relation.members[remote] = null;
      break;
    case 'relation-changed':
      if (remote !== undefined && Object.hasOwn(relation.members, remote)) relation.members[remote] = hook.version ?? 0;
      if (remote === undefined && hook.appVersion !== undefined) relation.appVersion = hook.appVersion;
      break;
    case 'relation-departed':
      if (remote !== undefined) delete relation.members[remote];
      break;
    case 'relation-broken':
      relation.broken = true;
      break;
  }
  next.relations[hook.relation] = relation;
  return next;
}

/** The state with one storage attachment's progress set, or forgotten (undefined). */
export function withStorage(state: LocalState, id: string, progress: StorageProgress | undefined): LocalState {
  const { [id]: _old, ...rest } = state.storage ?? {};
  return { ...state, storage: progress === undefined ? rest : { ...rest, [id]: progress } };
}

export const noSecretHooks = (): SecretHooksDone => ({ changed: {}, expired: [], removed: [], rotated: {} });

function afterSecretHook(done: SecretHooksDone, hook: Extract<Hook, { kind: `secret-${string}` }>): SecretHooksDone {
  const revision = `${hook.uri}/${hook.revision ?? 0}`;
  switch (hook.kind) {
    case 'secret-changed':
      return { ...done, changed: { ...done.changed, [hook.uri]: hook.revision ?? 0 } };
    case 'secret-expired':
      return { ...done, expired: [...done.expired, revision] };
    case 'secret-remove':
      return { ...done, removed: [...done.removed, revision] };
    case 'secret-rotate':
      return { ...done, rotated: { ...done.rotated, [hook.uri]: hook.rotateTime ?? '' } };
  }
}

export function loadState(unitDir: string): LocalState {
  let text: string;
  try {
    text = readFileSync(join(unitDir, STATE_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return freshState();
    throw e;
  }
  const saved = JSON.parse(text) as Partial<LocalState>;
  return { ...freshState(), ...saved, relations: saved.relations ?? {} };
}

export function saveState(unitDir: string, state: LocalState): void {
  const { recovering: _ephemeral, ...saved } = state;
  const path = join(unitDir, STATE_FILE);
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(saved, null, 2));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
