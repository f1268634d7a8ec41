// The notifier's fan-out, held to a brute-force oracle: whatever records a batch holds and in
// whatever order, the reads a batch shares (BatchReads) name exactly the machines a record's
// change concerns, as if each record had read the whole model for itself.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Application, Relation, ScopeMember, Unit } from '#shared/domain/entities.js';
import { refs } from '#shared/domain/plan.js';
import { machinesFor } from '#shared/messaging/affected-machines.js';
import { BatchReads } from '#shared/messaging/batch-reads.js';
import { planHint, type HintPlan, type Lookup } from '#shared/messaging/hint-plan.js';
import { keyOf } from '#shared/state/engine/keys.js';
import { getMany, getRelation } from '#shared/state/engine/reads.js';
import { listScope } from '#shared/state/engine/scope-listing.js';
import { listAllUnits } from '#shared/state/engine/unit-listing.js';
import type { Store } from '#shared/state/engine/store.js';
import type { StreamImages } from '#shared/state/engine/stream-record.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

let store: Store;
/** The whole model, read once: what the oracle decides from. */
let model: { units: Unit[]; applications: Application[]; relations: Relation[]; scopes: Map<string, ScopeMember[]> };
let records: StreamImages[];

beforeAll(async () => {
  store = await freshStore();
  await ensureModel(store);
  await deploy(store, { charm: charms.wordpress, numUnits: 4 }); // machines 0–3
  await deploy(store, { charm: charms.mysql, numUnits: 3 }); // 4–6
  await deploy(store, { charm: charms.varnish, numUnits: 2 }); // 7–8
  await deploy(store, { charm: charms.logging });
  const db = await addRelation(store, ['wordpress', 'mysql']);
  const cache = await addRelation(store, ['wordpress', 'varnish']);
  const logging = await addRelation(store, ['wordpress:logging-dir', 'logging:logging-directory']);
  for (const unit of ['wordpress/0', 'wordpress/1', 'wordpress/2', 'mysql/0', 'mysql/1']) await enterScope(store, unit, db.key, {});
  for (const unit of ['wordpress/0', 'varnish/0', 'varnish/1']) await enterScope(store, unit, cache.key, {});
  for (const unit of ['wordpress/0', 'wordpress/1']) {
    const { subordinate } = await enterScope(store, unit, logging.key, {});
    await enterScope(store, subordinate!, logging.key, {});
  }
  // A member written before members named their machine: its unit must be read instead.
  await store.doc.send(
    new UpdateCommand({
      TableName: store.table,
      Key: keyOf(store.model, refs.scope((await getRelation(store, db.key))!, 'mysql/1')),
      UpdateExpression: 'REMOVE machine',
    }),
  );

  const applications = await getMany<Application>(
    store,
    ['wordpress', 'mysql', 'varnish', 'logging'].map((a) => refs.application(a)),
  );
  const units = await getMany<Unit>(store, (await Promise.all(applications.map((a) => listAllUnits(store, a)))).flat());
  const relations = await getMany<Relation>(
    store,
    [db.key, cache.key, logging.key].map((k) => refs.relation(k)),
  );
  const scopes = new Map(
    await Promise.all(relations.map(async (r) => [r.key, (await listScope(store, r, { limit: 1000 })).items] as const)),
  );
  model = { units, applications, relations, scopes };

  // Every kind of record whose lookups the batch shares, for members and non-members alike.
  records = [
    ...relations.flatMap((r) =>
      units.map((u): StreamImages => ({ kind: 'scope', newImage: { relation: r.key, unit: u.name, machine: u.machine } })),
    ),
    ...relations.flatMap((r) =>
      units.map((u): StreamImages => ({
        kind: 'settings',
        oldImage: { relationId: r.id, unit: u.name, settings: { a: '1' }, version: 1 },
        newImage: { relationId: r.id, unit: u.name, settings: { a: '2' }, version: 2 },
      })),
    ),
    ...relations.flatMap((r) =>
      r.endpoints.map((ep): StreamImages => ({
        kind: 'appSettings',
        newImage: { relationId: r.id, relation: r.key, application: ep.application, settings: { a: '1' }, version: 1 },
      })),
    ),
    ...applications.map((a): StreamImages => ({ kind: 'application', oldImage: { ...a }, newImage: { ...a, configVersion: 99 } })),
  ];
});

const machineOf = (unit: string) => model.units.find((u) => u.name === unit)?.machine;
const scopeMachines = (relation: Relation) =>
  (model.scopes.get(relation.key) ?? []).flatMap((m) => {
    const machine = machineOf(m.unit);
    return machine ? [machine] : [];
  });

/** Who must look again, from the whole model: the rules of docs/architecture.md, stated plainly. */
function oracle(lookup: Lookup): string[] {
  switch (lookup.kind) {
    case 'unitsOfApplications':
      return model.units.filter((u) => lookup.applications.includes(u.application)).flatMap((u) => (u.machine ? [u.machine] : []));
    case 'scopeChanged': {
      const relation = model.relations.find((r) => r.key === lookup.relation);
      if (!lookup.unit.includes('/') && relation?.scope === 'container') return scopeMachines(relation);
      const own = machineOf(lookup.unit);
      return [...(own ? [own] : []), ...(relation && relation.scope !== 'container' ? scopeMachines(relation) : [])];
    }
    case 'settingsChanged': {
      const unit = model.units.find((u) => u.name === lookup.unit);
      const relation = model.relations.find((r) => r.id === lookup.relationId && unit?.scopes.includes(r.key));
      if (!unit || !relation) return [];
      return [...(unit.machine ? [unit.machine] : []), ...(relation.scope !== 'container' ? scopeMachines(relation) : [])];
    }
    default:
      throw new Error(`no oracle for ${lookup.kind}`);
  }
}

async function machinesOfPlan(plan: HintPlan, reads: BatchReads): Promise<string[]> {
  const machines: string[] = [];
  for await (const page of machinesFor(store, plan, reads)) machines.push(...page);
  return [...new Set(machines)].sort();
}

const expected = (plan: HintPlan) => (plan.kind === 'hint' ? [...new Set(plan.lookups.flatMap(oracle))].sort() : []);

describe("the notifier's shared reads", () => {
  it('name, for every record of every batch, exactly the machines the whole model says must look again', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.nat({ max: records.length - 1 }), { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (batches, prefetch) => {
          for (const batch of batches) {
            const plans = batch.map((i) => planHint(records[i]!));
            const reads = new BatchReads();
            if (prefetch) await reads.prefetch(store, plans);
            for (const plan of plans) expect(await machinesOfPlan(plan, reads)).toEqual(expected(plan));
          }
        },
      ),
      { numRuns: 40 },
    );
    // Up to 40 × 48 records' lookups, each a few Queries side by side (16 for an application's
    // unit shards): well over the default 30 s on a loaded host.
  }, 180_000);

  it('the oracle is not vacuous: global scopes, container scopes and applications name different machines', () => {
    const kinds = records.map((r) => expected(planHint(r)).length);
    expect(kinds.filter((n) => n === 0).length).toBeGreaterThan(0); // settings of a unit not in that relation
    expect(Math.max(...kinds)).toBeGreaterThanOrEqual(5);
  });
});
