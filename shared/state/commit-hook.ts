// What a successful hook changed, committed in one transaction (reference §4.5: "Buffered and
// committed atomically when the hook exits 0 (2.9 HookContext.Flush → single CommitHookChanges
// call): relation unit settings ... port opens/closes"). Either every relation-set and port
// change of the hook is seen, or none is.
import type { Change } from '../domain/plan.js';
import { planWriteSettings } from '../domain/plans/relation-settings.js';
import { planSetUnitPorts, type PortChange } from '../domain/plans/unit-ports.js';
import { getSettings, getUnit } from './reads.js';
import { relationLabel } from './relation-reads.js';
import { runOperation } from './run-operation.js';
import type { Store } from './store.js';
import { unitsOnMachine } from './unit-ports.js';
import { planWriteLeaderSettings } from '../domain/plans/leadership.js';
import { getLeaderSettings, getLease } from './leadership.js';

export interface HookChanges {
  /** relation-set calls, merged per relation (an empty value deletes the key). */
  settings: { relationId: number; changes: Record<string, string> }[];
  /** open-port and close-port calls, in order. */
  ports: PortChange[];
  /** leader-set calls, merged; committed only while the unit holds its application's lease. */
  leaderSettings?: { application: string; changes: Record<string, string> };
}

export interface HookCommitResult {
  /** The version of the unit's settings in each relation written. */
  settingsVersions: Record<number, number>;
  openPorts?: string[];
}

export async function commitHookChanges(store: Store, unit: string, hook: HookChanges): Promise<HookCommitResult> {
  return runOperation(store, `cannot commit the hook's changes for unit "${unit}"`, async () => {
    const changes: Change[] = [];
    const result: HookCommitResult = { settingsVersions: {} };
    for (const { relationId, changes: settings } of hook.settings) {
      const current = await getSettings(store, relationId, unit);
      const label = current ? String(relationId) : await relationLabel(store, relationId);
      const plan = planWriteSettings(current, { relationId, unit, relationLabel: label }, settings);
      changes.push(...plan.changes);
      result.settingsVersions[relationId] = plan.result.version;
    }
    if (hook.ports.length > 0) {
      const u = await getUnit(store, unit);
      const neighbours = u && hook.ports.some((p) => p.action === 'open') ? await unitsOnMachine(store, u.machine) : [];
      const plan = planSetUnitPorts({ ...(u ? { unit: u } : {}), neighbours }, { unit, changes: hook.ports });
      changes.push(...plan.changes);
      result.openPorts = plan.result.openPorts;
    }
    if (hook.leaderSettings) {
      const { application, changes: leaderChanges } = hook.leaderSettings;
      const [lease, current] = await Promise.all([getLease(store, application), getLeaderSettings(store, application)]);
      changes.push(...planWriteLeaderSettings({ lease, current }, application, unit, leaderChanges).changes);
    }
    return { changes, result };
  });
}
