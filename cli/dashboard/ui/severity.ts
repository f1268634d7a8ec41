// How bad a status is, and how it looks: a colour for those who see it, and always an icon and a
// word for those who do not (colour is never the only sign).
import type { StatusValue, UnitDoc } from '#shared/domain/status-document.js';

export type Level = 'error' | 'blocked' | 'waiting' | 'busy' | 'ok' | 'unknown';

/** Juju's order of severity for a workload, worst first (an agent in error beats them all). */
const LEVEL_OF: Record<string, Level> = {
  error: 'error',
  'provisioning error': 'error',
  down: 'error',
  lost: 'error',
  blocked: 'blocked',
  waiting: 'waiting',
  pending: 'waiting',
  allocating: 'waiting',
  maintenance: 'busy',
  executing: 'busy',
  active: 'ok',
  idle: 'ok',
  started: 'ok',
  running: 'ok',
};

/** Worst first. */
export const RANK: Level[] = ['error', 'blocked', 'waiting', 'busy', 'unknown', 'ok'];

export const ICON: Record<Level, string> = { error: '✖', blocked: '■', waiting: '…', busy: '↻', unknown: '?', ok: '✔' };

export const levelOf = (status: StatusValue | undefined): Level => LEVEL_OF[status?.current ?? ''] ?? 'unknown';

export const worst = (levels: Level[]): Level => levels.reduce<Level>((a, b) => (RANK.indexOf(b) < RANK.indexOf(a) ? b : a), 'ok');

/** A unit's level: its agent in error is the unit in error, whatever the workload says. */
export const unitLevel = (unit: UnitDoc): Level => worst([levelOf(unit['workload-status']), levelOf(unit['juju-status'])]);
