// Application status, the leader's to set and read (status-set/status-get --application;
// https://github.com/juju/juju/blob/3.6/worker/uniter/runner/context/context.go:
// SetApplicationStatus refuses a non-leader with ErrIsNotLeader, "this unit is not the leader").
import type { StatusInfo, Unit } from '../../domain/entities.js';
import { DroverError, notFound } from '../../domain/errors.js';
import { refs } from '../../domain/plan.js';
import { collections } from '../engine/keys.js';
import { getLease } from '../queries/leadership.js';
import { getApplication, getMany, getUnit, listAll } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export const NOT_THE_LEADER = 'this unit is not the leader';

async function requireLeader(store: Store, unitName: string): Promise<Unit> {
  const unit = await getUnit(store, unitName);
  if (!unit) throw notFound(`unit "${unitName}" not found`);
  if ((await getLease(store, unit.application))?.holder !== unitName) throw new DroverError('unauthorized', NOT_THE_LEADER);
  return unit;
}

export async function setApplicationStatus(store: Store, unitName: string, status: Omit<StatusInfo, 'since'>): Promise<void> {
  await runOperation(store, `cannot set application status for unit "${unitName}"`, async () => {
    const unit = await requireLeader(store, unitName);
    const since = store.now().toISOString();
    return {
      changes: [
        { op: 'update', ref: refs.application(unit.application), set: { status: { ...status, since } } },
        // Only while it still leads.
        { op: 'check', ref: refs.lease(unit.application), expect: { equals: { holder: unitName } } },
      ],
      result: undefined,
    };
  });
}

export interface ApplicationStatusAnswer {
  application: { status: string; message: string; data: Record<string, unknown> };
  units: { unit: string; status: string; message: string; data: Record<string, unknown> }[];
}

/** status-get --application: the application's status and its units' workload statuses. */
export async function readApplicationStatus(store: Store, unitName: string): Promise<ApplicationStatusAnswer> {
  const unit = await requireLeader(store, unitName);
  const app = await getApplication(store, unit.application);
  const units = await getMany<Unit>(store, await listAll(store, collections.unitsOf(store.model, unit.application)));
  const shown = (s: StatusInfo | undefined) => ({ status: s?.current ?? 'unknown', message: s?.message ?? '', data: { ...s?.data } });
  return {
    application: shown(app?.status),
    units: units.map((u) => ({ unit: u.name, ...shown(u.workloadStatus) })),
  };
}
