// I/O: the lookups of a hint plan (hint-plan.ts) → the machines whose agents must look again.
//
// Yields machine ids a page at a time (≤ PAGE_SIZE, distinct within a page), so an application
// of 100k units streams through in bounded memory; a machine may recur across pages (two units
// on one machine), which only costs a duplicate hint.
//
// Reads are strongly consistent where they can be; the unit listing goes through the
// byCollection index, which is eventually consistent: a unit created a moment ago may be missed,
// but its own stream record hints its machine.
import type { Relation, Unit } from '../domain/entities.js';
import { refs } from '../domain/plan.js';
import { collections } from '../state/engine/keys.js';
import { getApplication, getMany, listCollection } from '../state/engine/reads.js';
import { scopePages } from '../state/engine/scope-listing.js';
import { unitPages } from '../state/engine/unit-listing.js';
import type { Store } from '../state/engine/store.js';
import type { StreamImages } from '../state/engine/stream-record.js';
import { applicationKey, BatchReads, scopeKey } from './batch-reads.js';
import { planHint, type HintPlan, type Lookup } from './hint-plan.js';

/**
 * Keys listed per page: a page of an application's units or of a scope is a Query of each of its
 * partitions side by side, together well under one Query's 1 MB, and, where the machines must be read, a few BatchGetItems side by side (getEach).
 */
export const PAGE_SIZE = 1000;

const machinesOf = (units: Unit[]) => [...new Set(units.map((u) => u.machine).filter((m): m is string => !!m))];

/**
 * Machines a page at a time, once per batch: the first consumer reads them through `read` and the
 * batch remembers them once read to the end; later ones take them from `reads` (batch-reads.ts).
 */
async function* readOnce(reads: BatchReads, key: string, pageSize: number, read: () => AsyncGenerator<string[]>): AsyncGenerator<string[]> {
  const known = reads.machinesOf(key);
  if (known) {
    for (let i = 0; i < known.length; i += pageSize) yield known.slice(i, i + pageSize);
    return;
  }
  const all = new Set<string>();
  for await (const machines of read()) {
    for (const m of machines) all.add(m);
    yield machines;
  }
  reads.rememberMachines(key, [...all]);
}

/**
 * The machines of every unit of an application, a page at a time. No existence check: a machine
 * cannot be removed while a unit is assigned to it (lifecycles.txt), and a subordinate lives
 * on its principal's machine. The application says where its units are listed (one partition,
 * or its shards, read one after another: the order of machines does not matter here); one that
 * is gone has no units left.
 */
async function* machinesOfApplication(store: Store, name: string, pageSize: number): AsyncGenerator<string[]> {
  const application = await getApplication(store, name);
  if (!application) return;
  for await (const units of unitPages(store, application, pageSize)) {
    const machines = machinesOf(await getMany<Unit>(store, units));
    if (machines.length > 0) yield machines;
  }
}

/**
 * The machines of the units in a relation's scope, a page at a time. A member names its unit's
 * machine (enter-scope writes it; a unit never moves), so a page is one Query per partition of
 * the scope, side by side (shard-pages.ts); only members written before members carried it cost
 * a read of their units.
 */
async function* machinesInScope(store: Store, relation: Relation, pageSize: number): AsyncGenerator<string[]> {
  for await (const members of scopePages(store, relation, pageSize)) {
    const unnamed = members.filter((m) => m.machine === undefined).map((m) => refs.unit(m.unit));
    const named = members.flatMap((m) => (m.machine !== undefined ? [m.machine] : []));
    const machines = [...new Set([...named, ...machinesOf(unnamed.length ? await getMany<Unit>(store, unnamed) : [])])];
    if (machines.length > 0) yield machines;
  }
}

const scopeMachines = (store: Store, relation: Relation, reads: BatchReads, pageSize: number) =>
  readOnce(reads, scopeKey(relation.key), pageSize, () => machinesInScope(store, relation, pageSize));

