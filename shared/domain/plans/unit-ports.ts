// A hook's open-port and close-port calls, committed when the hook succeeds (as Juju 2.x's
// HookContext.Flush commits them atomically with the hook's other changes:
// https://github.com/juju/juju/blob/2.9/worker/uniter/runner/context/context.go).
//
// Conflicting ranges between units on one machine fail, in Juju's words `port ranges 80/tcp
// ("a/0") and 80/tcp ("b/0") conflict` (Juju 2.9's state,
// https://github.com/juju/juju/tree/2.9/state, its port ranges operation): the units of one machine share its network.
import type { Unit } from '../entities.js';
import { DroverError, notFound } from '../errors.js';
import { canonicalPortRange, parsePortRange, portRangesOverlap } from '../port-ranges.js';
import { done, refs, type Plan } from '../plan.js';

export interface UnitPortsSnapshot {
  unit?: Unit;
  /** The other units on the unit's machine (principals and their subordinates). */
  neighbours: Unit[];
}

export interface PortChange {
  action: 'open' | 'close';
  range: string;
}

export interface UnitPortsResult {
  openPorts: string[];
}

/** The ports open after applying `changes` in order to `current`. */
export function applyPortChanges(current: string[], changes: PortChange[]): string[] {
  const open = new Set(current);
  for (const change of changes) {
    const range = canonicalPortRange(change.range);
    if (change.action === 'open') open.add(range);
    else open.delete(range);
  }
  return [...open].sort();
}

export function planSetUnitPorts(snapshot: UnitPortsSnapshot, intent: { unit: string; changes: PortChange[] }): Plan<UnitPortsResult> {
  const { unit } = snapshot;
  if (!unit) throw notFound(`unit "${intent.unit}" not found`);
  const next = applyPortChanges(unit.openPorts, intent.changes);
  const added = next.filter((p) => !unit.openPorts.includes(p));
  for (const range of added) {
    for (const other of snapshot.neighbours) {
      if (other.name === unit.name) continue;
      const clash = other.openPorts.find((p) => portRangesOverlap(parsePortRange(p), parsePortRange(range)));
      if (clash) throw new DroverError('already-exists', `port ranges ${clash} ("${other.name}") and ${range} ("${unit.name}") conflict`);
    }
  }
  const same = next.length === unit.openPorts.length && next.every((p) => unit.openPorts.includes(p));
  if (same) return done({ openPorts: unit.openPorts });
  return {
    changes: [
      {
        op: 'update',
        ref: refs.unit(unit.name),
        // A string set: replaced whole, as DynamoDB cannot ADD and DELETE one attribute at once.
        ...(next.length ? { set: { openPorts: new Set(next) } } : { unset: ['openPorts'] }),
        // Only the unit's own agent changes its ports; asserting the size read still catches a
        // second writer (a restarted agent racing the old one).
        expect: { setSize: { openPorts: unit.openPorts.length } },
      },
    ],
    result: { openPorts: next },
  };
}
