// A plan is what an operation decided to change, in the domain's terms, together with the facts
// it relied on (`expect`). The state layer turns one plan into one TransactWriteItems whose
// conditions are exactly those facts (shared/state/engine/commit.ts), so plans stay pure and testable.
import type { Application, Relation } from './entities.js';
import type { Life } from './life.js';
import { scopeShardOf, scopeShardsOfMember, unitShardOf } from './shards.js';

export type EntityRef =
  | { kind: 'model' }
  /**
   * A model's name on the controller (shared/domain/models.ts): the one item outside every model,
   * which keeps the name unique while the model exists and says where its items are.
   */
  | { kind: 'modelName'; name: string }
  /** The controller's model defaults (shared/domain/model-defaults.ts): one item outside every model. */
  | { kind: 'modelDefaults' }
  | { kind: 'application'; name: string }
  | { kind: 'unit'; name: string }
  | { kind: 'machine'; id: string }
  | { kind: 'relation'; key: string }
  /** `shard`: which of the relation's scope partitions (absent: the relation's own partition). */
  | { kind: 'scope'; relation: string; unit: string; shard?: number }
  | { kind: 'settings'; relationId: number; unit: string }
  | { kind: 'sequence'; name: string }
  | { kind: 'cleanup'; id: string }
  /** One entry of an entity's status history (`show-status-log`). */
  | { kind: 'statusLog'; entity: string; at: string; type: string }
  /** When a machine's agent was last seen on the agent API (shared/domain/presence.ts). */
  | { kind: 'presence'; machine: string }
  /** An operation (`drover run`, `drover exec`) and the tasks it made, one per unit (shared/domain/operations.ts). */
  | { kind: 'operation'; id: string }
  | { kind: 'task'; id: string }
  /** A unit's charm state (state-get/state-set), kept apart from the unit item the agents watch. */
  | { kind: 'unitState'; unit: string }
  /** An application's leadership lease (shared/domain/leadership.ts). */
  | { kind: 'lease'; application: string }
  /** An application's leader settings (leader-set / leader-get). */
  | { kind: 'leaderSettings'; application: string }
  /** An application's data bag in one relation (relation-set --app), written by its leader. */
  | { kind: 'appSettings'; relationId: number; application: string }
  /**
   * The model's revision: a counter the \`changes\` function moves after each stream batch that
   * changed the model, for readers that only ask "changed since?" (shared/state/operations/model-revision.ts).
   */
  | { kind: 'modelRevision' }
  /**
   * An offer of an application's endpoints (shared/domain/cross-model.ts). `model` is the key of
   * the offering model, always given: a consuming model's transaction asserts and updates it too.
   */
  | { kind: 'offer'; model: string; name: string }
  /** A remote application (Juju's SAAS): an offer consumed into this model. */
  | { kind: 'remoteApplication'; name: string }
  /** A secret's metadata and grants (shared/domain/secrets.ts); its revisions and consumers share its partition. */
  | { kind: 'secret'; id: string }
  | { kind: 'secretRevision'; id: string; revision: number }
  | { kind: 'secretConsumer'; id: string; unit: string }
  /** An owner's label (or a user secret's name, or a consumer's label): unique per owner, names the secret. */
  | { kind: 'secretLabel'; owner: string; label: string }
  /** A storage instance (shared/domain/storage.ts): `data/0`. */
  | { kind: 'storage'; id: string }
  /** A storage instance's attachment to a unit, in the unit's partition. */
  | { kind: 'storageAttachment'; storage: string; unit: string };

export type Scalar = string | number | boolean;

/** Facts about an existing item that must still hold when the transaction commits. */
export interface Expect {
  life?: Life | Life[];
  /** A dotted name (`agentStatus.current`) addresses a nested attribute. */
  equals?: Record<string, Scalar>;
  /** Attributes that must be absent. */
  absent?: string[];
  /** Set attributes that must contain the value (every one of the values). */
  contains?: Record<string, string | string[]>;
  /** Set attributes that must not contain the value. */
  lacks?: Record<string, string>;
  /** Exact size of a set attribute (0: absent, as DynamoDB drops empty sets). */
  setSize?: Record<string, number>;
  /**
   * Lower bounds of number attributes. Where a plan's decision rests only on a count being at
   * least so much ("not the last unit"), asserting the bound instead of the value read lets
   * concurrent increments and decrements that keep it true commit without cancelling each other.
   */
  atLeast?: Record<string, number>;
}

