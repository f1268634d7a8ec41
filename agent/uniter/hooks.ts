// The hooks a unit runs (docs/juju-compat.md, "Hooks"): the unit hooks — install,
// config-changed, start, upgrade-charm (after `drover upgrade-charm`, and after a resource changes), update-status (on a timer,
// as Juju 3), stop, remove (Juju 3's last hook), and the leadership hooks — and five hooks per
// charm relation, named `<name>-relation-<event>`; the secret hooks (shared/domain/secret-hooks.ts
// decides which is due); and two per charm storage, `<name>-storage-attached` and
// `<name>-storage-detaching` (./decide-storage.ts decides when).
import type { SecretHook } from '#shared/domain/secret-hooks.js';
import { storageNameOf } from '../storage/unit-storage.js';

export type { SecretHook };
export type UnitHookKind =
  | 'install'
  | 'config-changed'
  | 'start'
  | 'upgrade-charm'
  | 'update-status'
  | 'stop'
  | 'remove'
  | 'leader-elected'
  | 'leader-settings-changed';
export type RelationHookKind = 'relation-created' | 'relation-joined' | 'relation-changed' | 'relation-departed' | 'relation-broken';

export interface UnitHook {
  kind: UnitHookKind;
  /** config-changed: the application's configVersion it runs for. */
  configVersion?: number;
  /** leader-elected, leader-settings-changed: the version of the leader settings it runs for. */
  leaderSettingsVersion?: number;
  /** install, upgrade-charm: the application's charmModifiedVersion (its resources) it runs with. */
  charmModifiedVersion?: number;
}

export interface RelationHook {
  kind: RelationHookKind;
  /** The relation's key, and its id and this unit's endpoint as JUJU_RELATION_ID shows them. */
  relation: string;
  relationId: number;
  endpoint: string;
  /** Every relation hook but -broken is about one remote unit. */
  remoteUnit?: string;
  /** -changed: the version of the remote unit's settings it runs for. */
  version?: number;
  /** -changed for the other side's application bag (no remote unit): the bag's version. */
  appVersion?: number;
  /** -departed: the unit that is leaving (the remote one, or this one when it is Dying). */
  departingUnit?: string;
}

export interface StorageHook {
  kind: 'storage-attached' | 'storage-detaching';
  /** The storage instance's id, `data/0` (JUJU_STORAGE_ID); the hook is named after its storage name. */
  storage: string;
}

export type Hook = UnitHook | RelationHook | SecretHook | StorageHook;

export const isRelationHook = (hook: Hook): hook is RelationHook => hook.kind.startsWith('relation-');
export const isSecretHook = (hook: Hook): hook is SecretHook => hook.kind.startsWith('secret-');
export const isStorageHook = (hook: Hook): hook is StorageHook => hook.kind.startsWith('storage-');

export function hookName(hook: Hook): string {
  if (isStorageHook(hook)) return `${storageNameOf(hook.storage)}-${hook.kind}`;
  return isRelationHook(hook) ? `${hook.endpoint}-${hook.kind}` : hook.kind;
}

/** The agent status message while the hook runs: `running db-relation-joined hook for mysql/0`. */
export function runningMessage(hook: Hook): string {
  const remote = isRelationHook(hook) && hook.remoteUnit !== undefined ? ` for ${hook.remoteUnit}` : '';
  return `running ${hookName(hook)} hook${remote}`;
}

/** Status data of a failed hook, as Juju records it: `{hook, relation-id, remote-unit}`. */
export function failureData(hook: Hook): Record<string, string | number> {
  if (!isRelationHook(hook)) return { hook: hookName(hook) };
  return { hook: hookName(hook), 'relation-id': hook.relationId, ...(hook.remoteUnit ? { 'remote-unit': hook.remoteUnit } : {}) };
}