/**
 * The units that must see a change by `unit` in `relation`. A container-scoped relation only
 * ever joins units on one machine (a principal and its subordinates), so that machine is all;
 * a global one involves every unit in scope.
 */
async function* machinesOfRelationPeers(
  store: Store,
  relation: Relation | undefined,
  unit: Unit | undefined,
  reads: BatchReads,
  pageSize: number,
): AsyncGenerator<string[]> {
  if (unit?.machine) yield [unit.machine];
  if (relation && relation.scope !== 'container') yield* scopeMachines(store, relation, reads, pageSize);
}

async function* resolve(store: Store, lookup: Lookup, reads: BatchReads, pageSize: number): AsyncGenerator<string[]> {
  switch (lookup.kind) {
    case 'machines': {
      const ids = await reads.existingMachines(store, lookup.ids);
      if (ids.length > 0) yield ids;
      return;
    }
    case 'unitsOfApplications':
      for (const application of lookup.applications)
        yield* readOnce(reads, applicationKey(application), pageSize, () => machinesOfApplication(store, application, pageSize));
      return;
    case 'scopeChanged': {
      const [[relation], unit] = await Promise.all([reads.relations(store, [lookup.relation]), reads.unit(store, lookup.unit)]);
      // Relation gone: it is removed only with an empty scope, so only the member is left to tell.
      // An application's bag (hint-plan.ts names the application, not a unit): every container
      // of a container-scoped relation sees it too.
      const applicationBag = !lookup.unit.includes('/');
      if (applicationBag && relation?.scope === 'container') yield* scopeMachines(store, relation, reads, pageSize);
      else yield* machinesOfRelationPeers(store, relation, unit, reads, pageSize);
      return;
    }
    case 'allMachines':
      // Listed from the index (eventually consistent): a machine added a moment ago reads the
      // model config in its first view anyway.
      for (const shard of collections.machineShards(store.model)) {
        let cursor: string | undefined;
        do {
          const page = await listCollection(store, shard, { limit: pageSize, ...(cursor ? { cursor } : {}) });
          const ids = page.items.flatMap((ref) => (ref.kind === 'machine' ? [ref.id] : []));
          if (ids.length > 0) yield ids;
          cursor = page.cursor;
        } while (cursor);
      }
      return;
    case 'unitMachines': {
      const units = await Promise.all(lookup.units.map((name) => reads.unit(store, name)));
      const machines = [...new Set(units.flatMap((u) => (u?.machine ? [u.machine] : [])))];
      if (machines.length > 0) yield machines;
      return;
    }
    case 'settingsChanged': {
      // Settings are keyed by relation id; the writer's scopes name the relations it is in,
      // which is cheaper than searching every relation of the model for the id.
      const unit = await reads.unit(store, lookup.unit);
      if (!unit) return;
      const relations = await reads.relations(store, unit.scopes);
      const relation = relations.find((r) => r?.id === lookup.relationId);
      // Not in scope any more: its departure reached the others through the scope record.
      if (relation) yield* machinesOfRelationPeers(store, relation, unit, reads, pageSize);
      return;
    }
  }
}

/**
 * The machines to hint for a plan, page by page; `reads`: what this batch already read.
 * `pageSize` is PAGE_SIZE but for tests, which page through a few units instead of a thousand.
 */
export async function* machinesFor(store: Store, plan: HintPlan, reads = new BatchReads(), pageSize = PAGE_SIZE): AsyncGenerator<string[]> {
  if (plan.kind !== 'hint') return;
  for (const lookup of plan.lookups) yield* resolve(store, lookup, reads, pageSize);
}

/** One stream record's images → the machines whose agents must look again, page by page. */
export function affectedMachines(store: Store, images: StreamImages, pageSize = PAGE_SIZE): AsyncGenerator<string[]> {
  return machinesFor(store, planHint(images), new BatchReads(), pageSize);
}