/**
 * Where a change's item lives: absent, in the model of the store the plan is committed through;
 * given, in the model with that key. Every model of a controller is in one table, so a rule across
 * two models (a relation with a consumed offer, shared/domain/plans/cross-model-relation.ts) is
 * still one transaction.
 */
export interface InModel {
  model?: string;
}

export type Change = InModel &
  /** `shard`: where a unit is listed among its application's unit partitions (shared/domain/shards.ts). */
  (
    | { op: 'create'; ref: EntityRef; value: Record<string, unknown>; shard?: number }
    /** Create or replace, whatever is there: only for items no rule depends on (settings). */
    | { op: 'put'; ref: EntityRef; value: Record<string, unknown> }
    | {
        op: 'update';
        ref: EntityRef;
        set?: Record<string, unknown>;
        unset?: string[];
        add?: Record<string, number>;
        addToSet?: Record<string, string[]>;
        removeFromSet?: Record<string, string[]>;
        /**
         * Put the entity in (or take it out of) the watchdog's stuck index. Setting life to Dying
         * or Dead marks it by itself; machines mark provisioning errors explicitly.
         */
        stuck?: 'mark' | 'clear';
        expect?: Expect;
      }
    | { op: 'remove'; ref: EntityRef; expect?: Expect }
    | { op: 'check'; ref: EntityRef; expect: Expect }
    /** The item must not exist: a name two kinds of item share (an application and a remote application). */
    | { op: 'absent'; ref: EntityRef }
  );

/** The changes, each of an item of the model with key `model` (see InModel) unless it names its own. */
export const inModel = (model: string, changes: Change[]): Change[] => changes.map((c) => ({ ...c, model: c.model ?? model }));

export interface Plan<T> {
  changes: Change[];
  result: T;
}

/** The change that creates a unit, listed where its application's layout says (shared/domain/shards.ts). */
export function createUnit(application: Pick<Application, 'unitShards'>, name: string, value: Record<string, unknown>): Change {
  const shard = unitShardOf(application, name);
  return { op: 'create', ref: refs.unit(name), value, ...(shard !== undefined ? { shard } : {}) };
}

const scopeRef = (relation: string, unit: string, shard: number | undefined): EntityRef => ({
  kind: 'scope',
  relation,
  unit,
  ...(shard !== undefined ? { shard } : {}),
});

/**
 * Every key an existing scope member may have, as its relation's layout grew (scopeShardsOfMember,
 * shared/domain/shards.ts): read them together, and the one found is where it is.
 */
export const scopeMemberRefs = (relation: Pick<Relation, 'key' | 'scopeShards'>, unit: string): EntityRef[] =>
  scopeShardsOfMember(relation, unit).map((shard) => scopeRef(relation.key, unit, shard));

/** A plan that changes nothing: the operation is already done, or a no-op. */
export const done = <T>(result: T): Plan<T> => ({ changes: [], result });

