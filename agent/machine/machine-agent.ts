// The machine agent. Juju's "Lifecycles" document, section "Agents"
// (https://github.com/juju/juju/blob/b3f05534d8f712f5c14c82b9b967bc3c27804814/doc/lifecycles.txt;
// docs/lifecycle-rules.md lists its rules and tests): an MA whose machine has JobHostUnits is
// responsible for "detecting undeployed Alive principals assigned to it and deploying them;
// detecting undeployed non-Alive principals assigned to it and removing them; detecting deployed
// Dead principals assigned to it, recalling them, and removing them; detecting deployed principals
// not assigned to it, and recalling them; detecting its machine's Dying state, and setting it to
// Dead." It also hosts this machine's unit agents (in-process, supervised), their hook tools and
// the machine-wide hook lock, and reports its status (started; status shows it down when its
// heartbeat stops, agent/machine/heartbeat.ts).
//
// It learns of changes from its SQS queue and reads state only then (and at a periodic resync):
// docs/architecture.md, 'State is the truth; messages are hints'.
import { mkdirSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Unit } from '#shared/domain/entities.js';
import type { Hint } from '#shared/messaging/hint.js';
import { ensureMachineQueue } from '#shared/messaging/machine-queues.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { localAgentKeyId } from '#shared/api/agent-signing.js';
import { AgentApiError, createAgentApi, type AgentApi } from '../api-client.js';
import { nodeHttp, type HttpSend } from '../http.js';
import type { AgentConfig } from '../config.js';
import { installHookTools } from '../hook-tools/install-tools.js';
import { AgentLog } from '../log/agent-log.js';
import { MachineStorage } from '../storage/machine-storage.js';
import { Mutex, Signal } from '../signal.js';
import { killLeftoverHookGroups, recordHookGroupsIn, sandboxHookGroups, signalHookGroups } from '../uniter/hook-groups.js';
import type { HookRunner } from '../uniter/hook-process.js';
import { Uniter } from '../uniter/uniter.js';
import { UnitReporter } from '../uniter/unit-reporter.js';
import { ViewSource, viewRequest, type AgentView } from '../view.js';
import { AUTHORIZED_KEYS } from '#shared/domain/ssh-keys.js';
import { installAuthorizedKeys } from './authorized-keys.js';
import { applyDeployments } from './converge-deployments.js';
import { Deployer } from './deployer.js';
import { planDeployments } from './deployments.js';
import { Heartbeat, withHeartbeat } from './heartbeat.js';
import { HintReceiver } from './hint-receiver.js';
import { readSqsEndpoint, SQS_ENDPOINT_FILE_ENV } from './sqs-endpoint.js';
import { isDroverErrorCode } from './refusals.js';
import { systemClock, type Clock, type Timer } from '../clock.js';
import { isMarkedDead, markDead, takeAgentLock } from './single-instance.js';
import { UniterSupervisor } from './supervisor.js';
import { errorMessage } from '#shared/domain/errors.js';

export type MachineAgentOutcome = 'dead' | 'stopped' | 'refused';

export interface MachineAgentOptions {
  config: AgentConfig;
  /** agent/hook-tools/hook-tool.bash, wherever this agent was installed. */
  toolScript: string;
  api?: AgentApi;
  /** What sends the agent's HTTP (agent/http.ts): API requests and charm downloads. */
  http?: HttpSend;
  sqs?: SQSClient;
  /** Hooks in-process (the agent simulator, test/support/agent-simulator/); child processes when absent. */
  hookRunner?: HookRunner;
  /** Where log lines are echoed; this process's stdout when absent. */
  logEcho?: (line: string) => void;
  /** The agent's time: the system clock unless a test moves it (test/support/fake-clock.ts). */
  clock?: Clock;
}

const MODULE = 'juju.worker.machiner';
const MAX_RETRY_MS = 30_000;
/** How long the first view waits for the first receive of hints (a receive that does not wait). */
const FIRST_RECEIVE_WAIT_MS = 2_000;
/** After a hint, how long before the view is read, for the hints sent with it. */
const HINT_SETTLE_MS = 100;

/** The address hooks get when state has none: this host's first external IPv4 address. */
function hostAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

