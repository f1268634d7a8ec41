// One real unit agent (agent/uniter/uniter.ts) in this process, on a fake clock: its API is a
// stub that records each request with the clock's time, its view is a fixed AgentView, and its
// hooks are recorded instead of spawned (or, given a charm, recorded and run for real, with the
// hook tools installed and served). For what only time drives (lease renewal, update-status,
// back-offs), tests move the clock instead of sleeping, and see the agent's requests and hooks.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentApi } from '../../agent/api-client.js';
import { AgentLog } from '../../agent/log/agent-log.js';
import { Mutex } from '../../agent/signal.js';
import { MachineStorage } from '../../agent/storage/machine-storage.js';
import { installHookTools } from '../../agent/hook-tools/install-tools.js';
import { runHookProcess, type HookRunner } from '../../agent/uniter/hook-process.js';
import { UnitReporter } from '../../agent/uniter/unit-reporter.js';
import { Uniter, type UniterOutcome } from '../../agent/uniter/uniter.js';
import { ViewSource, type AgentView } from '../../agent/view.js';
import { FakeClock } from './fake-clock.js';

const TOOL_SCRIPT = fileURLToPath(new URL('../../agent/hook-tools/hook-tool.bash', import.meta.url));

export interface RecordedCall {
  op: string;
  body: unknown;
  at: number;
}

export interface InProcessUniterOptions {
  unitName: string;
  /** What the agent's view reads, each time it reads. */
  view: () => AgentView;
  /** The API's answer to a request; undefined for the default (`{}`). */
  answer?: (op: string, body: unknown) => unknown;
  /** The charm URL the deployer unpacked (no upgrade step when it is the application's). */
  deployedCharmUrl?: string;
  clock?: FakeClock;
  /** A charm directory whose hooks run for real: copied to the unit's charm directory. */
  charm?: string;
  /** The machine directory of an agent that ran before (its unit's state.json): a restart. A new one unless given. */
  machineDir?: string;
  /** How the unit's storage is made ready; a local provider's, under a temporary machine directory, unless given. */
  machineStorage?: MachineStorage;
}

export interface RecordedHook {
  name: string;
  at: number;
  env: Record<string, string>;
}

export interface InProcessUniter {
  clock: FakeClock;
  uniter: Uniter;
  view: ViewSource;
  calls: RecordedCall[];
  /** Hooks run, by name, with the clock's time and the environment they ran with. */
  hooks: RecordedHook[];
  /** The temporary machine directory (its storage under `storage/`). */
  machineDir: string;
  stop(): Promise<UniterOutcome>;
}

export function startInProcessUniter(options: InProcessUniterOptions): InProcessUniter {
  const clock = options.clock ?? new FakeClock();
  const calls: RecordedCall[] = [];
  const hooks: RecordedHook[] = [];
  const api: AgentApi = {
    url: 'http://127.0.0.1:1',
    async call<T>(op: string, body: unknown): Promise<T> {
      calls.push({ op, body, at: clock.now() });
      if (op === 'view') return options.view() as T;
      return (options.answer?.(op, body) ?? {}) as T;
    },
  };
  const hookRunner: HookRunner = async (run) => {
    hooks.push({ name: run.dispatchPath.replace(/^hooks\//, ''), at: clock.now(), env: run.env });
    if (options.charm) return runHookProcess(run);
    return { kind: 'exited', code: 0, signal: null, via: 'hook dispatching script: dispatch' };
  };
  const log = new AgentLog('0', api, () => undefined, clock);
  const view = new ViewSource(() => api.call<AgentView>('view', {}));
  const reporter = new UnitReporter(api, options.unitName, log, clock);
  log.carry(options.unitName, reporter);
  const dir = options.machineDir ?? mkdtempSync(join(tmpdir(), 'drover-uniter-'));
  if (options.charm && !options.machineDir) {
    cpSync(options.charm, join(dir, 'unit', 'charm'), { recursive: true });
    installHookTools(join(dir, 'tools'), TOOL_SCRIPT);
  }
  const uniter = new Uniter({
    unitName: options.unitName,
    machineId: '0',
    unitDir: join(dir, 'unit'),
    api,
    log,
    view,
    hookLock: new Mutex(),
    toolsDir: join(dir, 'tools'),
    apiAddresses: ['127.0.0.1:1'],
    hostAddress: '127.0.0.1',
    baseEnv: {},
    fetchCharm: async () => {
      throw new Error('the in-process uniter has no charm archives');
    },
    reporter,
    clock,
    hookRunner,
    machineStorage: options.machineStorage ?? new MachineStorage({ dir: join(dir, 'storage'), provider: 'local' }),
    ...(options.deployedCharmUrl !== undefined ? { deployedCharmUrl: options.deployedCharmUrl } : {}),
  });
  const outcome = uniter.run();
  // An agent that dies (a test's stub throwing) says so when stopped, not as an unhandled rejection.
  outcome.catch(() => undefined);
  return {
    clock,
    uniter,
    view,
    calls,
    hooks,
    machineDir: dir,
    async stop() {
      uniter.stop();
      await clock.advance(0);
      const result = await outcome;
      reporter.close();
      await log.close();
      return result;
    },
  };
}