export const refs = {
  model: (): EntityRef => ({ kind: 'model' }),
  modelName: (name: string): EntityRef => ({ kind: 'modelName', name }),
  modelDefaults: (): EntityRef => ({ kind: 'modelDefaults' }),
  application: (name: string): EntityRef => ({ kind: 'application', name }),
  unit: (name: string): EntityRef => ({ kind: 'unit', name }),
  machine: (id: string): EntityRef => ({ kind: 'machine', id }),
  relation: (key: string): EntityRef => ({ kind: 'relation', key }),
  /**
   * A scope member entering now, where its relation's current layout puts it (shared/domain/shards.ts).
   * One already in scope may be elsewhere: find it with scopeMemberRefs.
   */
  scope: (relation: Pick<Relation, 'key' | 'scopeShards'>, unit: string): EntityRef =>
    scopeRef(relation.key, unit, scopeShardOf(relation, unit)),
  settings: (relationId: number, unit: string): EntityRef => ({ kind: 'settings', relationId, unit }),
  sequence: (name: string): EntityRef => ({ kind: 'sequence', name }),
  cleanup: (id: string): EntityRef => ({ kind: 'cleanup', id }),
  statusLog: (entity: string, at: string, type: string): EntityRef => ({ kind: 'statusLog', entity, at, type }),
  presence: (machine: string): EntityRef => ({ kind: 'presence', machine }),
  operation: (id: string): EntityRef => ({ kind: 'operation', id }),
  task: (id: string): EntityRef => ({ kind: 'task', id }),
  unitState: (unit: string): EntityRef => ({ kind: 'unitState', unit }),
  lease: (application: string): EntityRef => ({ kind: 'lease', application }),
  leaderSettings: (application: string): EntityRef => ({ kind: 'leaderSettings', application }),
  appSettings: (relationId: number, application: string): EntityRef => ({ kind: 'appSettings', relationId, application }),
  modelRevision: (): EntityRef => ({ kind: 'modelRevision' }),
  offer: (model: string, name: string): EntityRef => ({ kind: 'offer', model, name }),
  remoteApplication: (name: string): EntityRef => ({ kind: 'remoteApplication', name }),
  secret: (id: string): EntityRef => ({ kind: 'secret', id }),
  secretRevision: (id: string, revision: number): EntityRef => ({ kind: 'secretRevision', id, revision }),
  secretConsumer: (id: string, unit: string): EntityRef => ({ kind: 'secretConsumer', id, unit }),
  secretLabel: (owner: string, label: string): EntityRef => ({ kind: 'secretLabel', owner, label }),
  storage: (id: string): EntityRef => ({ kind: 'storage', id }),
  storageAttachment: (storage: string, unit: string): EntityRef => ({ kind: 'storageAttachment', storage, unit }),
};

export const refName = (ref: EntityRef): string => {
  switch (ref.kind) {
    case 'model':
      return 'model';
    case 'modelName':
      return `model name ${ref.name}`;
    case 'modelDefaults':
      return 'model defaults';
    case 'application':
      return `application ${ref.name}`;
    case 'unit':
      return `unit ${ref.name}`;
    case 'machine':
      return `machine ${ref.id}`;
    case 'relation':
      return `relation ${ref.key}`;
    case 'scope':
      return `scope ${ref.relation} ${ref.unit}`;
    case 'settings':
      return `settings ${ref.relationId} ${ref.unit}`;
    case 'sequence':
      return `sequence ${ref.name}`;
    case 'cleanup':
      return `cleanup ${ref.id}`;
    case 'statusLog':
      return `status log ${ref.entity} ${ref.at}`;
    case 'presence':
      return `presence of machine ${ref.machine}`;
    case 'operation':
      return `operation ${ref.id}`;
    case 'task':
      return `task ${ref.id}`;
    case 'unitState':
      return `state of unit ${ref.unit}`;
    case 'lease':
      return `leadership lease of ${ref.application}`;
    case 'leaderSettings':
      return `leader settings of ${ref.application}`;
    case 'appSettings':
      return `application settings ${ref.relationId} ${ref.application}`;
    case 'modelRevision':
      return 'model revision';
    case 'offer':
      return `offer ${ref.name}`;
    case 'remoteApplication':
      return `remote application ${ref.name}`;
    case 'secret':
      return `secret ${ref.id}`;
    case 'secretRevision':
      return `secret ${ref.id} revision ${ref.revision}`;
    case 'secretConsumer':
      return `secret ${ref.id} consumer ${ref.unit}`;
    case 'secretLabel':
      return `secret label ${ref.owner} ${ref.label}`;
    case 'storage':
      return `storage ${ref.id}`;
    case 'storageAttachment':
      return `storage attachment ${ref.storage} ${ref.unit}`;
  }
};
