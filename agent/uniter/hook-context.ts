// The sandbox of one hook execution, as Juju's HookContext keeps it
// (https://github.com/juju/juju/blob/3.6/worker/uniter/runner/context/context.go):
// - Reads are stable: once the hook has read some data, it reads the same again until it
//   changes that data itself (relation-set), so every read is remembered for the hook's lifetime.
// - Writes land only if the hook succeeds: relation-set, open-port/close-port, state-set and
//   state-delete and leader-set are buffered, and flush() writes them in one request only after
//   the hook exited 0; a failing hook's changes are discarded and never seen by anyone. The
//   secret tools' changes are held too (pending-secrets.ts), and sent first.
// - status-set, application-version-set and juju-log apply whether the hook succeeds or not, as in
//   Juju. status-set and juju-log reach the controller with the unit's next report (within a
//   second: agent/uniter/unit-reporter.ts), where Juju sends each at once; status-get answers from
//   the hook's own status meanwhile.
import { checkSettingsSize } from '#shared/domain/item-size.js';
import { applySettingsChanges } from '#shared/domain/plans/relation-settings.js';
import { NOT_LEADER_WRITE } from '#shared/domain/plans/app-settings.js';
import { applyStateChanges, type StateChanges } from '#shared/domain/plans/unit-state.js';
import type { LogLevel } from '#shared/logs/log-sink.js';
import type {
  ActionToolContext,
  ApplicationStatusView,
  GoalState,
  SecretToolOperation,
  NetworkInfo,
  ToolContext,
  ToolRelation,
  ToolStorage,
  WorkloadStatus,
} from '../hook-tools/tool-context.js';
import { PortRequests } from './port-requests.js';
import { PendingSecrets } from './pending-secrets.js';
import { StorageRequests } from './storage-requests.js';
import { storageCalls } from '../storage/storage-api.js';
import type { HookContextInit } from './hook-context-init.js';
import { MAX_STATUS_MESSAGE } from '#shared/api/agent-requests.js';
import { applicationOfUnit } from '#shared/domain/names.js';

interface SettingsAnswer {
  settings: Record<string, string>;
}

export class HookContext implements ToolContext {
  readonly unitName: string;
  readonly modelUuid: string;
  readonly hookRelationId?: number;
  readonly remoteUnit?: string;
  readonly remoteApplication?: string;
  readonly hookStorageId?: string;
  readonly action?: ActionToolContext;
  /** True once the hook called status-set (even if it then failed: status is not rolled back). */
  statusWasSet = false;
  /** True once the hook called a secret tool: the unit's secret hooks may be due differently. */
  secretsTouched = false;
  private readonly reads = new Map<string, Promise<Record<string, string>>>();
  private readonly pendingSettings = new Map<number, Record<string, string>>();
  private readonly ports: PortRequests;
  private workload: WorkloadStatus;
  private readonly stateChanges: StateChanges = {};
  private stateRead?: Promise<Record<string, string>>;
  private workloadVersion?: string;
  /** Once is-leader said False in this hook it stays False (Juju's leadership context). */
  private minion = false;
  private leaderRead?: Promise<Record<string, string>>;
  private pendingLeaderSettings?: Record<string, string>;
  private readonly appReads = new Map<string, Promise<Record<string, string>>>();
  private readonly pendingAppSettings = new Map<number, Record<string, string>>();
  private readonly secrets: PendingSecrets;
  private readonly storageAdds = new StorageRequests();

  constructor(private readonly init: HookContextInit) {
    this.secrets = new PendingSecrets(init.api, init.unitName, () => this.isLeader());
    this.unitName = init.unitName;
    this.modelUuid = init.modelUuid;
    this.ports = new PortRequests(init.unitName, init.openPorts);
    if (init.hookRelationId !== undefined) this.hookRelationId = init.hookRelationId;
    if (init.remoteUnit !== undefined) this.remoteUnit = init.remoteUnit;
    if (init.remoteApplication !== undefined) this.remoteApplication = init.remoteApplication;
    if (init.action !== undefined) this.action = init.action;
    if (init.storage?.hookStorageId !== undefined) this.hookStorageId = init.storage.hookStorageId;
    this.workload = init.workload;
  }

  get id(): string {
    return this.init.id;
  }

  relations(): ToolRelation[] {
    return this.init.relations;
  }

