// What one hook's or task's context is made from (./hook-context.ts): the hook, the unit's view
// of state, and the agent's services the context's tools reach.
import type { ConfigValue } from '#shared/domain/entities.js';
import type { LeadershipView } from '#shared/domain/leadership.js';
import type { LogLevel } from '#shared/logs/log-sink.js';
import type { AgentApi } from '../api-client.js';
import type { ActionToolContext, NetworkInfo, ToolRelation, ToolStorage, WorkloadStatus } from '../hook-tools/tool-context.js';
import type { LeadershipTracker } from './leadership.js';
import type { ResourceFetcher } from './resource-files.js';
import type { UnitReporter } from './unit-reporter.js';

export interface HookContextInit {
  id: string;
  unitName: string;
  /** JUJU_MODEL_UUID, for relation-model-get; empty when the controller gave none. */
  modelUuid: string;
  hookRelationId?: number;
  remoteUnit?: string;
  remoteApplication?: string;
  api: AgentApi;
  /** The unit's status writer: status-set goes through it, in order with the agent's own. */
  status: UnitReporter;
  log: (level: LogLevel, message: string) => void;
  relations: ToolRelation[];
  /** Remote units per relation id, as the hook sees them. */
  members: Record<number, string[]>;
  config: { values: Record<string, ConfigValue>; options: string[] };
  addresses: { private: string; public: string };
  workload: WorkloadStatus;
  /** Set when the context runs a task (an action, juju-exec) rather than a hook. */
  action?: ActionToolContext;
  /** The unit's open ports as state last said. */
  openPorts: string[];
  /** The charm's endpoint names (juju-info included): the bindings network-get knows. */
  bindings: string[];
  network: NetworkInfo;
  /** The unit's workload version as state last said: setting it again sends nothing. */
  workloadVersion?: string;
  /** The unit's lease as its agent knows it, and its application's leadership in the view. */
  leadership: { tracker: LeadershipTracker; view?: LeadershipView };
  /** The unit's storage attachments, and in a storage hook the hook's own (JUJU_STORAGE_ID). */
  storage?: { attachments: ToolStorage[]; hookStorageId?: string };
  /** resource-get's files (./resource-files.ts); absent: the context has none to offer. */
  resources?: ResourceFetcher;
}
