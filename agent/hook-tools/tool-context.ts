// What a hook tool may see and do: the hook's sandbox (agent/uniter/hook-context.ts implements
// it): within one hook the tools see a sandboxed view, reads remembered and writes buffered until
// the hook exits 0, as Juju's HookContext (https://github.com/juju/juju/blob/3.6/worker/uniter/runner/context/context.go).
import type { ConfigValue } from '#shared/domain/entities.js';
import type { LogLevel } from '#shared/logs/log-sink.js';
import type { agentSecretOperations } from '#shared/api/agent-secret-requests.js';

export interface ToolRelation {
  id: number;
  /** This unit's endpoint name: `db` in `db:3`. */
  endpoint: string;
  /** The application on the other side (this one, for a peer relation). */
  remoteApplication: string;
}

export interface WorkloadStatus {
  status: string;
  message: string;
}

/** What the action tools reach while an action (or juju-exec) runs (jujuc's action-* commands). */
export interface ActionToolContext {
  readonly name: string;
  /** The task's parameters, with the schema's defaults. */
  params(): Record<string, unknown>;
  /** action-set: each key path (`a.b.c`) set to its value, nesting maps as needed. */
  setResults(values: [path: string[], value: string][]): void;
  /** action-log: stored at once, so `drover show-task` shows it while the action runs. */
  log(message: string): Promise<void>;
  /** action-fail: the task ends failed with this message, whatever the exit status. */
  fail(message: string): void;
}

/** network-get's answer for one binding, in Juju's shape (apiserver params.NetworkInfoResult). */
export interface NetworkInfo {
  bindAddresses: { macAddress: string; interfaceName: string; addresses: { hostname: string; value: string; cidr: string }[] }[];
  egressSubnets: string[];
  ingressAddresses: string[];
}

/** One storage instance attached to the unit, as storage-list and storage-get see it. */
export interface ToolStorage {
  /** `data/0`. */
  id: string;
  kind: 'filesystem' | 'block';
  /** Where the agent attached it; absent until it has (Juju's "not provisioned"). */
  location?: string;
}

export type { GoalStateAnswer as GoalState, GoalStatus } from '#shared/domain/goal-state.js';
import type { GoalStateAnswer as GoalState } from '#shared/domain/goal-state.js';

