// What a machine agent reads of state (its `view`): its model, the units on its machine, their
// applications and relations, and their leadership. Read in as few round trips as the items'
// dependencies allow, each one BatchGetItem of items of several kinds: an agent reads its view
// after every hint, and with DynamoDB Local each request costs the controller and the database
// more CPU than the items it carries (bench/RESULTS.md, "Agents").
//   1. the model and the machine's principal units;
//   2. their subordinates, the principals' applications and those applications' leadership;
//   3. only when a subordinate's application is not among those: its application and leadership;
//   4. the applications' relations, if they have any.
import type { Application, Machine, Model, Relation, Unit } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import { getEach } from '../engine/reads.js';
import type { Store } from '../engine/store.js';
import { leadershipFrom, leadershipRefs } from './leadership.js';
import type { LeadershipView } from '../../domain/leadership.js';

export interface MachineView {
  model?: Model;
  units: Unit[];
  applications: Application[];
  relations: Relation[];
  leadership: LeadershipView[];
}

const present = <T>(items: (T | undefined)[]): T[] => items.filter((x): x is T => x !== undefined);
const unique = <T>(items: T[]): T[] => [...new Set(items)];

/** `machine` is the caller's, read by the request already (functions/api/agent-identity.ts). */
export async function readMachineView(store: Store, machine: Machine): Promise<MachineView> {
  const [model, ...found] = await getEach<unknown>(store, [refs.model(), ...machine.principals.map(refs.unit)]);
  const principals = present(found as (Unit | undefined)[]);
  const subordinateNames = unique(principals.flatMap((u) => u.subordinates));
  const leading = unique(principals.map((u) => u.application));
  const second = await getEach<unknown>(store, [
    ...subordinateNames.map(refs.unit),
    ...leading.map(refs.application),
    ...leadershipRefs(leading),
  ]);
  const subordinates = present(second.slice(0, subordinateNames.length) as (Unit | undefined)[]);
  const byName = new Map<string, Application | undefined>();
  const leadershipOf = new Map<string, LeadershipView>();
  const learn = (names: string[], items: unknown[]) => {
    names.forEach((name, i) => byName.set(name, items[i] as Application | undefined));
    for (const view of leadershipFrom(names, items.slice(names.length), store.now())) leadershipOf.set(view.application, view);
  };
  learn(leading, second.slice(subordinateNames.length));
  const units = [...principals, ...subordinates];
  const names = unique(units.map((u) => u.application));
  const missing = names.filter((name) => !byName.has(name));
  if (missing.length > 0) learn(missing, await getEach<unknown>(store, [...missing.map(refs.application), ...leadershipRefs(missing)]));
  const applications = present(names.map((name) => byName.get(name)));
  const relationKeys = unique(applications.flatMap((a) => a.relations));
  const relations = relationKeys.length ? present(await getEach<Relation>(store, relationKeys.map(refs.relation))) : [];
  return {
    ...(model ? { model: model as Model } : {}),
    units,
    applications,
    relations,
    leadership: applications.map((a) => leadershipOf.get(a.name)!),
  };
}
