// Agent presence (as Juju 2.9's
// https://github.com/juju/juju/blob/2.9/apiserver/common/unitstatus.go shows it): an agent that has
// fallen silent shows as `lost` (units) or `down` (machines). Like Juju, drover computes this when
// status is read, from when the machine's agent was last seen on the agent API; it is never stored
// in the entity, so an agent that speaks again is back at once and nobody has to "un-lose" it
// (python-libjuju's #991 showed `idle` for lost agents because it read a stored status).
//
// Units run inside their machine's agent process, so a unit's agent is as present as its
// machine's: one "last seen" per machine covers both.
import type { Machine, StatusInfo, Unit } from './entities.js';

/**
 * How long an agent may be silent before it counts as lost: 27 min. An idle agent speaks at
 * least every 24 min (its resync, at most 1.2 × 20 min, with the heartbeat riding on it:
 * agent/config.ts) and the API records that at most a twelfth of the threshold late
 * (presenceWriteIntervalMs, 2 min 15 s), so a talking agent is never shown lost. The price of an
 * idle agent within $0.06 a month (docs/deploy-to-aws.md, "Per idle agent"): a dead agent shows
 * as lost after 27 minutes, not 12.
 */
export const DEFAULT_AGENT_LOST_AFTER_SECONDS = 27 * 60;

/**
 * How stale the stored "last seen" may get before the API writes it again. A twelfth of the
 * threshold (2 min 15 s by default): fresh enough never to make a speaking agent look lost, and
 * rare enough that a busy agent costs at most one write, and one stream record, per interval.
 */
export const presenceWriteIntervalMs = (lostAfterMs: number) => lostAfterMs / 12;

export const NOT_COMMUNICATING = 'agent is not communicating with the server';

/** drover's own command in place of Juju's, as everywhere drover tells users what to run. */
export const agentLostMessage = (unit: string) => `agent lost, see 'drover show-status-log ${unit}'`;

export interface Presence {
  /** Machine id → when its agent was last seen (ISO); absent: not seen within the item's TTL, or never. */
  lastSeen: Record<string, string>;
  lostAfterMs: number;
}

/** True if the machine's agent has not been seen within the threshold (or at all). */
export function isAgentSilent(presence: Presence, machineId: string, now: Date): boolean {
  const seen = presence.lastSeen[machineId];
  return seen === undefined || now.getTime() - Date.parse(seen) > presence.lostAfterMs;
}

/** Workload statuses of a unit whose charm is not installed yet (core/status's isWorkloadInstalled). */
function isWorkloadInstalled(workload: StatusInfo): boolean {
  if (workload.current === 'maintenance') return workload.message !== 'installing charm software';
  if (workload.current === 'waiting')
    return !['waiting for machine', 'installing agent', 'agent initializing'].includes(workload.message ?? '');
  return true;
}

/** "not applied while allocating or executing install or before the workload is installed" (unitstatus.go, above). */
function canUnitBeLost(unit: Unit): boolean {
  if (unit.agentStatus.current === 'allocating') return false;
  if (unit.agentStatus.current === 'executing' && unit.agentStatus.message === 'running install hook') return false;
  return isWorkloadInstalled(unit.workloadStatus);
}

/** Machine → `down` "not while pending or stopped" (unitstatus.go, above); a Dead machine's agent has finished. */
function canMachineBeDown(machine: Machine): boolean {
  return !['pending', 'stopped'].includes(machine.agentStatus.current) && machine.life !== 'dead';
}

/** The machine's agent status as status shows it: `down` when its agent is silent. */
export function presentMachineStatus(machine: Machine, silent: boolean): StatusInfo {
  if (!silent || !canMachineBeDown(machine)) return machine.agentStatus;
  return { current: 'down', message: NOT_COMMUNICATING, since: machine.agentStatus.since };
}

/**
 * The unit's agent and workload statuses as status shows them. A lost unit's workload becomes
 * `unknown`, except an error: "it would be bad to throw away the error information" (Juju's
 * unitstatus.go), so the error (stored as the agent's, shown as the workload's) stays.
 */
export function presentUnitStatuses(unit: Unit, silent: boolean): { agent: StatusInfo; workload: StatusInfo } {
  const inError = unit.agentStatus.current === 'error';
  const shown = inError
    ? { agent: { current: 'idle', since: unit.agentStatus.since }, workload: { ...unit.agentStatus, current: 'error' } }
    : { agent: unit.agentStatus, workload: unit.workloadStatus };
  if (!silent || unit.life === 'dead' || !canUnitBeLost(unit)) return shown;
  return {
    agent: { current: 'lost', message: NOT_COMMUNICATING, since: unit.agentStatus.since },
    workload: inError ? shown.workload : { current: 'unknown', message: agentLostMessage(unit.name), since: unit.workloadStatus.since },
  };
}
