// A unit's settings in a relation. They outlive the unit's departure and the relation itself, until
// the relation's "settings" cleanup deletes them (Juju's
// https://github.com/juju/juju/blob/2.9/state/cleanup_test.go TestCleanupRelationSettings).
import { planWriteSettings, type SettingsResult } from '../../domain/plans/relation-settings.js';
import { getSettings } from '../engine/reads.js';
import { relationLabel } from '../queries/relation-reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** relation-set: `changes` maps keys to values, an empty value deleting the key. */
export async function writeSettings(
  store: Store,
  relationId: number,
  unit: string,
  changes: Record<string, string>,
): Promise<SettingsResult> {
  return runOperation(store, `cannot write settings for unit "${unit}" in relation ${relationId}`, async (store) => {
    const current = await getSettings(store, relationId, unit);
    // The label is only needed to say what is missing.
    const label = current ? String(relationId) : await relationLabel(store, relationId);
    return planWriteSettings(current, { relationId, unit, relationLabel: label }, changes);
  });
}
