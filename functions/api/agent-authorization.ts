// Who may do what through the agent API: every route declares what its request touches, and
// authorize() checks all of it against the calling agent's machine before the route runs. With
// its credential an agent may read and change only its own machine and the units on it, and read
// what those units' hooks may see (docs/architecture.md, 'Agents are least-privileged'): a stolen
// or buggy agent cannot touch another machine's units.
//
// The rule is one, so it is written once: a route cannot run without the Authorized value that
// only authorize() makes, and test/integration/agent-authorization.test.ts calls every route of
// the table with another machine's unit, relation and task.
import type { AgentOperation, AgentRequestOf } from '#shared/api/agent-requests.js';
import type { Relation, Unit } from '#shared/domain/entities.js';
import { DroverError } from '#shared/domain/errors.js';
import type { Task } from '#shared/domain/operations.js';
import type { SecretMetadata } from '#shared/domain/secrets.js';
import { getTask } from '#shared/state/queries/action-tasks.js';
import { secretForUnit } from '#shared/state/queries/secrets.js';
import { getApplication, getRelation } from '#shared/state/engine/reads.js';
import { listRelations, relationsOf } from '#shared/state/queries/relation-reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { ItemsRead } from './agent-read-ahead.js';

/**
 * What one route's request touches. Every route declares at least one of these:
 * - `machine: 'caller'`: the caller's own machine and nothing else; its request names no entity.
 * - `unit`: the unit the request acts for; it must be on the caller's machine (principals and
 *   subordinates both carry `machine`). A route whose unit is optional (log) acts for the machine
 *   when it names none.
 * - `relations`: relations named by key or id; each must have the unit's application among its
 *   endpoints (a hook sees only the relations its unit is in). Needs `unit`.
 * - `task`: an action task; it must be the unit's own. Needs `unit`.
 * - `charm`: a charm archive (its sha256); it must be the unit's application's. Needs `unit`.
 * - `secret`: a secret by URI or label, and the access the route needs: the unit (or its
 *   application) must own it, or have been granted it for `view` (secretForUnit,
 *   shared/state/queries/secrets.ts, the one rule). Needs `unit`.
 * A relation or task that does not exist belongs to no other machine: the route decides what
 * that means (a removed relation's members are none; an expired task is skipped).
 */
export interface Touches<B> {
  machine?: 'caller';
  unit?: (body: B) => string | undefined;
  relations?: (body: B) => (string | number)[];
  task?: (body: B) => string;
  charm?: (body: B) => string;
  secret?: (body: B) => { ref: string; needs: 'view' | 'manage' } | undefined;
}

/** What authorize() found, for the route to use: it has already been checked. */
export interface Owned {
  /** The unit named, when the route declares one and the request names it. */
  unit?: Unit;
  /** The relations named that exist, by the key or id the request used. */
  relations: Map<string | number, Relation>;
  /** The task named, when it exists. */
  task?: Task;
  /** The secret named, which the unit may use as the route declared. */
  secret?: SecretMetadata;
}

declare const authorized: unique symbol;
/** Proof that authorize() passed for this request; nothing else can make one. */
export type Authorized = Owned & { readonly [authorized]: true };

export const forbidden = (what: string) => new DroverError('unauthorized', `permission denied: ${what} is not on this agent's machine`);

/** The names of what a declaration covers, for the table-driven test and for refusing empty declarations. */
export function declaredKinds(touches: Touches<never>): ('machine' | 'unit' | 'relations' | 'task' | 'charm' | 'secret')[] {
  return (['machine', 'unit', 'relations', 'task', 'charm', 'secret'] as const).filter((kind) => touches[kind] !== undefined);
}

/**
 * Relations named by id (keys are their address). A hook names its own unit's relations, so they
 * are looked for among its application's relations first: a few reads, whatever the model's size,
 * on a path every relation hook's commit takes. Only an id not among them (another application's,
 * or one removed since) costs a listing of the model's relations, to tell which.
 */
async function relationsById(store: Store, application: string, ids: number[]): Promise<Relation[]> {
  const app = await getApplication(store, application);
  const own = app ? await relationsOf(store, [app]) : [];
  const missing = ids.some((id) => !own.some((r) => r.id === id));
  return missing ? listRelations(store) : own;
}

/**
 * Checks everything `touches` says the request names against `machine` (the caller's, from its
 * credential). Throws `permission denied: ...` (403) at the first thing that is not the caller's.
 * The unit and the charm's application come from `reads` when they were read with the caller's
 * machine (agent-read-ahead.ts), and are read here otherwise.
 */
export async function authorize<O extends AgentOperation>(
  store: Store,
  machine: string,
  op: O,
  touches: Touches<AgentRequestOf<O>>,
  body: AgentRequestOf<O>,
  reads: ItemsRead = ItemsRead.none(store),
): Promise<Authorized> {
  // A route that declares nothing would run unchecked: refuse it rather than trust it.
  if (declaredKinds(touches as Touches<never>).length === 0) throw new Error(`agent route ${op} declares nothing it touches`);
  const owned: Owned = { relations: new Map() };
  const unitName = touches.unit?.(body);
  if (unitName !== undefined) {
    const unit = await reads.unit(unitName);
    if (!unit || unit.machine !== machine) throw forbidden(`unit "${unitName}"`);
    owned.unit = unit;
  }
  const named = touches.relations?.(body) ?? [];
  if (named.length > 0 && !owned.unit) throw new Error(`agent route ${op} names relations without the unit they are checked against`);
  const ids = named.filter((ref): ref is number => typeof ref === 'number');
  const byId = ids.length > 0 ? await relationsById(store, owned.unit!.application, ids) : [];
  for (const ref of new Set(named)) {
    const relation = typeof ref === 'number' ? byId.find((r) => r.id === ref) : await getRelation(store, ref);
    if (!relation) continue;
    if (!relation.endpoints.some((e) => e.application === owned.unit!.application))
      throw forbidden(typeof ref === 'number' ? `relation ${ref}` : `relation "${ref}"`);
    owned.relations.set(ref, relation);
  }
  const taskId = touches.task?.(body);
  if (taskId !== undefined) {
    if (!owned.unit) throw new Error(`agent route ${op} names a task without the unit it is checked against`);
    const task = await getTask(store, taskId);
    if (task && task.unit !== owned.unit.name) throw forbidden(`task ${taskId}`);
    if (task) owned.task = task;
  }
  const charm = touches.charm?.(body);
  if (charm !== undefined) {
    if (!owned.unit) throw new Error(`agent route ${op} names a charm without the unit it is checked against`);
    // The archive the unit's application uses now: an agent reads no other charm, not even one
    // it installed before an upgrade (it keeps its own copy).
    const application = await reads.application(owned.unit.application);
    if (application?.charmArchive !== charm) throw forbidden(`charm archive ${charm}`);
  }
  const secret = touches.secret?.(body);
  if (secret !== undefined) {
    if (!owned.unit) throw new Error(`agent route ${op} names a secret without the unit it is checked against`);
    owned.secret = (await secretForUnit(store, owned.unit.name, secret.ref, secret.needs)).secret;
  }
  return owned as Authorized;
}
