// When the local provider may start a dead agent again, as systemd's `Restart=` with a growing
// `RestartSec` does for Juju's agents: at once after a death that looks accidental (kill -9, OOM),
// then, while the agent keeps dying soon after each start (a crash loop: a broken build, a bad
// machine directory), after a delay that doubles up to five minutes, so a broken agent costs
// little and its log is not buried under restarts.
//
// The history is kept in the machine directory (`restarts.json`), the provider's only memory, so
// a restarted controller keeps counting; a new provisioning attempt starts from zero. The counting
// and the delays are this file's two pure functions, which the local controller's own supervisor
// (embedded/controller-supervisor.ts) applies to the controller process, keeping its count in memory.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalInstanceRecord } from './machine-dir.js';

export const RESTART_POLICY = {
  /** An agent that ran at least this long before dying was not crash-looping. */
  stableRunMs: 60_000,
  /** Short-lived runs in a row that are restarted at once. */
  immediateRestarts: 2,
  firstDelayMs: 2_000,
  maxDelayMs: 300_000,
};

export type RestartPolicy = typeof RESTART_POLICY;

/** Quick deaths in a row once a process that ran `ranMs` died: one more if it died soon, none if it had run stably. */
export function quickDeathsAfter(previous: number, ranMs: number, policy: RestartPolicy): number {
  return ranMs < policy.stableRunMs ? previous + 1 : 0;
}

/** How long after its death a process with `quickDeaths` quick deaths in a row is started again. */
export function restartDelayMs(quickDeaths: number, policy: RestartPolicy): number {
  const beyond = quickDeaths - policy.immediateRestarts;
  return beyond <= 0 ? 0 : Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (beyond - 1));
}

interface RestartHistory {
  attempt: number;
  /** The start (startedAt of the record) of the last death counted, so a death is counted once. */
  countedStart: string;
  /** Deaths in a row, each soon after its start. */
  quickDeaths: number;
  /** When that death was first seen: the delay runs from here. */
  seenDeadAt: number;
}

const FILE = 'restarts.json';

function readHistory(dir: string): RestartHistory | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, FILE), 'utf8')) as RestartHistory;
  } catch {
    return undefined;
  }
}

/** A clean stop (the controller shutting down) is no death: the next start begins a new count. */
export function forgetRestarts(dir: string): void {
  rmSync(join(dir, FILE), { force: true });
}

export type RestartDecision = { restart: true; quickDeaths: number } | { restart: false; quickDeaths: number; restartAt: number };

/** Whether the dead agent of `record` may be started again now; records the death the first time it is seen. */
export function decideRestart(
  dir: string,
  record: LocalInstanceRecord,
  now: number,
  policy: RestartPolicy = RESTART_POLICY,
): RestartDecision {
  let history = readHistory(dir);
  if (history?.attempt !== record.attempt) history = undefined;
  if (history?.countedStart !== record.startedAt) {
    history = {
      attempt: record.attempt,
      countedStart: record.startedAt,
      quickDeaths: quickDeathsAfter(history?.quickDeaths ?? 0, now - Date.parse(record.startedAt), policy),
      seenDeadAt: now,
    };
    writeFileSync(join(dir, FILE), JSON.stringify(history), { mode: 0o600 });
  }
  const delay = restartDelayMs(history.quickDeaths, policy);
  if (delay === 0) return { restart: true, quickDeaths: history.quickDeaths };
  const restartAt = history.seenDeadAt + delay;
  return now >= restartAt
    ? { restart: true, quickDeaths: history.quickDeaths }
    : { restart: false, quickDeaths: history.quickDeaths, restartAt };
}
