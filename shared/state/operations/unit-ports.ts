// open-port and close-port, committed at the end of a successful hook.
import type { Unit } from '../../domain/entities.js';
import { refs } from '../../domain/plan.js';
import { planSetUnitPorts, type PortChange, type UnitPortsResult } from '../../domain/plans/unit-ports.js';
import { getMachine, getMany, getUnit } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/** The units sharing a machine: its principals and their subordinates (bounded by applications). */
export async function unitsOnMachine(store: Store, machineId: string | undefined): Promise<Unit[]> {
  if (machineId === undefined) return [];
  const machine = await getMachine(store, machineId);
  if (!machine) return [];
  const principals = await getMany<Unit>(store, machine.principals.map(refs.unit));
  const subordinates = await getMany<Unit>(store, principals.flatMap((u) => u.subordinates).map(refs.unit));
  return [...principals, ...subordinates];
}

export async function setUnitPorts(store: Store, unit: string, changes: PortChange[]): Promise<UnitPortsResult> {
  return runOperation(store, `cannot change open ports of unit "${unit}"`, async (store) => {
    const u = await getUnit(store, unit);
    const neighbours = u && changes.some((c) => c.action === 'open') ? await unitsOnMachine(store, u.machine) : [];
    return planSetUnitPorts({ ...(u ? { unit: u } : {}), neighbours }, { unit, changes });
  });
}
