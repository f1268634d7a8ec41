// What a machine agent reads of state (its `view`): its model, the units on its machine, their
// applications and relations, and their leadership. Read in as few round trips as the items'
// dependencies allow, each one BatchGetItem of items of several kinds: an agent reads its view
// after every hint, and with DynamoDB Local each request costs the controller and the database
// more CPU than the items it carries (bench/RESULTS.md, "Agents" and "Scale"). A unit's name
// starts with its application's (`wordpress/3`), so a unit's application and leadership can be
// read with the unit itself:
//   1. the model, the machine's principal units, their applications and leadership;
//   2. their subordinates (if any), with their applications and leadership;
//   3. only when a unit's application is not the one its name says (never, as units are named):
//      that application and its leadership;
//   4. the applications' relations, if they have any.
// A plain unit's view is the caller's machine (read by the request) and one BatchGetItem; when the
// agent names the units and relations its last view showed (viewRefs), those are read with the
// machine, and a view whose machine still holds them reads nothing more.
import type { Application, Machine, Model, Relation, Unit } from '../../domain/entities.js';
import { refs, type EntityRef } from '../../domain/plan.js';
import { getEach } from '../engine/reads.js';
import type { Store } from '../engine/store.js';
import { leadershipFrom, leadershipRefs } from './leadership.js';
import type { LeadershipView } from '../../domain/leadership.js';
import { applicationOfUnit } from '../../domain/names.js';
import type { StorageAttachment, StorageInstance, UnitStorageView } from '../../domain/storage.js';

export type ViewUnit = Unit & { storage: UnitStorageView[] };

export interface MachineView {
  model?: Model;
  units: ViewUnit[];
  applications: Application[];
  relations: Relation[];
  leadership: LeadershipView[];
}

const present = <T>(items: (T | undefined)[]): T[] => items.filter((x): x is T => x !== undefined);
const unique = <T>(items: T[]): T[] => [...new Set(items)];

/** Items read before the view was asked for; `allOf` gives them all, or undefined unless every one was read. */
export interface ReadAhead {
  allOf(refs: EntityRef[]): unknown[] | undefined;
}

/** What a view reads for these units and relations (as the agent's last view showed them), for reading ahead. */
export function viewRefs(units: string[], relations: string[]): EntityRef[] {
  const apps = unique(units.map(applicationOfUnit)).filter((name) => name);
  return [refs.model(), ...units.map(refs.unit), ...apps.map(refs.application), ...leadershipRefs(apps), ...relations.map(refs.relation)];
}

/**
 * `machine` is the caller's, read by the request already (functions/api/agent-identity.ts), and
 * `ahead` what was read with it.
 */
export async function readMachineView(store: Store, machine: Machine, ahead?: ReadAhead): Promise<MachineView> {
  const read = async (wanted: EntityRef[]) => ahead?.allOf(wanted) ?? (await getEach<unknown>(store, wanted));
  const byName = new Map<string, Application | undefined>();
  const leadershipOf = new Map<string, LeadershipView>();
  const learn = (names: string[], items: unknown[]) => {
    names.forEach((name, i) => byName.set(name, items[i] as Application | undefined));
    for (const view of leadershipFrom(names, items.slice(names.length), store.now())) leadershipOf.set(view.application, view);
  };
  /** `unitNames` with, for those whose application is not known yet, that application and its leadership. */
  const readUnits = async (unitNames: string[], ...others: EntityRef[]) => {
    const apps = unique(unitNames.map(applicationOfUnit)).filter((name) => name && !byName.has(name));
    const items = await read([...others, ...unitNames.map(refs.unit), ...apps.map(refs.application), ...leadershipRefs(apps)]);
    learn(apps, items.slice(others.length + unitNames.length));
    return {
      others: items.slice(0, others.length),
      units: present(items.slice(others.length, others.length + unitNames.length) as (Unit | undefined)[]),
    };
  };
  const first = await readUnits(machine.principals, refs.model());
  const model = first.others[0] as Model | undefined;
  const principals = first.units;
  const subordinateNames = unique(principals.flatMap((u) => u.subordinates));
  const subordinates = subordinateNames.length > 0 ? (await readUnits(subordinateNames)).units : [];
  const units = [...principals, ...subordinates];
  const names = unique(units.map((u) => u.application));
  const missing = names.filter((name) => !byName.has(name));
  if (missing.length > 0) learn(missing, await read([...missing.map(refs.application), ...leadershipRefs(missing)]));
  const applications = present(names.map((name) => byName.get(name)));
  const relationKeys = unique(applications.flatMap((a) => a.relations));
  // The relations and the units' storage are independent: read side by side.
  const [relations, storage] = await Promise.all([
    relationKeys.length ? read(relationKeys.map(refs.relation)).then((items) => present(items as (Relation | undefined)[])) : [],
    readStorageViews(store, units),
  ]);
  return {
    ...(model ? { model } : {}),
    units: units.map((u) => ({ ...u, storage: storage.get(u.name) ?? [] })),
    applications,
    relations,
    leadership: applications.map((a) => leadershipOf.get(a.name)!),
  };
}

/** Each unit's attachments with their instances, in one BatchGetItem for the machine (none without storage). */
async function readStorageViews(store: Store, units: Unit[]): Promise<Map<string, UnitStorageView[]>> {
  const pairs = units.flatMap((u) => (u.storageAttachments ?? []).map((id) => ({ unit: u.name, id })));
  const views = new Map<string, UnitStorageView[]>();
  if (pairs.length === 0) return views;
  const ids = unique(pairs.map((p) => p.id));
  const items = await getEach<unknown>(store, [...pairs.map((p) => refs.storageAttachment(p.id, p.unit)), ...ids.map(refs.storage)]);
  const instances = new Map<string, StorageInstance>();
  items.slice(pairs.length).forEach((item, i) => item && instances.set(ids[i]!, item as StorageInstance));
  pairs.forEach((pair, i) => {
    const attachment = items[i] as StorageAttachment | undefined;
    const instance = instances.get(pair.id);
    if (!attachment || !instance) return;
    const view: UnitStorageView = {
      id: instance.id,
      name: instance.name,
      kind: instance.kind,
      pool: instance.pool,
      size: instance.size,
      life: attachment.life,
      ...(attachment.location !== undefined ? { location: attachment.location } : {}),
      ...(instance.volume
        ? { volume: { volumeId: instance.volume.volumeId, ...(instance.volume.device ? { device: instance.volume.device } : {}) } }
        : {}),
    };
    views.set(pair.unit, [...(views.get(pair.unit) ?? []), view]);
  });
  return views;
}