export interface ToolContext {
  readonly unitName: string;
  /** The model's uuid (JUJU_MODEL_UUID; empty from a controller that predates it). */
  readonly modelUuid: string;
  /** Set only while an action runs; the action tools refuse to run without it. */
  readonly action?: ActionToolContext;
  /** In relation hooks: the hook's relation id, the default for -r. */
  readonly hookRelationId?: number;
  /** In relation hooks other than -broken: the remote unit, the default for relation-get. */
  readonly remoteUnit?: string;
  /** In relation hooks: the other side's application (JUJU_REMOTE_APP), the default for relation-get --app. */
  readonly remoteApplication?: string;
  /** In storage hooks: the hook's storage instance (JUJU_STORAGE_ID), the default for storage-get -s. */
  readonly hookStorageId?: string;
  /** The relations this unit has joined. */
  relations(): ToolRelation[];
  /** The storage attached to the unit, in id order (storage-list, storage-get). */
  storageAttachments(): ToolStorage[];
  /** storage-add: counts by storage name, added up over the hook's calls and added when the hook commits. */
  addStorage(counts: Record<string, number>): void;
  /** The remote units this unit knows in the relation, as relation-list prints them. */
  relationUnits(relationId: number): string[];
  /** A unit's settings; the first read is remembered for the rest of the hook. */
  readSettings(relationId: number, unit: string): Promise<Record<string, string>>;
  /** Buffered; written only if the hook exits 0. An empty value deletes the key. */
  setSettings(relationId: number, changes: Record<string, string>): void;
  config(): { values: Record<string, ConfigValue>; options: string[] };
  address(kind: 'private' | 'public'): string;
  /** Buffered like relation-set; throws Juju's refusal for a range overlapping, unequal, one open or requested. */
  changePort(action: 'open' | 'close', range: string): void;
  /** The unit's opened port ranges (canonical spelling), with this hook's own changes applied. */
  openedPorts(): string[];
  /** The unit's network for a binding (an endpoint of its charm); undefined for an unknown one. */
  networkInfo(binding: string): NetworkInfo | undefined;
  goalState(): Promise<GoalState>;
  /** application-version-set: buffered, committed with the hook. */
  /** Applied at once, as status-set is; the unit's current version sends nothing. */
  setWorkloadVersion(version: string): Promise<void>;
  /** The unit's charm state (state-get), with this hook's own changes applied. */
  charmState(): Promise<Record<string, string>>;
  /** state-set / state-delete: buffered like relation-set. */
  setCharmState(changes: Record<string, string>): void;
  deleteCharmState(key: string): void;
  /** Applied at once: a failing hook does not undo it (as in Juju: docs/juju-compat.md, "Other hook tools"). */
  setStatus(status: WorkloadStatus): Promise<void>;
  status(): WorkloadStatus;
  log(level: LogLevel, message: string): void;
  /** relation-get --app: an application's bag; its own application's only for the leader (or a peer relation). */
  readAppSettings(relationId: number, application: string): Promise<Record<string, string>>;
  /** relation-set --app: buffered; throws "cannot write relation settings" unless the unit leads. */
  setAppSettings(relationId: number, changes: Record<string, string>): Promise<void>;
  /** status-set --application: applied at once; throws "this unit is not the leader" for the others. */
  setApplicationStatus(status: WorkloadStatus): Promise<void>;
  /** status-get --application: the leader's view of its application's and units' statuses. */
  applicationStatus(): Promise<ApplicationStatusView>;
  /** is-leader: true promises leadership for 30 s more (shared/domain/leadership.ts). */
  isLeader(): Promise<boolean>;
  /** leader-get: the application's leader settings (with this hook's own leader-set calls). */
  leaderSettings(): Promise<Record<string, string>>;
  /** leader-set: buffered like relation-set; throws "cannot write settings: not the leader". */
  setLeaderSettings(changes: Record<string, string>): Promise<void>;
  /** resource-get: the local path of the resource's file, downloaded first if need be (agent/uniter/resource-files.ts). */
  resourcePath(name: string): Promise<string>;
  /**
   * The secret-* tools' one way to the controller: the agent API's secret operation for this unit
   * (shared/api/agent-secret-requests.ts). Applied at once, not with the hook: see docs/juju-compat.md, "Secrets".
   */
  secretCall<T>(op: SecretToolOperation, body: Record<string, unknown>): Promise<T>;
}

export type SecretToolOperation = keyof typeof agentSecretOperations;

export interface ApplicationStatusView {
  application: { status: string; message: string; data: Record<string, unknown> };
  units: { unit: string; status: string; message: string; data: Record<string, unknown> }[];
}

export interface ToolIO {
  /** The hook's working directory, as the tool process saw it. */
  cwd: string;
  /** Standard input, sent only by tools that read it (`relation-set --file -`, `state-set --file -`). */
  stdin?: string;
  /**
   * What the file named by `--file <path>` holds, read by the hook tool process itself: the agent
   * never opens a path a hook names, so a hook can make it read nothing the hook could not.
   */
  fileContent?: string;
  /** Filled by a tool given `-o <path>`: the tool process writes it (see ToolResult.file). */
  output?: ToolOutputFile;
  /** What a tool that succeeds writes to stderr besides (a deprecation warning). */
  stderr?: string;
}

export interface ToolOutputFile {
  /** As the hook gave it; a relative path is the hook's working directory's. */
  path: string;
  content: string;
}

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
  /**
   * `-o <path>`: written by the hook tool process, with the hook's own rights, never by the agent,
   * which could write wherever the agent can (docs/reliability.md, defect 10).
   */
  file?: ToolOutputFile;
}
