// The entities of a model, as the domain sees them. The store keeps each as one item (see
// shared/state/engine/keys.ts); the sets (principals, subordinates, scopes, relations) are bounded by
// the number of applications, never by the number of units, so they fit in an item.
import type { CharmhubOrigin } from './charm-origin.js';
import type { Constraints } from './constraints.js';
import type { CharmMeta } from './charm.js';
import type { Life } from './life.js';
import type { RelationEndpoint } from './relation-endpoints.js';
import type { ApplicationResource } from './resources.js';
import type { StorageDirective } from './storage.js';

export type ConfigValue = string | number | boolean;

export interface StatusInfo {
  current: string;
  message?: string;
  since: string;
  /** Extra data, e.g. the hook that failed, or `transient: true` for provisioning errors. */
  data?: Record<string, string | number | boolean>;
}

export interface Model {
  name: string;
  /**
   * A random uuid, fixed at creation: hooks see it as JUJU_MODEL_UUID. Absent only on a model made
   * before drover stored one; ensureModel gives it one.
   */
  uuid?: string;
  life: Life;
  constraints: Constraints;
  defaultSeries: string;
  /** Bumped on every change of the model's constraints; add-unit asserts it. */
  constraintsVersion: number;
  /** `model-config` keys set explicitly (shared/domain/model-config.ts has the defaults). */
  config?: Record<string, string>;
  /** Bumped on every model-config change; absent until the first. */
  configVersion?: number;
  /**
   * destroy-model --force (shared/domain/plans/destroy-model.ts): the model's cleanup forces its
   * applications and machines out instead of waiting for their agents. Set once, never cleared.
   */
  force?: boolean;
  /**
   * destroy-model --destroy-storage or --release-storage: what becomes of its persistent storage.
   * `destroy`: its applications are destroyed with --destroy-storage. Set once, with Dying.
   */
  storageDisposal?: 'destroy' | 'release';
}

export interface Application {
  name: string;
  life: Life;
  series: string;
  subordinate: boolean;
  charmUrl: string;
  /** The charm store key of the charm's archive (sha256 of its bytes). */
  charmArchive?: string;
  /** Set for a charm deployed from Charmhub (./charm-origin.ts); absent: a local charm. */
  charmOrigin?: CharmhubOrigin;
  charm: CharmMeta;
  /**
   * The last charm upgrade was `--force-units`: units in a hook error state take the new charm
   * too (without running upgrade-charm). Units compare `charmUrl` with the charm they deployed.
   */
  forceUnits?: boolean;
  /**
   * The uploaded revision of each resource it uses (shared/domain/resources.ts); a declared
   * resource with none uploaded is absent.
   */
  resources?: Record<string, ApplicationResource>;
  /**
   * Juju's CharmModifiedVersion: bumped whenever a resource changes, so units run upgrade-charm
   * with the charm directory unchanged (absent: 0).
   */
  charmModifiedVersion?: number;
  /** It has owned a secret: its removal schedules their deletion (the `ownerSecrets` cleanup). */
  ownsSecrets?: boolean;
  /**
   * One directive per store of its charm (deploy --storage, with the charm's defaults): every new
   * unit gets that storage (shared/domain/storage.ts); absent: the charm declares none.
   */
  storage?: Record<string, StorageDirective>;
  /** remove-application --destroy-storage: its units' persistent storage is destroyed once detached. */
  destroyStorage?: boolean;
  constraints: Constraints;
  /** Bumped on every change of the application's constraints; add-unit asserts it. */
  constraintsVersion: number;
  config: Record<string, ConfigValue>;
  /** Bumped on every config change, so agents know to run config-changed. */
  configVersion: number;
  exposed: boolean;
  /**
   * `juju trust` / `deploy --trust`: Juju's application-config `trust`, which grants the charm
   * the model's cloud credential. drover hands out no credential (credential-get is refused), so
   * it is kept and shown; absent: not trusted.
   */
  trust?: boolean;
  /** death-and-destruction.txt's "unit count": units of this application that exist. */
  unitCount: number;
  /**
   * Units an `add-unit -n` asked for that are still being added in the background (an `addUnits`
   * cleanup document); status shows them in the application's scale.
   */
  pendingUnits?: number;
  /** Keys of the relations this application is in: the "relation count" is their number. */
  relations: string[];
  /** Names of the offers of its endpoints (shared/domain/cross-model.ts); it is not removed while any. */
  offers?: string[];
  /** Set by the leader (`status-set --application`); absent: status derives it from the units. */
  status?: StatusInfo;
  /**
   * How many index partitions list its units now: 1 at deploy, raised once it grows large, never
   * lowered (shared/domain/shards.ts); absent: deployed before sharding, its units are listed in
   * the one legacy partition.
   */
  unitShards?: number;
  createdAt: string;
}

export type ResolvedMode = 'retry-hooks' | 'no-hooks';