  storageAttachments(): ToolStorage[] {
    return this.init.storage?.attachments ?? [];
  }

  addStorage(counts: Record<string, number>): void {
    this.storageAdds.add(counts);
  }

  relationUnits(relationId: number): string[] {
    return this.init.members[relationId] ?? [];
  }

  async readSettings(relationId: number, unit: string): Promise<Record<string, string>> {
    const key = `${relationId}\u0000${unit}`;
    let read = this.reads.get(key);
    if (!read) {
      read = this.init.api
        .call<SettingsAnswer>('read-settings', { unit: this.unitName, relationId, of: unit })
        .then((answer) => answer.settings);
      this.reads.set(key, read);
    }
    const settings = await read;
    // "A unit can see its own settings by calling relation-get - MYUNIT, this will include any
    // changes that have been made with relation-set."
    const pending = unit === this.unitName ? this.pendingSettings.get(relationId) : undefined;
    return pending ? applySettingsChanges(settings, pending) : { ...settings };
  }

  setSettings(relationId: number, changes: Record<string, string>): void {
    const pending = { ...this.pendingSettings.get(relationId), ...changes };
    // Refused at once, so relation-set fails and says why (the hook fails with that cause), rather
    // than the commit after a hook that exited 0. The controller checks again, with what is stored.
    checkSettingsSize(pending, `the settings of unit "${this.unitName}" in relation ${relationId}`);
    this.pendingSettings.set(relationId, pending);
  }

  config() {
    return this.init.config;
  }

  address(kind: 'private' | 'public'): string {
    return this.init.addresses[kind];
  }

  changePort(action: 'open' | 'close', range: string): void {
    this.ports.request(action, range);
  }

  openedPorts(): string[] {
    return this.ports.openRanges();
  }

  networkInfo(binding: string): NetworkInfo | undefined {
    return this.init.bindings.includes(binding) ? this.init.network : undefined;
  }

  resourcePath(name: string): Promise<string> {
    if (!this.init.resources) return Promise.reject(new Error(`resource "${name}" not found`));
    return this.init.resources(name);
  }

  secretCall<T>(op: SecretToolOperation, body: Record<string, unknown>): Promise<T> {
    this.secretsTouched = true;
    return this.secrets.call<T>(op, body);
  }

  goalState(): Promise<GoalState> {
    return this.init.api.call<GoalState>('goal-state', { unit: this.unitName });
  }

  /** The workload version this hook set, if it changed it. */
  get newWorkloadVersion(): string | undefined {
    return this.workloadVersion;
  }

  async setWorkloadVersion(version: string): Promise<void> {
    // Juju sets it at once, not with the hook's other changes (context.go SetUnitWorkloadVersion):
    // a hook that then fails keeps it. Setting the version the unit already has sends nothing.
    if (version === (this.workloadVersion ?? this.init.workloadVersion)) return;
    await this.init.api.call('commit-hook', { unit: this.unitName, settings: [], ports: [], workloadVersion: version });
    this.workloadVersion = version;
  }

  async charmState(): Promise<Record<string, string>> {
    // Read once, when the hook first asks (Juju loads charm state lazily too): a hook that never
    // calls state-get costs no request.
    this.stateRead ??= this.init.api.call<{ state: Record<string, string> }>('unit-state', { unit: this.unitName }).then((a) => a.state);
    return applyStateChanges(await this.stateRead, this.stateChanges);
  }

  setCharmState(changes: Record<string, string>): void {
    Object.assign(this.stateChanges, changes);
  }

  deleteCharmState(key: string): void {
    this.stateChanges[key] = null;
  }

  async setStatus(status: WorkloadStatus): Promise<void> {
    // Checked here, where the hook hears of it: the report that carries the status comes later.
    if (status.message.length > MAX_STATUS_MESSAGE)
      throw new Error(`status message too long: ${status.message.length} characters, at most ${MAX_STATUS_MESSAGE}`);
    // Sent with the unit's next report (within a second, or when the hook's burst ends).
    this.init.status.set({ workload: { current: status.status, ...(status.message ? { message: status.message } : {}) } });
    this.workload = status;
    this.statusWasSet = true;
  }

  status(): WorkloadStatus {
    return this.workload;
  }

  log(level: LogLevel, message: string): void {
    this.init.log(level, message);
  }

