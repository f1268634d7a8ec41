// Application data bags (shared/domain/plans/app-settings.ts): reads with Juju's permissions.
import { DroverError } from '../../domain/errors.js';
import { refs } from '../../domain/plan.js';
import { mayReadAppSettings, type AppSettings } from '../../domain/plans/app-settings.js';
import type { Relation } from '../../domain/entities.js';
import { getLease } from './leadership.js';
import { getItem } from '../engine/reads.js';
import type { Store } from '../engine/store.js';
import { appSettingsLocation } from './cross-model-reads.js';

export const getAppSettings = (store: Store, relationId: number, application: string) =>
  getItem<AppSettings>(store, refs.appSettings(relationId, application));

/** relation-get --app: the bag, if `reader` may see it; an empty one if never written. */
export async function readAppSettings(
  store: Store,
  reader: { unit: string; application: string },
  relation: Relation,
  application: string,
): Promise<{ settings: Record<string, string>; version: number }> {
  const lease = application === reader.application ? await getLease(store, application) : undefined;
  if (!mayReadAppSettings(relation, reader, application, lease)) throw new DroverError('unauthorized', 'permission denied');
  const at = appSettingsLocation(store, relation, application);
  const current = await getAppSettings(at.store, at.relationId, at.application);
  return { settings: current?.settings ?? {}, version: current?.version ?? 0 };
}
