// What the watchdog sees: entities that are not Alive, and machines in provisioning error, from
// the sparse `stuck` index (entities leave it when removed, or when a machine's error clears).
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { applicationBlockedBy, machineBlockedBy, modelLeftBy, relationBlockedBy, unitBlockedBy } from '../../domain/blocked-by.js';
import type { Application, Machine, Model, Relation, Unit } from '../../domain/entities.js';
import { modelCleanupId } from '../../domain/plans/destroy-model.js';
import type { EntityRef } from '../../domain/plan.js';
import type { StuckEntity } from '../../domain/stuck-entity.js';
import { ATTR, collections, INDEX, refFromKey, type Key } from '../engine/keys.js';
import { getEach } from '../engine/reads.js';
import type { Store } from '../engine/store.js';
import { readModelContents } from './model-contents.js';

/** Names shown of each kind left in a Dying model. */
const SHOWN = 5;

const label = (ref: EntityRef) =>
  ref.kind === 'machine'
    ? `machine ${ref.id}`
    : ref.kind === 'unit'
      ? `unit ${ref.name}`
      : ref.kind === 'application'
        ? `application ${ref.name}`
        : ref.kind === 'relation'
          ? `relation "${ref.key}"`
          : ref.kind === 'storage'
            ? `storage ${ref.id}`
            : ref.kind;

function reasonsFor(ref: EntityRef, item: Record<string, unknown>): string[] {
  switch (ref.kind) {
    case 'unit':
      return unitBlockedBy(item as unknown as Unit);
    case 'application':
      return applicationBlockedBy(item as unknown as Application, []);
    case 'relation': {
      const relation = item as unknown as Relation;
      return relationBlockedBy(relation, []);
    }
    case 'machine': {
      const machine = item as unknown as Machine;
      if (machine.instanceStatus.current === 'provisioning error') {
        return [`provisioning error: ${machine.instanceStatus.message ?? ''} (run "drover retry-provisioning ${machine.id}")`];
      }
      return machineBlockedBy(machine);
    }
    default:
      return [];
  }
}

/** Entities stuck for at least `olderThanSeconds`, oldest first. */
export async function listStuck(store: Store, olderThanSeconds = 0): Promise<StuckEntity[]> {
  const now = store.now();
  const cutoff = new Date(now.getTime() - olderThanSeconds * 1000).toISOString();
  const entries: { ref: EntityRef; since: string }[] = [];
  for (const shard of collections.stuckShards(store.model)) {
    let start: Record<string, unknown> | undefined;
    do {
      const out = await store.doc.send(
        new QueryCommand({
          TableName: store.table,
          IndexName: INDEX.stuck,
          KeyConditionExpression: '#pk = :pk AND #since <= :cutoff',
          ExpressionAttributeNames: { '#pk': ATTR.stuckPk, '#since': ATTR.stuckSince },
          ExpressionAttributeValues: { ':pk': shard, ':cutoff': cutoff },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) {
        const ref = refFromKey(store.model, item as Key);
        if (ref) entries.push({ ref, since: String(item[ATTR.stuckSince]) });
      }
      start = out.LastEvaluatedKey;
    } while (start);
  }
  const items = await getEach<Record<string, unknown>>(
    store,
    entries.map((e) => e.ref),
  );
  const stuck: StuckEntity[] = [];
  for (const [i, entry] of entries.entries()) {
    const item = items[i];
    if (!item) continue;
    const model = entry.ref.kind === 'model' ? (item as unknown as Model) : undefined;
    stuck.push({
      entity: model ? `model ${model.name}` : label(entry.ref),
      kind: entry.ref.kind,
      life: String(item.life ?? 'alive'),
      since: entry.since,
      ageSeconds: Math.floor((now.getTime() - Date.parse(entry.since)) / 1000),
      // What holds a Dying model takes reads: a few of each kind left in it.
      reasons: model
        ? modelLeftBy(model, await readModelContents(store, { limit: SHOWN, except: modelCleanupId(model) }), SHOWN)
        : reasonsFor(entry.ref, item),
    });
  }
  return stuck.sort((a, b) => a.since.localeCompare(b.since));
}