export class MachineAgent {
  readonly api: AgentApi;
  private readonly log: AgentLog;
  private readonly view: ViewSource;
  private readonly deployer: Deployer;
  private readonly supervisor: UniterSupervisor;
  /** Each deployed unit's reporter, kept across restarts of its unit agent (unit-reporter.ts says why). */
  private readonly reporters = new Map<string, UnitReporter>();
  private readonly hookLock = new Mutex();
  private readonly clock: Clock;
  private readonly wake: Signal;
  private readonly heartbeat: Heartbeat;
  private readonly machineStorage: MachineStorage;
  private hints?: HintReceiver;
  private sqs?: SQSClient;
  private resyncTimer?: Timer;
  private outcome?: MachineAgentOutcome;

  constructor(private readonly options: MachineAgentOptions) {
    const { config } = options;
    const http = options.http ?? nodeHttp();
    this.clock = options.clock ?? systemClock;
    this.wake = new Signal(this.clock);
    this.machineStorage = new MachineStorage(config.storage);
    this.heartbeat = new Heartbeat({
      clock: this.clock,
      intervalMs: config.heartbeatMs,
      send: async () => void (await this.api.call('heartbeat', {})),
      onError: (e) => this.heartbeatFailed(e),
    });
    this.api = withHeartbeat(
      options.api ??
        createAgentApi({
          url: config.apiUrl,
          model: config.model,
          machineId: config.machineId,
          // With a key (the local provider), the machine's own; without (EC2), the instance role's.
          credentials:
            config.credential !== undefined
              ? { accessKeyId: localAgentKeyId(config.machineId), secretAccessKey: config.credential }
              : defaultProvider(),
          region: config.region,
          http,
          clock: this.clock,
        }),
      this.heartbeat,
    );
    this.log = new AgentLog(config.machineId, this.api, options.logEcho, this.clock);
    this.view = new ViewSource(() => this.api.call<AgentView>('view', viewRequest(this.view.current)));
    this.supervisor = new UniterSupervisor((unit) => this.createUniter(unit), this.log, this.clock);
    this.deployer = new Deployer(
      config.machineDir,
      this.api,
      this.log,
      {
        start: (unit) => this.supervisor.start(unit),
        stop: async (unit) => {
          await this.supervisor.stop(unit);
          this.forgetReporter(unit);
        },
      },
      { offered: (sha256) => this.view.current?.charmDownloads?.[sha256], http },
      this.clock,
    );
    this.view.onChange(() => this.supervisor.forEach((u) => u.poke()));
  }

  /** SIGTERM: stop at once; a hook killed with the agent counts as failed when it comes back. */
  stop(): void {
    this.finish('stopped');
    // Hooks run in their own process groups (hook-groups.ts): the SIGTERM the agent's group got
    // does not reach them by itself.
    signalHookGroups('SIGTERM');
  }

  async run(): Promise<MachineAgentOutcome> {
    const { config } = this.options;
    mkdirSync(config.machineDir, { recursive: true, mode: 0o700 });
    if (isMarkedDead(config.machineDir)) {
      this.log.log(undefined, 'INFO', MODULE, `machine ${config.machineId} is dead; this agent will not run again`);
      return 'dead';
    }
    const releaseLock = takeAgentLock(config.machineDir);
    try {
      // Before any unit agent starts: hooks a killed agent left running would run on beside the
      // hooks this one runs again (hook-groups.ts).
      const hookGroups = join(config.machineDir, 'running-hooks');
      const leftovers = killLeftoverHookGroups(hookGroups);
      if (leftovers > 0)
        this.log.log(undefined, 'WARNING', MODULE, `killed ${leftovers} hook process group(s) left running by a previous agent`);
      recordHookGroupsIn(hookGroups);
      if (config.hookSandbox) sandboxHookGroups(config.hookSandbox, config.machineDir);
      installHookTools(join(config.machineDir, 'tools'), this.options.toolScript);
      // Not awaited: the first view is read meanwhile, and a refused credential shows there too.
      void this.api.call('set-machine-status', { status: { current: 'started' } }).catch((e: unknown) => {
        this.log.log(undefined, 'WARNING', MODULE, `cannot report the machine started: ${errorMessage(e)}`);
      });
      this.log.log(undefined, 'INFO', MODULE, `machine agent for machine ${config.machineId} started`);
      // Unit agents of units deployed before a restart start again at once.
      for (const record of this.deployer.list()) this.supervisor.start(record.unit);
      this.startHints();
      this.scheduleResync();
      this.heartbeat.start();
      await this.mainLoop();
      return this.outcome ?? 'stopped';
    } finally {
      this.heartbeat.stop();
      this.resyncTimer?.cancel();
      await this.hints?.stop();
      await this.supervisor.stopAll({ shutdown: this.outcome === 'stopped' });
      for (const reporter of this.reporters.values()) reporter.close();
      await this.log.close();
      this.sqs?.destroy();
      releaseLock();
    }
  }

