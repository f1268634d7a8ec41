// Keeps the local controller process running, as systemd keeps Juju's jujud running on a controller
// machine: a controller that dies is started again on the same data directory, with the backoff
// the local provider applies to machine agents (shared/provider/local/restart-backoff.ts): at once
// after an accidental death, then after delays that double while it keeps dying soon after each
// start. Unlike an agent, the controller is not retried for ever: after GIVE_UP_AFTER quick deaths
// in a row it is left stopped, and the operator told why and how to start it again.
//
// Never restarted: a controller that stopped cleanly (exit code 0: Ctrl-C, SIGTERM, kill-controller),
// one that died during its first start (bootstrap reports that, with its log), and one this
// supervisor was asked to stop. The process side (spawning, signals, the pid file) is
// embedded/supervisor-main.ts; this module is the decisions, on an injected clock.
import type { Clock, Timer } from '../agent/clock.js';
import { quickDeathsAfter, restartDelayMs, RESTART_POLICY, type RestartPolicy } from '#shared/provider/local/restart-backoff.js';
import type { PartsLog } from './parts-log.js';

export interface ControllerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One run of the controller process. */
export interface ControllerProcess {
  readonly pid: number | undefined;
  /** `listener` runs when the controller serves its API (embedded/supervision-channel.ts). */
  onReady(listener: () => void): void;
  /** `listener` runs once, when the process has exited. */
  onExit(listener: (exit: ControllerExit) => void): void;
  kill(signal: NodeJS.Signals): void;
}

export interface ControllerRestartPolicy extends RestartPolicy {
  /** Quick deaths in a row after which the controller is left stopped. */
  giveUpAfterQuickDeaths: number;
  /** How long a controller asked to stop may take before it is killed. */
  stopGraceMs: number;
}

/**
 * The agents' policy, with a shorter cap: a controller restarting after delays of minutes leaves
 * every command failing meanwhile, and six quick deaths in a row (at once, at once, then after
 * 2, 4 and 8 s) already say it will not come up by itself.
 */
export const CONTROLLER_RESTART_POLICY: ControllerRestartPolicy = {
  ...RESTART_POLICY,
  maxDelayMs: 30_000,
  giveUpAfterQuickDeaths: 6,
  stopGraceMs: 20_000,
};

export type SupervisionEnd =
  { kind: 'stopped' } | { kind: 'failed-to-start'; exit: ControllerExit } | { kind: 'gave-up'; quickDeaths: number };

export interface ControllerSupervisorOptions {
  start(): ControllerProcess;
  clock: Clock;
  log: PartsLog;
  /** Where the controller's output goes, named in the message given on giving up. */
  logPath: string;
  /** The command that starts the controller again, named in the message given on giving up. */
  restartCommand: string;
  policy?: ControllerRestartPolicy;
}

export interface ControllerSupervisor {
  /** The running controller's pid, if one runs. */
  pid(): number | undefined;
  /** Settles when supervision ends: the controller stopped cleanly, never came up, or was given up on. */
  readonly ended: Promise<SupervisionEnd>;
  /** Stops the controller (SIGTERM, SIGKILL after the grace period) and restarts nothing after. */
  stop(): Promise<SupervisionEnd>;
}

export const describeExit = (exit: ControllerExit): string => (exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`);

export function superviseController(options: ControllerSupervisorOptions): ControllerSupervisor {
  const { clock, log } = options;
  const policy = options.policy ?? CONTROLLER_RESTART_POLICY;
  let current: ControllerProcess | undefined;
  let everReady = false;
  let quickDeaths = 0;
  let diedAt: number | undefined;
  let stopping = false;
  let pendingRestart: Timer | undefined;
  let killTimer: Timer | undefined;
  let settle!: (end: SupervisionEnd) => void;
  const ended = new Promise<SupervisionEnd>((resolve) => (settle = resolve));
  const end = (outcome: SupervisionEnd) => {
    killTimer?.cancel();
    settle(outcome);
  };

  const launch = () => {
    const startedAt = clock.now();
    const child = options.start();
    current = child;
    child.onReady(() => {
      if (everReady && diedAt !== undefined)
        log.info(`the controller is back (pid ${child.pid}), ${((clock.now() - diedAt) / 1000).toFixed(1)} s after it died`);
      everReady = true;
      diedAt = undefined;
    });
    child.onExit((exit) => exited(child, startedAt, exit));
  };

  const exited = (child: ControllerProcess, startedAt: number, exit: ControllerExit) => {
    if (current === child) current = undefined;
    if (stopping) return end({ kind: 'stopped' });
    if (exit.code === 0) {
      log.info(`the controller (pid ${child.pid}) stopped cleanly; it is not restarted`);
      return end({ kind: 'stopped' });
    }
    if (!everReady) return end({ kind: 'failed-to-start', exit });
    diedAt ??= clock.now();
    quickDeaths = quickDeathsAfter(quickDeaths, clock.now() - startedAt, policy);
    if (quickDeaths >= policy.giveUpAfterQuickDeaths) {
      log.error(
        `the controller (pid ${child.pid}) stopped unexpectedly (${describeExit(exit)}): ${quickDeaths} times in a row, ` +
          `each within ${policy.stableRunMs / 1000} s of starting; it is not restarted again. Its log is ${options.logPath}; ` +
          `once the cause is fixed, start it again with "${options.restartCommand}"`,
      );
      return end({ kind: 'gave-up', quickDeaths });
    }
    const delay = restartDelayMs(quickDeaths, policy);
    log.error(
      `the controller (pid ${child.pid}) stopped unexpectedly (${describeExit(exit)}); restarting it ` +
        `${delay === 0 ? 'now' : `in ${delay / 1000} s`} on the same data`,
      { quickDeaths },
    );
    pendingRestart = clock.after(delay, () => {
      pendingRestart = undefined;
      if (!stopping) launch();
    });
  };

  launch();
  return {
    pid: () => current?.pid,
    ended,
    stop() {
      if (stopping) return ended;
      stopping = true;
      pendingRestart?.cancel();
      const running = current;
      if (!running) {
        end({ kind: 'stopped' });
        return ended;
      }
      running.kill('SIGTERM');
      killTimer = clock.after(policy.stopGraceMs, () => {
        log.error(`the controller (pid ${running.pid}) did not stop within ${policy.stopGraceMs / 1000} s; killing it`);
        running.kill('SIGKILL');
      });
      return ended;
    },
  };
}
