// The units a unit's agent observes in a relation, with the versions of their settings: a unit
// agent runs -joined for a member it has not seen, -changed when a member's version moved past the
// one it last ran -changed for, and -departed for one that is gone (charms-in-action.txt,
// "Relation hooks"). Read a page at a time, so a relation of 100k units never makes one large request.
import type { Relation, RelationSettings, ScopeMember, Unit } from '../../domain/entities.js';
import { containerCandidates, counterpartApplications, isCounterpart } from '../../domain/relation-counterparts.js';
import type { AppSettings } from '../../domain/plans/app-settings.js';
import { refs, scopeMemberRefs } from '../../domain/plan.js';
import { getEach, getItem } from '../engine/reads.js';
import { listScope } from '../engine/scope-listing.js';
import type { Store } from '../engine/store.js';
import { unitAsSeenHere } from '../../domain/cross-model.js';
import { otherSide } from './cross-model-reads.js';

export interface RelationMember {
  unit: string;
  /** The version of its settings in the relation (0: none written yet). */
  version: number;
}

export interface RelationUnitsPage {
  members: RelationMember[];
  /** Pass back for the next page; absent on the last one. */
  cursor?: string;
  /** The version of the other side's application bag (a peer relation: its own application's); 0: never written. */
  appVersion: number;
}

export const MAX_RELATION_UNITS_PAGE = 100;

async function withVersions(store: Store, relation: Relation, names: string[]): Promise<RelationMember[]> {
  const settings = await getEach<RelationSettings>(
    store,
    names.map((n) => refs.settings(relation.id, n)),
  );
  return names.map((unit, i) => ({ unit, version: settings[i]?.version ?? 0 }));
}

export async function readRelationUnits(
  store: Store,
  unit: Unit,
  relation: Relation,
  options: { cursor?: string; limit?: number } = {},
): Promise<RelationUnitsPage> {
  if (relation.crossModel) return readOtherModelUnits(store, relation, options);
  const [page, remoteApp] = await Promise.all([
    readMembers(store, unit, relation, options),
    getItem<AppSettings>(store, refs.appSettings(relation.id, counterpartApplications(relation, unit.application)[0] ?? '')),
  ]);
  return { ...page, appVersion: remoteApp?.version ?? 0 };
}

/**
 * A relation across models: every unit of the other side is in the other model's scope, named
 * here by the alias (`dbalias/0`); a record removed over there has no members left.
 */
async function readOtherModelUnits(
  store: Store,
  relation: Relation,
  options: { cursor?: string; limit?: number },
): Promise<RelationUnitsPage> {
  const other = await otherSide(store, relation);
  if (!other?.relation) return { members: [], appVersion: 0 };
  const side = relation.crossModel!;
  const limit = Math.min(options.limit ?? MAX_RELATION_UNITS_PAGE, MAX_RELATION_UNITS_PAGE);
  const [page, bag] = await Promise.all([
    listScope(other.store, other.relation, { limit, ...(options.cursor ? { cursor: options.cursor } : {}) }),
    getItem<AppSettings>(other.store, refs.appSettings(other.relation.id, side.application)),
  ]);
  const names = page.items.filter((m) => !m.departing).map((m) => m.unit);
  const versions = await withVersions(other.store, other.relation, names);
  const members = versions.map((m) => ({ unit: unitAsSeenHere(side, m.unit), version: m.version }));
  return { members, appVersion: bag?.version ?? 0, ...(page.cursor ? { cursor: page.cursor } : {}) };
}

async function readMembers(
  store: Store,
  unit: Unit,
  relation: Relation,
  options: { cursor?: string; limit?: number },
): Promise<Omit<RelationUnitsPage, 'appVersion'>> {
  if (relation.scope === 'container') {
    const candidates = containerCandidates(relation, unit);
    // Each candidate read wherever the scope's growth may have left it (shared/domain/shards.ts).
    const keys = candidates.map((n) => scopeMemberRefs(relation, n));
    const read = await getEach<ScopeMember>(store, keys.flat());
    const members = keys.map((_, i) => {
      const from = keys.slice(0, i).reduce((n, k) => n + k.length, 0);
      return read.slice(from, from + keys[i]!.length).find((m) => m !== undefined);
    });
    const present = candidates.filter((_, i) => members[i] !== undefined && !members[i]?.departing);
    return { members: await withVersions(store, relation, present) };
  }
  const limit = Math.min(options.limit ?? MAX_RELATION_UNITS_PAGE, MAX_RELATION_UNITS_PAGE);
  const page = await listScope(store, relation, { limit, ...(options.cursor ? { cursor: options.cursor } : {}) });
  // "Set once the unit is Dying: peers treat it as departed though it is still in scope."
  const names = page.items.filter((m) => !m.departing && isCounterpart(relation, unit, m.unit)).map((m) => m.unit);
  const members = await withVersions(store, relation, names);
  return page.cursor ? { members, cursor: page.cursor } : { members };
}