export interface Unit {
  name: string;
  application: string;
  /** It has owned a secret: its removal schedules their deletion (the `ownerSecrets` cleanup). */
  ownsSecrets?: boolean;
  series: string;
  life: Life;
  /** Set on subordinates: the principal unit that created them. */
  principal?: string;
  subordinates: string[];
  /** Set on principals once assigned. */
  machine?: string;
  /** The model's and application's constraints, collapsed when the unit was created. */
  constraints: Constraints;
  /** Keys of the relations whose scope this unit has entered. */
  scopes: string[];
  /** Ids of the storage instances attached to it (their attachments exist): it is not Dead while any. */
  storageAttachments?: string[];
  /** remove-unit --destroy-storage: its persistent storage is destroyed once detached, not kept. */
  destroyStorage?: boolean;
  agentStatus: StatusInfo;
  workloadStatus: StatusInfo;
  resolved?: ResolvedMode;
  /** The charm URL the unit's agent has deployed, as it reported it; status shows `upgrading-from` while it differs from the application's. */
  charmUrl?: string;
  openPorts: string[];
  /**
   * Ids of the unit's tasks (actions, exec) not yet finished, in the transaction that queues or
   * finishes them: the unit item changing is what hints its agent (shared/domain/operations.ts).
   */
  pendingTasks?: string[];
  /** application-version-set: the workload's version, and when the unit's hook set it. */
  workloadVersion?: string;
  workloadVersionSince?: string;
  privateAddress?: string;
  publicAddress?: string;
  /** The id of the last report its agent sent that the unit took (shared/domain/plans/unit-report.ts): a report sent again is not taken twice. */
  lastReport?: string;
  createdAt: string;
}

export interface Machine {
  id: string;
  life: Life;
  series: string;
  constraints: Constraints;
  /** Principal units assigned to this machine. */
  principals: string[];
  instanceId?: string;
  /** Counts provisioning attempts; part of the EC2 ClientToken so a retry never starts two. */
  provisioningAttempt: number;
  /**
   * Hash of the machine agent's credential (shared/state/operations/agent-credential.ts), set by the
   * provisioner for `agentCredentialAttempt` before it starts the instance; never the credential.
   */
  agentCredentialHash?: string;
  agentCredentialAttempt?: number;
  agentStatus: StatusInfo;
  instanceStatus: StatusInfo;
  hardware?: string;
  addresses: string[];
  createdAt: string;
}

export interface Relation {
  key: string;
  id: number;
  life: Life;
  endpoints: RelationEndpoint[];
  scope: 'global' | 'container';
  /** Units in scope: "a relation's unit count". */
  unitCount: number;
  /**
   * How many partitions hold its scope members now: 1 when it is added, raised once its scope
   * grows large, never lowered (shared/domain/shards.ts); absent: added before sharding, its
   * members live in the relation's own partition.
   */
  scopeShards?: number;
  /** A relation with an application of another model (integrate with a consumed offer). */
  crossModel?: CrossModelSide;
  createdAt: string;
}

/**
 * One model's side of a relation across two models. Each model keeps its own relation record
 * (its own key, id, scope and settings, so its units, agents and status see a relation like any
 * other); the two records are created, set Dying and counted in the same transactions
 * (shared/domain/plans/cross-model-relation.ts). The other side's units and bags are read from
 * the other record, named here.
 */
export interface CrossModelSide {
  /** The name the other side's application has in this model: the SAAS alias, or `remote-<hex>` in the offering model. */
  alias: string;
  /** The other model's key, its relation record's key and id, and its application's name there. */
  model: string;
  relation: string;
  relationId: number;
  application: string;
  /** The offer the relation goes through (the offering model's key is `model` or this one's). */
  offer: string;
  /** True on the offering model's side. */
  offering: boolean;
}

export interface ScopeMember {
  relation: string;
  unit: string;
  /**
   * The unit's machine, so that whoever must tell the scope's units (the notifier) lists their
   * machines in one Query. A unit never moves; absent on members written before it was kept.
   */
  machine?: string;
  /** Set once the unit is Dying: peers treat it as departed though it is still in scope. */
  departing?: boolean;
}

export interface RelationSettings {
  relationId: number;
  unit: string;
  settings: Record<string, string>;
  version: number;
}

export type CleanupKind =
  | 'units' // destroy the units of a Dying application, in batches
  | 'settings' // delete the unit settings of a removed relation, in batches
  | 'assignUnits' // assign units whose required relations are now satisfied
  | 'addUnits' // add the units of an add-unit -n too many for one call, in batches
  | 'forceDestroyUnit'
  | 'forceDestroyMachine'
  | 'forceDestroyApplication'
  | 'dyingSubordinates' // subordinates whose last Alive container relation went away
  | 'model' // destroy the applications and machines of a Dying model, then remove it
  | 'ownerSecrets'; // delete the secrets of a removed unit or application, a secret at a time

export interface Cleanup {
  id: string;
  kind: CleanupKind;
  /** The entity the cleanup is about: an application name, relation id, unit name, machine id. */
  target: string;
  /** Earliest time to run it (force fallbacks wait a little for the agents first). */
  notBefore?: string;
  createdAt: string;
  /** addUnits: the units still to add, counted down by the transactions that add them. */
  remaining?: number;
  /** addUnits: the application's incarnation (its creation time), so a new one of the name is left alone. */
  incarnation?: string;
}
