import { planAttachResource, type AttachResourceIntent, type AttachResourceResult } from '../../domain/plans/attach-resource.js';
import { getApplication } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** attach-resource: the uploads become the application's next revisions (shared/domain/plans/attach-resource.ts). */
export async function attachResource(store: Store, intent: AttachResourceIntent): Promise<AttachResourceResult> {
  return runOperation(store, `cannot attach resources to application "${intent.application}"`, async (store) =>
    planAttachResource(await getApplication(store, intent.application), intent),
  );
}