  private finish(outcome: MachineAgentOutcome): void {
    this.outcome ??= outcome;
    this.wake.notify();
  }

  private refused(e: AgentApiError): MachineAgentOutcome {
    // The credential no longer works: the machine was removed, or provisioned again with a new one.
    this.log.log(undefined, 'ERROR', MODULE, `the controller refused this agent's credential (${e.message}); stopping`);
    this.outcome = 'refused';
    return 'refused';
  }

  private heartbeatFailed(e: unknown): void {
    if (e instanceof AgentApiError && e.code === 'unauthorized') {
      // An idle agent learns here that its machine is gone: stop as the main loop would.
      this.refused(e);
      this.wake.notify();
      return;
    }
    this.log.log(undefined, 'WARNING', MODULE, `cannot send a heartbeat: ${errorMessage(e)}; trying again soon`);
  }

  private async mainLoop(): Promise<void> {
    // The hints queued before this agent started are covered by its first view, read after them.
    if (this.hints) await Promise.race([this.hints.ready, this.clock.sleep(FIRST_RECEIVE_WAIT_MS)]);
    let retryMs = 0;
    while (!this.outcome) {
      try {
        // Every wake-up so far is covered by the view converge() reads first, which starts after
        // this: a hint that came in meanwhile costs no second read.
        this.wake.clear();
        await this.converge();
        retryMs = 0;
        await this.wake.wait();
        // Hints come in bursts (one change's unit and machine records, sent apart): a moment's
        // wait lets the rest of the burst share the read.
        await this.clock.sleep(HINT_SETTLE_MS);
      } catch (e) {
        if (e instanceof AgentApiError && e.code === 'unauthorized') {
          this.refused(e);
          return;
        }
        retryMs = Math.min(MAX_RETRY_MS, Math.max(1_000, retryMs * 2));
        this.log.log(undefined, 'WARNING', MODULE, `cannot converge: ${errorMessage(e)}; retrying in ${retryMs} ms`);
        await this.wake.wait(retryMs);
      }
    }
  }

  private async converge(): Promise<void> {
    const view = await this.view.refresh();
    if (this.outcome) return;
    const { machine } = view;
    if (machine.life !== 'alive') {
      if (machine.life === 'dying') {
        try {
          await this.api.call('machine-dead', {});
        } catch (e) {
          // Still has principals (it cannot be Dying with them today): look again on the next hint.
          if (isDroverErrorCode(e, 'has-assignments')) {
            this.log.log(undefined, 'WARNING', MODULE, `cannot set machine dead yet: ${errorMessage(e)}`);
            return;
          }
          throw e;
        }
      }
      this.log.log(undefined, 'INFO', MODULE, `machine ${machine.id} is dead; the agent stops for good`);
      markDead(this.options.config.machineDir, this.clock);
      this.finish('dead');
      return;
    }
    this.installSshKeys(view.modelConfig?.[AUTHORIZED_KEYS]);
    const principals = view.units.filter((u) => u.principal === undefined);
    const deployed = this.deployer
      .list()
      .filter((r) => r.principal === undefined)
      .map((r) => r.unit);
    const changed = await applyDeployments(planDeployments(principals, deployed), view, {
      api: this.api,
      deployer: this.deployer,
      log: this.log,
    });
    if (changed) this.wake.notify();
  }

  /** The model's SSH keys into the machine's authorized_keys; a failure is logged and tried again on the next view. */
  private installSshKeys(keys: string | undefined): void {
    try {
      if (installAuthorizedKeys(this.options.config.authorizedKeysFile, keys)) {
        this.log.log(undefined, 'INFO', 'juju.worker.authenticationworker', 'updated the ssh authorised keys of the machine');
      }
    } catch (e) {
      this.log.log(undefined, 'WARNING', 'juju.worker.authenticationworker', `cannot update the ssh authorised keys: ${errorMessage(e)}`);
    }
  }

