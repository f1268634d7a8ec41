// status-set --application, the leader's (shared/domain/plans/application-status.ts decides).
import type { StatusInfo } from '../../domain/entities.js';
import { planSetApplicationStatus } from '../../domain/plans/application-status.js';
import { getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { getLease } from '../queries/leadership.js';

export async function setApplicationStatus(store: Store, unitName: string, status: Omit<StatusInfo, 'since'>): Promise<void> {
  await runOperation(store, `cannot set application status for unit "${unitName}"`, async (store) => {
    const unit = await getUnit(store, unitName);
    const lease = unit ? await getLease(store, unit.application) : undefined;
    return planSetApplicationStatus(unit, lease, unitName, status, store.now().toISOString());
  });
}
