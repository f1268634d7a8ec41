// What a successful hook changed, committed in one transaction (as Juju 2.9's HookContext.Flush
// commits relation settings and port changes in one CommitHookChanges call when the hook exits 0:
// https://github.com/juju/juju/blob/2.9/worker/uniter/runner/context/context.go), and, as Juju 3's
// Flush does, the unit's charm state (state-set/state-delete) and workload version
// (application-version-set). Either every change of the hook is seen, or none is.
import type { Change } from '../../domain/plan.js';
import { planWriteSettings } from '../../domain/plans/relation-settings.js';
import { planSetUnitPorts, type PortChange } from '../../domain/plans/unit-ports.js';
import { planSetWorkloadVersion, planWriteUnitState, type StateChanges } from '../../domain/plans/unit-state.js';
import { getSettings, getUnit, getUnitState } from '../engine/reads.js';
import { relationLabel } from '../queries/relation-reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';
import { unitsOnMachine } from './unit-ports.js';
import { planWriteLeaderSettings } from '../../domain/plans/leadership.js';
import { getLeaderSettings, getLease } from '../queries/leadership.js';
import { planWriteAppSettings } from '../../domain/plans/app-settings.js';
import { getAppSettings } from '../queries/app-settings.js';
import { getRelationById } from '../queries/relation-reads.js';

export interface HookChanges {
  /** relation-set calls, merged per relation (an empty value deletes the key). */
  settings: { relationId: number; changes: Record<string, string> }[];
  /** open-port and close-port calls, in order. */
  ports: PortChange[];
  /** state-set (a value) and state-delete (null), merged per key. */
  charmState?: StateChanges;
  /** The last application-version-set. */
  workloadVersion?: string;
  /** leader-set calls, merged; committed only while the unit holds its application's lease. */
  leaderSettings?: { application: string; changes: Record<string, string> };
  /** relation-set --app calls, merged per relation; committed only while the unit leads. */
  appSettings?: { application: string; relations: { relationId: number; changes: Record<string, string> }[] };
}

export interface HookCommitResult {
  /** The version of the unit's settings in each relation written. */
  settingsVersions: Record<number, number>;
  /** The version of the application's bag in each relation written with --app. */
  appVersions?: Record<number, number>;
  openPorts?: string[];
}

export async function commitHookChanges(store: Store, unit: string, hook: HookChanges, now = () => new Date()): Promise<HookCommitResult> {
  return runOperation(store, `cannot commit the hook's changes for unit "${unit}"`, async (store) => {
    const changes: Change[] = [];
    const result: HookCommitResult = { settingsVersions: {} };
    for (const { relationId, changes: settings } of hook.settings) {
      const current = await getSettings(store, relationId, unit);
      const label = current ? String(relationId) : await relationLabel(store, relationId);
      const plan = planWriteSettings(current, { relationId, unit, relationLabel: label }, settings);
      changes.push(...plan.changes);
      result.settingsVersions[relationId] = plan.result.version;
    }
    const needsUnit = hook.ports.length > 0 || hook.charmState !== undefined || hook.workloadVersion !== undefined;
    const u = needsUnit ? await getUnit(store, unit) : undefined;
    if (hook.ports.length > 0) {
      const neighbours = u && hook.ports.some((p) => p.action === 'open') ? await unitsOnMachine(store, u.machine) : [];
      const plan = planSetUnitPorts({ ...(u ? { unit: u } : {}), neighbours }, { unit, changes: hook.ports });
      changes.push(...plan.changes);
      result.openPorts = plan.result.openPorts;
    }
    if (hook.charmState !== undefined && Object.keys(hook.charmState).length > 0) {
      const plan = planWriteUnitState(u, await getUnitState(store, unit), { unit, changes: hook.charmState });
      changes.push(...plan.changes);
    }
    if (hook.workloadVersion !== undefined) {
      changes.push(...planSetWorkloadVersion(u, { unit, version: hook.workloadVersion, now: now().toISOString() }).changes);
    }
    if (hook.leaderSettings) {
      const { application, changes: leaderChanges } = hook.leaderSettings;
      const [lease, current] = await Promise.all([getLease(store, application), getLeaderSettings(store, application)]);
      changes.push(...planWriteLeaderSettings({ lease, current }, application, unit, leaderChanges).changes);
    }
    if (hook.appSettings) {
      const { application, relations } = hook.appSettings;
      const lease = await getLease(store, application);
      for (const { relationId, changes: appChanges } of relations) {
        const [relation, current] = await Promise.all([getRelationById(store, relationId), getAppSettings(store, relationId, application)]);
        const target = { relationId, application, unit };
        const plan = planWriteAppSettings({ relation, lease, current }, target, appChanges);
        changes.push(...plan.changes);
        result.appVersions = { ...result.appVersions, [relationId]: plan.result.version };
      }
    }
    return { changes, result };
  });
}
