// get-constraints <application>: the application's constraints as set.
import type { Constraints } from '../../domain/constraints.js';
import { notFound } from '../../domain/errors.js';
import { getApplication } from '../engine/reads.js';
import type { Store } from '../engine/store.js';

export async function getApplicationConstraints(store: Store, application: string): Promise<Constraints> {
  const app = await getApplication(store, application);
  if (!app) throw notFound(`application "${application}" not found`);
  return app.constraints;
}