  /** A principal's unit agent deploys its subordinates: "detecting undeployed Alive subordinates and deploying them", and so on. */
  private async reconcileSubordinates(principal: Unit, view: AgentView): Promise<boolean> {
    const subordinates = view.units.filter((u) => u.principal === principal.name);
    const deployed = this.deployer
      .list()
      .filter((r) => r.principal === principal.name)
      .map((r) => r.unit);
    const actions = planDeployments(subordinates, deployed);
    if (actions.length === 0) return false;
    const changed = await applyDeployments(actions, view, { api: this.api, deployer: this.deployer, log: this.log });
    if (changed) await this.view.refresh();
    return changed;
  }

  private reporterOf(unit: string): UnitReporter {
    let reporter = this.reporters.get(unit);
    if (!reporter) {
      reporter = new UnitReporter(this.api, unit, this.log, this.clock);
      this.reporters.set(unit, reporter);
      this.log.carry(unit, reporter);
    }
    return reporter;
  }

  /** The unit is recalled: its lines left (if any) go by `log`. */
  private forgetReporter(unit: string): void {
    this.reporters.get(unit)?.close();
    this.reporters.delete(unit);
    this.log.uncarry(unit);
  }

  private createUniter(unit: string): Uniter {
    const { config } = this.options;
    const deployedCharmUrl = this.deployer.record(unit)?.charmUrl;
    return new Uniter({
      unitName: unit,
      machineId: config.machineId,
      unitDir: this.deployer.unitDir(unit),
      api: this.api,
      log: this.log,
      view: this.view,
      hookLock: this.hookLock,
      toolsDir: join(config.machineDir, 'tools'),
      apiAddresses: [new URL(config.apiUrl).host],
      hostAddress: process.env.DROVER_HOST_ADDRESS ?? hostAddress(),
      baseEnv: process.env,
      subordinates: { reconcile: (principal, view) => this.reconcileSubordinates(principal, view) },
      fetchCharm: this.deployer.charmArchive,
      reporter: this.reporterOf(unit),
      clock: this.clock,
      machineStorage: this.machineStorage,
      ...(this.options.hookRunner ? { hookRunner: this.options.hookRunner } : {}),
      ...(deployedCharmUrl !== undefined ? { deployedCharmUrl } : {}),
    });
  }

  private onHints(hints: Hint[]): void {
    for (const hint of hints) {
      if (hint.kind === 'relation') this.supervisor.forEach((u) => u.relationChanged(hint.id));
      else if (hint.kind === 'settings') {
        const [relationId, ...unit] = hint.id.split(':');
        this.supervisor.forEach((u) => u.settingsChanged(Number(relationId), unit.join(':')));
      } else if (hint.kind === 'secret') this.supervisor.forEach((u) => u.secretsChanged());
      else if (hint.kind === 'resync') {
        // Also sent when hints flow again after the controller was unreachable: the unit agents
        // that died of it meanwhile restart now.
        this.supervisor.retryNow();
        this.supervisor.forEach((u) => u.resync());
      }
    }
    this.wake.notify();
  }

  private startHints(): void {
    const { config } = this.options;
    if (!config.queueUrl) {
      this.log.log(undefined, 'WARNING', MODULE, 'no queue configured: changes are seen only at the periodic resync');
      return;
    }
    // Locally the SQS server is named explicitly: its queue URLs name a host that does not resolve.
    let endpoint = config.sqsEndpoint;
    const accessKeyId = config.sqsAccessKey;
    this.sqs =
      this.options.sqs ??
      createSqsClient({ region: config.region, ...(endpoint ? { endpoint } : {}), ...(accessKeyId ? { accessKeyId } : {}) });
    const endpointFile = process.env[SQS_ENDPOINT_FILE_ENV];
    this.hints = new HintReceiver({
      sqs: this.sqs,
      queueUrl: config.queueUrl,
      log: this.log,
      clock: this.clock,
      onHints: (hints) => this.onHints(hints),
      recreateQueue: (sqs) => ensureMachineQueue(sqs, config.controllerId, config.model, config.machineId),
      moved: () => {
        const now = readSqsEndpoint(endpointFile);
        if (!now || now === endpoint) return undefined;
        endpoint = now;
        this.sqs?.destroy();
        this.sqs = createSqsClient({ region: config.region, endpoint, ...(accessKeyId ? { accessKeyId } : {}) });
        return this.sqs;
      },
    });
    this.hints.start();
  }

  private scheduleResync(): void {
    const jitter = 0.8 + Math.random() * 0.4;
    this.resyncTimer = this.clock.after(this.options.config.resyncMs * jitter, () => {
      this.onHints([{ kind: 'resync', id: '' }]);
      this.scheduleResync();
    });
  }
}
