// A unit agent's batched report (shared/domain/plans/unit-report.ts decides). Speculative: the
// transaction asserts the unit exists and the id of the last report it took, the facts read.
import { planUnitReport, type UnitReport } from '../../domain/plans/unit-report.js';
import { getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export async function reportUnit(store: Store, name: string, report: UnitReport): Promise<{ applied: boolean }> {
  return runOperation(
    store,
    `cannot take the report of unit "${name}"`,
    async (store) => planUnitReport(await getUnit(store, name), name, report, store.now().toISOString()),
    { speculate: true },
  );
}
