// set-constraints <application> (shared/domain/plans/application-constraints.ts decides).
import type { Constraints } from '../../domain/constraints.js';
import { planSetApplicationConstraints } from '../../domain/plans/application-constraints.js';
import { getApplication } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export async function setApplicationConstraints(store: Store, application: string, constraints: Constraints): Promise<void> {
  await runOperation(store, `cannot set constraints for application "${application}"`, async (store) =>
    planSetApplicationConstraints(await getApplication(store, application), application, constraints),
  );
}
