// What `show-unit` shows of a unit's relations (Juju 3.6's UnitsInfo, the `relation-info` of
// https://github.com/juju/juju/blob/3.6/cmd/juju/application/showunit.go): for each relation of
// its application, the related application's data bag, the unit's own settings, and the
// settings of the related units in scope.
import { notFound } from '../../domain/errors.js';
import { applicationOfUnit } from '../../domain/names.js';
import type { Relation, RelationSettings, Unit } from '../../domain/entities.js';
import { getApplication, getEach, getUnit } from '../engine/reads.js';
import { scopePages } from '../engine/scope-listing.js';
import type { Store } from '../engine/store.js';
import type { UnitDetails, UnitRelationInfo } from '../../api/unit-details.js';
import { getAppSettings } from './app-settings.js';
import { appSettingsLocation, otherSide } from './cross-model-reads.js';
import { unitAsSeenHere } from '../../domain/cross-model.js';

/** A global relation's related units beyond this many are not listed: show-unit is for a person, or a test. */
const MAX_RELATED_UNITS = 1000;

/** The related application's units in the relation's scope; a container relation's only those beside this unit. */
async function relatedMembers(store: Store, relation: Relation, unit: Unit, application: string): Promise<string[]> {
  const names: string[] = [];
  for await (const page of scopePages(store, relation, MAX_RELATED_UNITS)) {
    names.push(...page.map((m) => m.unit).filter((name) => name !== unit.name && applicationOfUnit(name) === application));
    if (names.length >= MAX_RELATED_UNITS) break;
  }
  const beside = (name: string) => name === unit.principal || unit.subordinates.includes(name);
  return (relation.scope === 'container' ? names.filter(beside) : names).slice(0, MAX_RELATED_UNITS);
}

/**
 * The related units in scope and their settings: this model's, or, across models, the other
 * model's record's, under this model's name for them (cross-model-reads.ts).
 */
async function relatedSettings(
  store: Store,
  relation: Relation,
  unit: Unit,
  application: string,
): Promise<[string, RelationSettings | undefined][]> {
  const side = relation.crossModel;
  if (!side) {
    const members = await relatedMembers(store, relation, unit, application);
    const settings = await getEach<RelationSettings>(
      store,
      members.map((name) => ({ kind: 'settings' as const, relationId: relation.id, unit: name })),
    );
    return members.map((name, i) => [name, settings[i]]);
  }
  const other = await otherSide(store, relation);
  if (!other?.relation) return [];
  const members = await relatedMembers(other.store, other.relation, unit, side.application);
  const settings = await getEach<RelationSettings>(
    other.store,
    members.map((name) => ({ kind: 'settings' as const, relationId: other.relation!.id, unit: name })),
  );
  return members.map((name, i) => [unitAsSeenHere(side, name), settings[i]]);
}

async function relationInfo(store: Store, relation: Relation, unit: Unit): Promise<UnitRelationInfo | undefined> {
  const mine = relation.endpoints.find((e) => e.application === unit.application);
  if (!mine) return undefined;
  // A peer relation has one endpoint: its related side is its own application.
  const related = relation.endpoints.find((e) => e !== mine) ?? mine;
  const [members, [own]] = await Promise.all([
    relatedSettings(store, relation, unit, related.application),
    getEach<RelationSettings>(store, [{ kind: 'settings' as const, relationId: relation.id, unit: unit.name }]),
  ]);
  const bag = appSettingsLocation(store, relation, related.application);
  return {
    'relation-id': relation.id,
    endpoint: mine.name,
    'related-endpoint': related.name,
    'application-data': (await getAppSettings(bag.store, bag.relationId, bag.application))?.settings ?? {},
    'local-unit': { 'in-scope': unit.scopes.includes(relation.key), data: own?.settings ?? {} },
    'related-units': Object.fromEntries(members.map(([name, settings]) => [name, { 'in-scope': true, data: settings?.settings ?? {} }])),
  };
}

/** What show-unit shows beyond status: the unit's workload version and its relations, by relation id. */
export async function readUnitDetails(store: Store, name: string): Promise<UnitDetails> {
  const unit = await getUnit(store, name);
  // Juju's words for a unit that does not exist.
  if (!unit) throw notFound(`unit "${name}" not found`);
  return {
    ...(unit.workloadVersion ? { 'workload-version': unit.workloadVersion } : {}),
    'relation-info': await readRelationInfo(store, unit),
  };
}

async function readRelationInfo(store: Store, unit: Unit): Promise<UnitRelationInfo[]> {
  const application = await getApplication(store, unit.application);
  const relations = await getEach<Relation>(
    store,
    (application?.relations ?? []).map((key) => ({ kind: 'relation' as const, key })),
  );
  const infos = await Promise.all(relations.filter((r): r is Relation => r !== undefined).map((r) => relationInfo(store, r, unit)));
  return infos.filter((i): i is UnitRelationInfo => i !== undefined).sort((a, b) => a['relation-id'] - b['relation-id']);
}
