// An application's data bag in a relation (Juju ≥ 2.7, `relation-set --app`): one per application
// per relation, written only by the application's leader, committed with its hook. Versioned like
// unit settings, so the other side's agents run -changed (with JUJU_REMOTE_APP and no remote
// unit) once per change.
import type { Relation } from '../entities.js';
import { DroverError } from '../errors.js';
import type { Lease } from '../leadership.js';
import { refs, type Change, type Plan } from '../plan.js';
import { applySettingsChanges, sameSettings } from './relation-settings.js';
import { checkSettingsSize } from '../item-size.js';

export interface AppSettings {
  relationId: number;
  /** The relation's key: the notifier tells the units in its scope. */
  relation: string;
  application: string;
  settings: Record<string, string>;
  version: number;
}

/** Juju's words when a unit other than the leader writes its application's bag (jujuc/relation-set.go). */
export const NOT_LEADER_WRITE = 'cannot write relation settings';

export const isPeerRelation = (relation: Pick<Relation, 'endpoints'>) => relation.endpoints.every((e) => e.role === 'peer');

/**
 * Who may read an application's bag: any unit of the relation may read the other side's; its
 * own application's only the leader, except in a peer relation, where every unit may.
 */
export function mayReadAppSettings(relation: Relation, reader: { unit: string; application: string }, application: string, lease?: Lease) {
  if (!relation.endpoints.some((e) => e.application === reader.application)) return false;
  if (!relation.endpoints.some((e) => e.application === application)) return false;
  if (application !== reader.application || isPeerRelation(relation)) return true;
  return lease?.holder === reader.unit;
}

export function planWriteAppSettings(
  facts: { relation: Relation | undefined; lease: Lease | undefined; current: AppSettings | undefined },
  target: { relationId: number; application: string; unit: string },
  changes: Record<string, string>,
): Plan<{ version: number }> {
  const { relation, lease, current } = facts;
  if (!relation || relation.life !== 'alive' || !relation.endpoints.some((e) => e.application === target.application)) {
    throw new DroverError('not-found', `relation ${target.relationId} not found`);
  }
  if (lease?.holder !== target.unit) throw new DroverError('unauthorized', NOT_LEADER_WRITE);
  const checks: Change[] = [
    { op: 'check', ref: refs.lease(target.application), expect: { equals: { holder: target.unit } } },
    { op: 'check', ref: refs.relation(relation.key), expect: { life: 'alive' } },
  ];
  const settings = applySettingsChanges(current?.settings ?? {}, changes);
  if (current ? sameSettings(settings, current.settings) : Object.keys(settings).length === 0) {
    return { changes: checks, result: { version: current?.version ?? 0 } };
  }
  checkSettingsSize(settings, `the settings of application "${target.application}" in relation ${target.relationId}`);
  const ref = refs.appSettings(target.relationId, target.application);
  if (!current) {
    const value: AppSettings = {
      relationId: target.relationId,
      relation: relation.key,
      application: target.application,
      settings,
      version: 1,
    };
    return { changes: [{ op: 'create', ref, value: { ...value } }, ...checks], result: { version: 1 } };
  }
  const version = current.version + 1;
  return {
    changes: [{ op: 'update', ref, set: { settings, version }, expect: { equals: { version: current.version } } }, ...checks],
    result: { version },
  };
}