  private get application(): string {
    return applicationOfUnit(this.unitName);
  }

  async readAppSettings(relationId: number, application: string): Promise<Record<string, string>> {
    const key = `${relationId}\u0000${application}`;
    let read = this.appReads.get(key);
    if (!read) {
      read = this.init.api
        .call<SettingsAnswer>('read-app-settings', { unit: this.unitName, relationId, application })
        .then((answer) => answer.settings);
      this.appReads.set(key, read);
    }
    const settings = await read;
    // The leader sees its own application's bag with this hook's relation-set --app calls.
    const pending = application === this.application ? this.pendingAppSettings.get(relationId) : undefined;
    return pending ? applySettingsChanges(settings, pending) : { ...settings };
  }

  async setAppSettings(relationId: number, changes: Record<string, string>): Promise<void> {
    // jujuc/relation-set.go asks for leadership first, and refuses a minion in these words.
    if (!(await this.isLeader())) throw new Error(NOT_LEADER_WRITE);
    const pending = { ...this.pendingAppSettings.get(relationId), ...changes };
    checkSettingsSize(pending, `the settings of application "${this.application}" in relation ${relationId}`);
    this.pendingAppSettings.set(relationId, pending);
  }

  async setApplicationStatus(status: WorkloadStatus): Promise<void> {
    // context.go's SetApplicationStatus: leadership first, then the write (at once, like status-set).
    if (!(await this.isLeader())) throw new Error('this unit is not the leader');
    await this.init.api.call('set-application-status', {
      unit: this.unitName,
      status: { current: status.status, ...(status.message ? { message: status.message } : {}) },
    });
  }

  async applicationStatus(): Promise<ApplicationStatusView> {
    if (!(await this.isLeader())) throw new Error('this unit is not the leader');
    return this.init.api.call<ApplicationStatusView>('application-status', { unit: this.unitName });
  }

  async isLeader(): Promise<boolean> {
    if (this.minion) return false;
    const leader = await this.init.leadership.tracker.isLeader(this.init.leadership.view);
    if (!leader) this.minion = true;
    return leader;
  }

  async leaderSettings(): Promise<Record<string, string>> {
    this.leaderRead ??= this.init.api
      .call<{ settings: Record<string, string> }>('leader-settings', { unit: this.unitName })
      .then((answer) => answer.settings);
    const settings = await this.leaderRead;
    return this.pendingLeaderSettings ? applySettingsChanges(settings, this.pendingLeaderSettings) : { ...settings };
  }

  async setLeaderSettings(changes: Record<string, string>): Promise<void> {
    // Juju asks for leadership before it writes (context/leader.go): a minion is refused at once.
    if (!(await this.isLeader())) throw new Error('cannot write settings: not the leader');
    const pending = { ...this.pendingLeaderSettings, ...changes };
    checkSettingsSize(pending, `the leader settings of application "${this.application}"`);
    this.pendingLeaderSettings = pending;
  }

  /** Writes what the hook buffered, in one transaction, then its storage-add calls. Called only after it exited 0. */
  async flush(): Promise<{ appVersions?: Record<number, number> }> {
    const committed = await this.commit();
    await this.storageAdds.flush(storageCalls(this.init.api), this.unitName);
    return committed;
  }

  private async commit(): Promise<{ appVersions?: Record<number, number> }> {
    await this.secrets.flush();
    const stateChanged = Object.keys(this.stateChanges).length > 0;
    const ports = this.ports.changes();
    const nothing =
      this.pendingSettings.size === 0 &&
      ports.length === 0 &&
      !stateChanged &&
      !this.pendingLeaderSettings &&
      this.pendingAppSettings.size === 0;
    if (nothing) return {};
    return this.init.api.call<{ appVersions?: Record<number, number> }>('commit-hook', {
      unit: this.unitName,
      settings: [...this.pendingSettings].map(([relationId, changes]) => ({ relationId, changes })),
      ports,
      ...(stateChanged ? { charmState: this.stateChanges } : {}),
      ...(this.pendingLeaderSettings ? { leaderSettings: this.pendingLeaderSettings } : {}),
      ...(this.pendingAppSettings.size > 0
        ? { appSettings: [...this.pendingAppSettings].map(([relationId, changes]) => ({ relationId, changes })) }
        : {}),
    });
  }
}
