// status-get --application: the leader reads its application's status and its units' workload
// statuses (shared/domain/plans/application-status.ts says who may).
import type { StatusInfo, Unit } from '../../domain/entities.js';
import { leaderUnit } from '../../domain/plans/application-status.js';
import { getApplication, getMany, getUnit } from '../engine/reads.js';
import { listAllUnits } from '../engine/unit-listing.js';
import type { Store } from '../engine/store.js';
import { getLease } from './leadership.js';

export interface ApplicationStatusAnswer {
  application: { status: string; message: string; data: Record<string, unknown> };
  units: { unit: string; status: string; message: string; data: Record<string, unknown> }[];
}

/** The unit, read with its application's lease, if it leads. */
export async function readLeaderUnit(store: Store, unitName: string): Promise<Unit> {
  const unit = await getUnit(store, unitName);
  return leaderUnit(unit, unit ? await getLease(store, unit.application) : undefined, unitName);
}

export async function readApplicationStatus(store: Store, unitName: string): Promise<ApplicationStatusAnswer> {
  const unit = await readLeaderUnit(store, unitName);
  const app = await getApplication(store, unit.application);
  const units = app ? await getMany<Unit>(store, await listAllUnits(store, app)) : [];
  const shown = (s: StatusInfo | undefined) => ({ status: s?.current ?? 'unknown', message: s?.message ?? '', data: { ...s?.data } });
  return {
    application: shown(app?.status),
    units: units.map((u) => ({ unit: u.name, ...shown(u.workloadStatus) })),
  };
}
