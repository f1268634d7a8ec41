// A unit's settings in a relation, as relation-get reads them; relation-set writes them in
// shared/state/operations/relation-settings.ts.
import { settingsNotFound, type SettingsResult } from '../../domain/plans/relation-settings.js';
import { getSettings } from '../engine/reads.js';
import { relationLabel } from './relation-reads.js';
import type { Store } from '../engine/store.js';
import type { Relation } from '../../domain/entities.js';
import { settingsLocation } from './cross-model-reads.js';

/** `relation`, when known, says where a unit of the other side of a relation across models keeps its settings. */
export async function readSettings(store: Store, relationId: number, unit: string, relation?: Relation): Promise<SettingsResult> {
  const at = relation ? settingsLocation(store, relation, unit) : { store, relationId, unit };
  const current = await getSettings(at.store, at.relationId, at.unit);
  if (!current) throw settingsNotFound('read', unit, await relationLabel(store, relationId));
  return { settings: current.settings, version: current.version };
}
