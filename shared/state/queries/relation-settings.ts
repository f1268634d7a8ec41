// A unit's settings in a relation, as relation-get reads them; relation-set writes them in
// shared/state/operations/relation-settings.ts.
import { settingsNotFound, type SettingsResult } from '../../domain/plans/relation-settings.js';
import { getSettings } from '../engine/reads.js';
import { relationLabel } from './relation-reads.js';
import type { Store } from '../engine/store.js';

export async function readSettings(store: Store, relationId: number, unit: string): Promise<SettingsResult> {
  const current = await getSettings(store, relationId, unit);
  if (!current) throw settingsNotFound('read', unit, await relationLabel(store, relationId));
  return { settings: current.settings, version: current.version };
}
