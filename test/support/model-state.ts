// The whole of a model as one consistent picture, read by scanning its table: what the model
// property test checks its invariants against (test/support/invariants.ts). Only for tests: a
// Scan reads every item, which no operation may do.
import type { Application, Cleanup, Machine, Relation, RelationSettings, ScopeMember, Unit } from '#shared/domain/entities.js';
import { BatchWriteCommand, type BatchWriteCommandInput, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { fromItem } from '#shared/state/engine/codec.js';
import { ATTR } from '#shared/state/engine/keys.js';
import type { Store } from '#shared/state/engine/store.js';
import { dumpTable } from './table-dump.js';

export interface ModelState {
  applications: Application[];
  units: Unit[];
  machines: Machine[];
  relations: Relation[];
  scopes: ScopeMember[];
  settings: RelationSettings[];
  cleanups: Cleanup[];
  /** The raw items, in key order: two equal dumps mean nothing changed. */
  items: Record<string, unknown>[];
}

/** Reads every item of the store's model (the table may hold other models: they are skipped). */
export async function readModelState(store: Store): Promise<ModelState> {
  const items = (await dumpTable(store)).filter((i) => String(i[ATTR.pk]).startsWith(`${store.model}#`));
  const of = <T>(kind: string) => items.filter((i) => i[ATTR.kind] === kind).map((i) => fromItem<T>(i));
  return {
    applications: of<Application>('application'),
    units: of<Unit>('unit'),
    machines: of<Machine>('machine'),
    relations: of<Relation>('relation'),
    scopes: of<ScopeMember>('scope'),
    settings: of<RelationSettings>('settings'),
    cleanups: of<Cleanup>('cleanup'),
    items,
  };
}

/** Deletes every item of the store's model, leaving the table to the next. */
export async function deleteModel(store: Store): Promise<void> {
  const { items } = await readModelState(store);
  for (let i = 0; i < items.length; i += 25) {
    const keys = items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { [ATTR.pk]: item[ATTR.pk], [ATTR.sk]: item[ATTR.sk] } } }));
    let unprocessed: BatchWriteCommandInput['RequestItems'] = { [store.table]: keys };
    while (unprocessed && Object.keys(unprocessed).length > 0) {
      const out: BatchWriteCommandOutput = await store.doc.send(new BatchWriteCommand({ RequestItems: unprocessed }));
      unprocessed = out.UnprocessedItems;
    }
  }
}

/** Indexes of a state by name, for the invariants and the test's choice of targets. */
export function indexState(state: ModelState) {
  return {
    applications: new Map(state.applications.map((a) => [a.name, a])),
    units: new Map(state.units.map((u) => [u.name, u])),
    machines: new Map(state.machines.map((m) => [m.id, m])),
    relations: new Map(state.relations.map((r) => [r.key, r])),
  };
}
