// The model property: random sequences of user operations and agent transitions, from several
// clients at once, never break the model's invariants (test/support/invariants.ts), and once
// everything is destroyed and every agent and cleanup has done its part, everything is removed
// (death-and-destruction.txt: an entity destroyed "its eventual removal is very likely").
//
// Each step is one operation or a concurrent pair (two clients; often on the same entity). The
// operations are the user's (deploy, add-unit, add-machine, relate, remove-relation, remove-unit,
// remove-application, remove-machine, and their --force) and the agents' as lifecycles.txt
// "Agents" describes them: a unit agent starts, enters the scopes of Alive relations, leaves
// those of Dying ones, sets itself Dying when its application is Dying (a subordinate also when
// nothing binds it to its principal), and once Dying leaves every scope and sets itself Dead; the
// deployer removes Dead units; a machine agent sets its Dying machine Dead; the provisioner
// records instances and removes Dead machines; the cleanup runner works its documents.
//
// Refusals (DroverError) are expected: random operations often ask for what is not allowed. Any
// other error fails the property, and so does any invariant broken after any step.
//
// Faults are part of a sequence: its processes are killed and restarted, or see transient
// failures, at generated points (test/support/property-faults.ts), and must still leave every
// invariant holding and everything removable.
//
// `npm test` runs DROVER_PROPERTY_RUNS sequences (default 200; fewer if a busy machine reaches
// the time budget first, but never fewer than DROVER_PROPERTY_MIN_RUNS, default 40);
// `npm run test:soak` runs 10,000, or as many as its time bound allows (test/support/soak.ts).
// A failure prints fast-check's seed and path; replay it with DROVER_PROPERTY_SEED=<seed>
// DROVER_PROPERTY_PATH=<path> npx vitest run test/integration/model-property.test.ts (the
// concurrent pairs interleave differently each time, so a replay may need a few tries).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Machine, Relation, Unit } from '#shared/domain/entities.js';
import { DroverError, errorStack } from '#shared/domain/errors.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { assignUnit } from '#shared/state/operations/assign-unit.js';
import { runAllCleanups, runCleanup, runCleanupBatch } from '#shared/state/operations/cleanup/run-cleanups.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyMachine } from '#shared/state/operations/destroy-machine.js';
import { destroyRelation } from '#shared/state/operations/destroy-relation.js';
import { destroyUnit, destroyUnitByAgent } from '#shared/state/operations/destroy-unit.js';
import { localCredentials } from '#shared/state/engine/local-credentials.js';
import { enterScope } from '#shared/state/operations/enter-scope.js';
import { forceDestroyApplication, forceDestroyMachine, forceDestroyUnit } from '#shared/state/operations/force.js';
import { leaveScope } from '#shared/state/operations/leave-scope.js';
import { ensureMachineDead } from '#shared/state/operations/machine-dead.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { recordInstance } from '#shared/state/operations/provisioning.js';
import { writeSettings } from '#shared/state/operations/relation-settings.js';
import { removeMachine } from '#shared/state/operations/remove-machine.js';
import { removeUnit } from '#shared/state/operations/remove-unit.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureSubordinateDying } from '#shared/state/operations/subordinate-dying.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { ensureUnitDead } from '#shared/state/operations/unit-dead.js';
import { charms } from '../support/charms.js';
import { checkInvariants, everythingRemoved, LifeHistory } from '../support/invariants.js';
import { SOAK, SOAK_MS, SOAK_SEQUENCES } from '../support/soak.js';
import { faultFigures, faultPlan, isInjected, LaneFaults, type PlannedFault } from '../support/property-faults.js';
import { deleteModel, indexState, readModelState, type ModelState } from '../support/model-state.js';
import { dynamoEndpoint } from '../support/dynamodb.js';

// ---------------------------------------------------------------------------------------------
// Run size

const REPLAY_SEED = process.env.DROVER_PROPERTY_SEED;
const REPLAY_PATH = process.env.DROVER_PROPERTY_PATH;
/** Sequences in all; split over lanes that run side by side, each sequence a model of its own. */
const NUM_RUNS = SOAK ? SOAK_SEQUENCES : Number(process.env.DROVER_PROPERTY_RUNS ?? 200);
const LANES = REPLAY_SEED ? 1 : Number(process.env.DROVER_PROPERTY_LANES ?? (SOAK ? 8 : 4));
/**
 * However slow the host, at least this many sequences run (all of them, if fewer are asked for):
 * the time budget below only stops the runs past it, so a loaded machine can never pass the test
 * on a handful of sequences.
 */
const MIN_RUNS = Math.min(NUM_RUNS, Number(process.env.DROVER_PROPERTY_MIN_RUNS ?? 40));
/**
 * Past MIN_RUNS, no sequence starts after this: a slow (or busy) machine runs fewer than NUM_RUNS
 * rather than time out, and the count run is printed.
 */
const TIME_BUDGET_MS = SOAK ? SOAK_MS : Number(process.env.DROVER_PROPERTY_BUDGET_MS ?? 45_000);
/** After a first failure, shrinking stops once this much time has gone (the best counterexample so far is reported). */
const SHRINK_BUDGET_MS = SOAK ? 300_000 : 60_000;
/** A sequence taking longer than this is reported as hanging. */
const SEQUENCE_TIMEOUT_MS = Number(process.env.DROVER_PROPERTY_SEQUENCE_TIMEOUT_MS ?? 120_000);
const TIMEOUT_MS = TIME_BUDGET_MS + SHRINK_BUDGET_MS + 3 * SEQUENCE_TIMEOUT_MS;
/** Sequences carry faults (property-faults.ts) unless DROVER_PROPERTY_FAULTS=0. */
const FAULTS = process.env.DROVER_PROPERTY_FAULTS !== '0';
/** Quiescence: rounds of every agent and cleanup doing its part, until nothing changes. */
const MAX_QUIESCENCE_ROUNDS = 40;

// ---------------------------------------------------------------------------------------------
// Operations, as data: targets are numbers that pick among what exists when the step runs, so a
// sequence stays meaningful while fast-check shrinks it.

const APPLICATIONS = ['mysql', 'wordpress', 'logging', 'riak', 'blog'] as const;
type ApplicationName = (typeof APPLICATIONS)[number];

/** relate arguments: most relate something, some are refused (no such relation, peer, series...). */
const RELATE_ARGS: string[][] = [
  ['wordpress', 'mysql'],
  ['blog', 'mysql'],
  ['wordpress', 'logging'],
  ['logging:info', 'wordpress'],
  ['mysql', 'logging'],
  ['blog', 'logging'],
  ['riak', 'logging'],
  ['blog:db', 'mysql:server'],
  ['riak', 'wordpress'],
  ['riak'],
  ['wordpress', 'blog'],
];

type Op =
  | { op: 'deploy'; app: number; units: number; focal: boolean; to?: number }
  | { op: 'addUnit'; app: number; count: number; to?: number }
  | { op: 'addMachine'; focal: boolean }
  | { op: 'relate'; args: number }
  | { op: 'destroyRelation'; relation: number; byId: boolean }
  | { op: 'destroyUnit'; unit: number }
  | { op: 'destroyApplication'; app: number }
  | { op: 'destroyMachine'; machine: number }
  | { op: 'forceDestroyUnit'; unit: number }
  | { op: 'forceDestroyMachine'; machine: number }
  | { op: 'forceDestroyApplication'; app: number }
  /** The assignUnits cleanup's work for one unit: a unit waiting for its required relations gets a machine. */
  | { op: 'assignUnit'; unit: number }
  /** The unit's agent (or, for a Dead unit, its deployer) does one of the things it would do next. */
  | { op: 'unitAgent'; unit: number; action: number }
  /** A unit of the relation's applications does what its agent would do about this relation. */
  | { op: 'scopeAgent'; relation: number; unit: number }
  /** The machine's agent, or the provisioner, does what it would do next. */
  | { op: 'machineAgent'; machine: number }
  | { op: 'cleanupBatch'; cleanup: number }
  | { op: 'cleanupAll' }
  /** Every agent takes its full turn, all at once: what drives a model forward between user commands. */
  | { op: 'agentsTurn' };

type Step = { single: Op } | { pair: [Op, Op] };

const pickNumber = fc.nat(63);

const deployOp = (app: fc.Arbitrary<number>, to: fc.Arbitrary<number | undefined>): fc.Arbitrary<Op> =>
  fc
    .record({ op: fc.constant('deploy' as const), app, units: fc.nat(2), focal: fc.boolean(), to })
    .map(({ to: t, ...rest }) => (t === undefined ? rest : { ...rest, to: t }));

const addUnitOp = (app: fc.Arbitrary<number>, to: fc.Arbitrary<number | undefined>): fc.Arbitrary<Op> =>
  fc
    .record({ op: fc.constant('addUnit' as const), app, count: fc.integer({ min: 1, max: 2 }), to })
    .map(({ to: t, ...rest }) => (t === undefined ? rest : { ...rest, to: t }));

const maybeMachine = fc.option(pickNumber, { nil: undefined, freq: 3 });
const appIndex = fc.nat(APPLICATIONS.length - 1);

/** Operations about one unit. */
const onUnit = (unit: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<Op>({ op: 'destroyUnit', unit }) },
    { weight: 1, arbitrary: fc.constant<Op>({ op: 'forceDestroyUnit', unit }) },
    { weight: 2, arbitrary: fc.constant<Op>({ op: 'assignUnit', unit }) },
    { weight: 5, arbitrary: pickNumber.map((action): Op => ({ op: 'unitAgent', unit, action })) },
  );

/** Operations about one machine. */
const onMachine = (machine: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant<Op>({ op: 'destroyMachine', machine }) },
    { weight: 1, arbitrary: fc.constant<Op>({ op: 'forceDestroyMachine', machine }) },
    { weight: 4, arbitrary: fc.constant<Op>({ op: 'machineAgent', machine }) },
    { weight: 1, arbitrary: addUnitOp(appIndex, fc.constant(machine)) },
    { weight: 1, arbitrary: deployOp(appIndex, fc.constant(machine)) },
  );

/** Operations about one application (by name: it may not exist, or exist no more). */
const onApplication = (app: number): fc.Arbitrary<Op> => {
  const name = APPLICATIONS[app]!;
  const relations = RELATE_ARGS.map((args, i) => ({ args, i })).filter(({ args }) => args.some((a) => a.split(':')[0] === name));
  return fc.oneof(
    { weight: 2, arbitrary: deployOp(fc.constant(app), maybeMachine) },
    { weight: 2, arbitrary: addUnitOp(fc.constant(app), maybeMachine) },
    { weight: 2, arbitrary: fc.constant<Op>({ op: 'destroyApplication', app }) },
    { weight: 1, arbitrary: fc.constant<Op>({ op: 'forceDestroyApplication', app }) },
    { weight: 3, arbitrary: fc.constantFrom(...relations).map(({ i }): Op => ({ op: 'relate', args: i })) },
  );
};

/** Operations about one relation. */
const onRelation = (relation: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.boolean().map((byId): Op => ({ op: 'destroyRelation', relation, byId })) },
    { weight: 5, arbitrary: pickNumber.map((unit): Op => ({ op: 'scopeAgent', relation, unit })) },
  );

/** Operations about one cleanup document. */
const onCleanup = (cleanup: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant<Op>({ op: 'cleanupBatch', cleanup }) },
    { weight: 1, arbitrary: fc.constant<Op>({ op: 'cleanupAll' }) },
  );

const kinds = {
  unit: { weight: 6, on: onUnit, target: pickNumber },
  machine: { weight: 3, on: onMachine, target: pickNumber },
  application: { weight: 4, on: onApplication, target: appIndex },
  relation: { weight: 3, on: onRelation, target: pickNumber },
  cleanup: { weight: 2, on: onCleanup, target: pickNumber },
};

const singleOp: fc.Arbitrary<Op> = fc.oneof(
  ...Object.values(kinds).map((k) => ({ weight: k.weight, arbitrary: k.target.chain((t) => k.on(t)) })),
  { weight: 1, arbitrary: fc.boolean().map((focal): Op => ({ op: 'addMachine', focal })) },
  { weight: 1, arbitrary: fc.constant<Op>({ op: 'agentsTurn' }) },
);

/** Two clients at once on the same entity: the races the transactions' conditions are for. */
const sameEntityPair: fc.Arbitrary<[Op, Op]> = fc.oneof(
  ...Object.values(kinds).map((k) => ({ weight: k.weight, arbitrary: k.target.chain((t) => fc.tuple(k.on(t), k.on(t))) })),
);

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: singleOp.map((single): Step => ({ single })) },
  { weight: 4, arbitrary: sameEntityPair.map((pair): Step => ({ pair })) },
  { weight: 2, arbitrary: fc.tuple(singleOp, singleOp).map((pair): Step => ({ pair })) },
  // A cleanup (destroying units, assigning them, forcing them out) racing whatever else.
  { weight: 1, arbitrary: fc.tuple(pickNumber.chain(onCleanup), singleOp).map((pair): Step => ({ pair })) },
);

/** The RELATE_ARGS whose applications are all among `apps`. */
const relatableAmong = (apps: Set<string>) =>
  RELATE_ARGS.map((args, i) => ({ args, i }))
    .filter(({ args }) => args.every((arg) => apps.has(arg.split(':')[0]!)))
    .map(({ i }) => i);

/**
 * A few applications deployed, up to two agent turns (machines provisioned, agents started),
 * then some of the relations their charms allow: the random steps start from a model with
 * something in it.
 */
const prelude: fc.Arbitrary<Step[]> = fc
  .uniqueArray(fc.record({ app: appIndex, units: fc.integer({ min: 1, max: 2 }) }), { selector: (d) => d.app, minLength: 3, maxLength: 4 })
  .chain((deploys) =>
    fc.tuple(fc.constant(deploys), fc.subarray(relatableAmong(new Set(deploys.map((d) => APPLICATIONS[d.app]!)))), fc.nat(2)),
  )
  .map(([deploys, relates, turns]) => [
    ...deploys.map(({ app, units }): Step => {
      // A subordinate is deployed without units: its units come from its principals.
      const numUnits = charms[APPLICATIONS[app]!].subordinate ? 0 : units;
      return { single: { op: 'deploy', app, units: numUnits, focal: false } };
    }),
    // Agents first: relating last leaves the consequences (entering scopes, creating
    // subordinates, assigning units that waited for a required relation) to the random steps.
    ...Array.from({ length: turns }, (): Step => ({ single: { op: 'agentsTurn' } })),
    ...relates.map((args): Step => ({ single: { op: 'relate', args } })),
  ]);

/** The steps, and the faults injected into them (property-faults.ts). */
interface Sequence {
  steps: Step[];
  faults: PlannedFault[];
}

const sequence: fc.Arbitrary<Sequence> = fc
  .tuple(prelude, fc.array(step, { minLength: 6, maxLength: 14 }), FAULTS ? faultPlan : fc.constant<PlannedFault[]>([]))
  .map(([first, rest, faults]) => ({ steps: [...first, ...rest], faults }));

// ---------------------------------------------------------------------------------------------
// Running a step

/** What one client did, and how it ended: the sequence's log, printed on failure. */
type Outcome = string;

interface Action {
  name: string;
  /** The operation, for the tally (agent actions say which of the agent's duties it was). */
  kind?: string;
  run: () => Promise<unknown>;
}

const nth = <T>(list: T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined);

/** A unit's agent runs once its machine has an instance (a subordinate's is its principal's). */
function agentRuns(view: ReturnType<typeof indexState>, unit: Unit): boolean {
  const machine = unit.machine !== undefined ? view.machines.get(unit.machine) : undefined;
  return machine?.instanceId !== undefined;
}

/** A subordinate joins the container relations with its own principal's application only; principals join all. */
function mayJoin(view: ReturnType<typeof indexState>, unit: Unit, relation: Relation): boolean {
  if (relation.scope !== 'container' || unit.principal === undefined) return true;
  const principal = view.units.get(unit.principal);
  return principal !== undefined && relation.endpoints.some((ep) => ep.application === principal.application);
}

let settingsCounter = 0;

/**
 * What a unit's agent would do next (lifecycles.txt "Agents"), each a candidate; with
 * `writeSettings`, also relation-set in the relations it is in. A Dead unit's only candidate is its
 * deployer removing it ("the agent of the entity that deployed the unit ... recalls the unit, and
 * removes it").
 */
function unitAgentActions(store: Store, state: ModelState, unit: Unit, options: { writeSettings: boolean }): Action[] {
  const view = indexState(state);
  const name = unit.name;
  if (unit.life === 'dead') return [{ name: `deployer removes ${name}`, kind: 'removeUnit', run: () => removeUnit(store, name) }];
  if (!agentRuns(view, unit)) return [];
  if (unit.agentStatus.current === 'allocating') {
    return [{ name: `${name} starts`, kind: 'startAgent', run: () => setUnitStatus(store, name, { agent: { current: 'idle' } }) }];
  }
  const actions: Action[] = [];
  const application = view.applications.get(unit.application);
  const leave = (key: string) => ({ name: `${name} leaves ${key}`, kind: 'leaveScope', run: () => leaveScope(store, name, key) });
  if (unit.life === 'alive') {
    for (const key of application?.relations ?? []) {
      const relation = view.relations.get(key);
      if (relation?.life === 'alive' && !unit.scopes.includes(key) && mayJoin(view, unit, relation)) {
        actions.push({
          name: `${name} enters ${key}`,
          kind: 'enterScope',
          run: () => enterScope(store, name, key, { 'private-address': name }),
        });
      }
    }
    for (const key of unit.scopes) if (view.relations.get(key)?.life !== 'alive') actions.push(leave(key));
    if (application?.life === 'dying')
      actions.push({ name: `${name} sets itself Dying`, kind: 'destroyUnitByAgent', run: () => destroyUnitByAgent(store, name) });
    if (unit.principal !== undefined) {
      actions.push({
        name: `${name} checks its principal`,
        kind: 'ensureSubordinateDying',
        run: () => ensureSubordinateDying(store, name),
      });
    }
    if (options.writeSettings) {
      for (const key of unit.scopes) {
        const relation = view.relations.get(key);
        if (relation?.life === 'alive') {
          const value = String(++settingsCounter);
          actions.push({
            name: `${name} relation-set in ${key}`,
            kind: 'writeSettings',
            run: () => writeSettings(store, relation.id, name, { seen: value }),
          });
        }
      }
    }
  } else {
    // "detecting its own Dying state, and: leaving all its relation scopes; waiting for all its
    // subordinates to be removed; setting its own Dead state."
    for (const key of unit.scopes) actions.push(leave(key));
    actions.push({ name: `${name} sets itself Dead`, kind: 'ensureUnitDead', run: () => ensureUnitDead(store, name) });
  }
  return actions;
}

/** What a unit of the relation would do about it: enter it, leave it, or write its settings in it. */
function scopeAgentAction(store: Store, state: ModelState, relation: Relation, pick: number): Action | undefined {
  const view = indexState(state);
  const apps = relation.endpoints.map((ep) => ep.application);
  const candidates = state.units.filter(
    (u) => apps.includes(u.application) && u.life !== 'dead' && agentRuns(view, u) && u.agentStatus.current !== 'allocating',
  );
  const unit = nth(candidates, pick);
  if (!unit) return undefined;
  const { name } = unit;
  if (!unit.scopes.includes(relation.key)) {
    if (unit.life !== 'alive' || relation.life !== 'alive' || !mayJoin(view, unit, relation)) return undefined;
    return {
      name: `${name} enters ${relation.key}`,
      kind: 'enterScope',
      run: () => enterScope(store, name, relation.key, { 'private-address': name }),
    };
  }
  if (unit.life !== 'alive' || relation.life !== 'alive') {
    return { name: `${name} leaves ${relation.key}`, kind: 'leaveScope', run: () => leaveScope(store, name, relation.key) };
  }
  const value = String(++settingsCounter);
  return {
    name: `${name} relation-set in ${relation.key}`,
    kind: 'writeSettings',
    run: () => writeSettings(store, relation.id, name, { seen: value }),
  };
}

/**
 * What the machine's agent or the provisioner does next: "detecting Alive machines without
 * instance IDs and provisioning provider instances"; "detecting its machine's Dying state, and
 * setting it to Dead" (for a machine never provisioned, the provisioner does it: Juju 2.9);
 * "detecting Dead machines with instance IDs, decommissioning the instance, and removing the machine".
 */
function machineAction(store: Store, machine: Machine): Action | undefined {
  const { id } = machine;
  if (machine.life === 'alive' && machine.instanceId === undefined) {
    return {
      name: `provisioner starts machine ${id}`,
      kind: 'recordInstance',
      // As the provisioner does: the agent's credential for this attempt first, then the instance.
      run: async () => {
        await setAgentCredentialHash(store, id, hashAgentCredential(`secret-${id}`), machine.provisioningAttempt);
        return recordInstance(store, id, { instanceId: `i-${id}`, attempt: machine.provisioningAttempt });
      },
    };
  }
  if (machine.life === 'dying')
    return { name: `machine ${id} sets itself Dead`, kind: 'ensureMachineDead', run: () => ensureMachineDead(store, id) };
  if (machine.life === 'dead')
    return { name: `provisioner removes machine ${id}`, kind: 'removeMachine', run: () => removeMachine(store, id) };
  return undefined;
}

/**
 * Every agent's full turn from one snapshot, all agents at once as they are separate processes:
 * the provisioner and each machine agent, and each unit agent (or deployer), each doing its own
 * actions in order. With `teardown`, machines left without principals are also destroyed, as a
 * user tearing the model down would.
 */
function agentsTurn(store: Store, state: ModelState, options: { teardown: boolean }): Action[][] {
  const agents: Action[][] = [];
  for (const machine of state.machines) {
    const actions: Action[] = [];
    if (options.teardown && machine.life === 'alive' && machine.principals.length === 0) {
      actions.push({ name: `remove-machine ${machine.id}`, kind: 'destroyMachine', run: () => destroyMachine(store, machine.id) });
    }
    const next = machineAction(store, machine);
    if (next) actions.push(next);
    agents.push(actions);
  }
  for (const unit of state.units) agents.push(unitAgentActions(store, state, unit, { writeSettings: false }));
  return agents.filter((actions) => actions.length > 0);
}

/** Runs the agents side by side, each agent's actions one after another. */
async function runAgents(agents: Action[][], opName: string): Promise<Outcome[]> {
  const outcomes = await Promise.all(
    agents.map(async (actions) => {
      const done: Outcome[] = [];
      for (const action of actions) done.push(await attempt(action, opName));
      return done;
    }),
  );
  return outcomes.flat();
}

/**
 * The first of `list`, from the `n`th on (cyclically), for which `action` finds something to do:
 * agents with nothing to do would make most agent steps no-ops. The same `n` picks the same
 * entity whenever that entity has something to do, so pairs still meet on one entity.
 */
function firstFrom<T>(list: T[], n: number, action: (item: T) => Action | undefined): Action | undefined {
  for (let i = 0; i < list.length; i++) {
    const found = action(list[(n + i) % list.length]!);
    if (found) return found;
  }
  return undefined;
}

/** Resolves an operation's targets against the state the step starts from. */
function resolve(store: Store, state: ModelState, op: Op): Action | undefined {
  const machineId = (n: number | undefined) => (n === undefined ? undefined : (nth(state.machines, n)?.id ?? '99'));
  const unitName = (n: number) => nth(state.units, n)?.name ?? 'mysql/99';
  switch (op.op) {
    case 'deploy': {
      const name: ApplicationName = APPLICATIONS[op.app]!;
      const to = machineId(op.to);
      const request = {
        charm: charms[name],
        ...(op.units ? { numUnits: op.units } : {}),
        ...(op.focal ? { series: 'focal' } : {}),
        ...(to !== undefined ? { to: [to] } : {}),
      };
      return { name: `deploy ${JSON.stringify({ ...request, charm: name })}`, run: () => deploy(store, request) };
    }
    case 'addUnit': {
      const name = APPLICATIONS[op.app]!;
      const to = machineId(op.to);
      const options = { count: op.count, ...(to !== undefined ? { to: [to] } : {}) };
      return { name: `add-unit ${name} ${JSON.stringify(options)}`, run: () => addUnits(store, name, options) };
    }
    case 'addMachine': {
      const series = op.focal ? 'focal' : 'jammy';
      return { name: `add-machine --series ${series}`, run: () => addMachines(store, { series }) };
    }
    case 'relate': {
      const args = RELATE_ARGS[op.args]!;
      return { name: `relate ${args.join(' ')}`, run: () => addRelation(store, args) };
    }
    case 'destroyRelation': {
      const relation = nth(state.relations, op.relation);
      const target = !relation ? 999 : op.byId ? relation.id : relation.key.split(' ');
      return { name: `remove-relation ${JSON.stringify(target)}`, run: () => destroyRelation(store, target) };
    }
    case 'destroyUnit': {
      const name = unitName(op.unit);
      return { name: `remove-unit ${name}`, run: () => destroyUnit(store, name) };
    }
    case 'forceDestroyUnit': {
      const name = unitName(op.unit);
      return { name: `remove-unit --force ${name}`, run: () => forceDestroyUnit(store, name) };
    }
    case 'assignUnit': {
      const name = unitName(op.unit);
      return { name: `assign ${name}`, run: () => assignUnit(store, name) };
    }
    case 'destroyApplication': {
      const name = APPLICATIONS[op.app]!;
      return { name: `remove-application ${name}`, run: () => destroyApplication(store, name) };
    }
    case 'forceDestroyApplication': {
      const name = APPLICATIONS[op.app]!;
      return { name: `remove-application --force ${name}`, run: () => forceDestroyApplication(store, name) };
    }
    case 'destroyMachine': {
      const id = machineId(op.machine)!;
      return { name: `remove-machine ${id}`, run: () => destroyMachine(store, id) };
    }
    case 'forceDestroyMachine': {
      const id = machineId(op.machine)!;
      return { name: `remove-machine --force ${id}`, run: () => forceDestroyMachine(store, id) };
    }
    case 'unitAgent': {
      return firstFrom(state.units, op.unit, (u) => nth(unitAgentActions(store, state, u, { writeSettings: true }), op.action));
    }
    case 'scopeAgent':
      return firstFrom(state.relations, op.relation, (r) => scopeAgentAction(store, state, r, op.unit));
    case 'machineAgent':
      return firstFrom(state.machines, op.machine, (m) => machineAction(store, m));
    case 'cleanupBatch': {
      const cleanup = nth(state.cleanups, op.cleanup);
      return cleanup ? { name: `cleanup batch ${cleanup.id}`, run: () => runCleanupBatch(store, cleanup.id) } : undefined;
    }
    case 'cleanupAll':
      return { name: 'run all cleanups', run: () => runAllCleanups(store) };
    case 'agentsTurn': {
      const agents = agentsTurn(store, state, { teardown: false });
      return { name: 'agents turn', run: () => runAgents(agents, 'agentsTurn') };
    }
  }
}

/** Tally of outcomes by operation, printed after a soak (to see that the runs did reach the interesting paths). */
const tally = new Map<string, number>();
const count = (key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);

/**
 * Runs an action; a refusal (DroverError) is an outcome, and so is a fault injected into its
 * process (property-faults.ts). Anything else fails the property.
 */
async function attempt(action: Action, opName: string): Promise<Outcome> {
  if (action.kind) opName = `${opName}/${action.kind}`;
  try {
    const result = await action.run();
    count(`${opName} ok`);
    return `${action.name} → ok${result === undefined ? '' : ` ${JSON.stringify(result)}`}`;
  } catch (e) {
    if (e instanceof DroverError) {
      count(`${opName} ${e.code}`);
      return `${action.name} → ${e.code}: ${e.message}`;
    }
    if (isInjected(e)) {
      count(`${opName} ${e.name}`);
      return `${action.name} → ${e.message}`;
    }
    throw new Error(`${action.name} failed with a non-DroverError: ${errorStack(e)}`);
  }
}

/**
 * One lane of sequences: a client for setting up and checking, and one for each of the two
 * processes that act. A process's requests are held back a random moment while a pair runs, so
 * that the two processes' reads and transactions interleave in ever different orders (without
 * it, the shorter operation nearly always commits first); and its calls go through the lane's
 * faults.
 */
interface Lane {
  tableName: string;
  /** Made once, before the lane's first sequence. */
  table: Promise<void>;
  client: DynamoDBClient;
  processClients: [DynamoDBClient, DynamoDBClient];
  jitter: boolean;
  faults: LaneFaults;
}

const JITTER_MS = 10;

function newLane(endpoint: string): Lane {
  const newClient = () => new DynamoDBClient({ endpoint, region: 'local', credentials: localCredentials() });
  const client = newClient();
  const tableName = `property-${randomUUID()}`;
  const lane: Lane = {
    tableName,
    table: ensureTable(client, tableName),
    client,
    processClients: [newClient(), newClient()],
    jitter: false,
    faults: new LaneFaults(),
  };
  lane.processClients.forEach((client, process) => {
    client.middlewareStack.add(
      (next) => async (args) => {
        if (lane.jitter) await new Promise((r) => setTimeout(r, Math.random() * JITTER_MS));
        return next(args);
      },
      { step: 'initialize', name: 'scheduleJitter' },
    );
    lane.faults.install(client, process);
  });
  return lane;
}

/**
 * The two processes of a sequence: the same table, each with a client and a snapshot cache of
 * its own, so each plans now and then from items the other has since changed (snapshot-cache.ts).
 */
type Processes = [Store, Store];

const startProcess = (lane: Lane, store: Store, process: number): Store =>
  createStore({ table: store.table, model: store.model, client: lane.processClients[process]! });

/** A process killed during a step starts again after it, with nothing in memory. */
function restartKilled(lane: Lane, processes: Processes, store: Store): string[] {
  const restarted = [...lane.faults.dead].map((process) => {
    processes[process] = startProcess(lane, store, process);
    return `process ${process} restarted`;
  });
  lane.faults.dead.clear();
  return restarted;
}

async function runStep(lane: Lane, processes: Processes, index: number, state: ModelState, step: Step): Promise<Outcome> {
  if ('single' in step) {
    const store = processes[index % 2]!;
    const action = resolve(store, state, step.single);
    return action ? attempt(action, step.single.op) : `${step.single.op}: nothing to do`;
  }
  const actions = step.pair.map((op, i) => resolve(processes[i]!, state, op));
  lane.jitter = true;
  const results = await Promise.allSettled(
    actions.map((a, i) => (a ? attempt(a, step.pair[i]!.op) : Promise.resolve(`${step.pair[i]!.op}: nothing to do`))),
  ).finally(() => (lane.jitter = false));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return `together: ${results.map((r) => (r as PromiseFulfilledResult<string>).value).join('  ||  ')}`;
}

// ---------------------------------------------------------------------------------------------
// One sequence

/**
 * Each sequence is a model of its own on its lane's table, deleted when the sequence ends. A
 * table per sequence would be simpler, but DynamoDB Local slows down with every table it has
 * made (dropped ones too): by the 400th, each call costs three to five times what it does on one
 * table (bench/RESULTS.md, "DynamoDB Local").
 */
async function withStore<T>(lane: Lane, body: (store: Store) => Promise<T>): Promise<T> {
  await lane.table;
  const store = createStore({ table: lane.tableName, model: `property-${randomUUID()}`, client: lane.client });
  try {
    await ensureModel(store);
    return await body(store);
  } finally {
    await deleteModel(store);
  }
}

const describeState = (state: ModelState) =>
  JSON.stringify(
    {
      applications: state.applications.map((a) => ({ name: a.name, life: a.life, unitCount: a.unitCount, relations: a.relations })),
      units: state.units.map((u) => ({
        name: u.name,
        life: u.life,
        agent: u.agentStatus.current,
        machine: u.machine,
        principal: u.principal,
        subordinates: u.subordinates,
        scopes: u.scopes,
      })),
      machines: state.machines.map((m) => ({ id: m.id, life: m.life, series: m.series, principals: m.principals, instance: m.instanceId })),
      relations: state.relations.map((r) => ({ key: r.key, id: r.id, life: r.life, unitCount: r.unitCount })),
      scopes: state.scopes.map((s) => `${s.relation} ∋ ${s.unit}`),
      settings: state.settings.map((s) => `${s.relationId}/${s.unit}`),
      cleanups: state.cleanups.map((c) => c.id),
    },
    null,
    1,
  );

class PropertyFailure extends Error {}

function fail(log: string[], what: string, state?: ModelState): never {
  throw new PropertyFailure(`${what}\n--- log ---\n${log.join('\n')}${state ? `\n--- state ---\n${describeState(state)}` : ''}`);
}

async function checked(store: Store, history: LifeHistory, log: string[], after: string): Promise<ModelState> {
  const state = await readModelState(store);
  const violations = checkInvariants(state, history);
  if (violations.length) fail(log, `invariants broken after ${after}:\n${violations.join('\n')}`, state);
  return state;
}

/**
 * Destroys everything, then lets every agent and the cleanup runner do their part, round after
 * round, until nothing changes; the invariants hold after every round, and in the end nothing
 * is left.
 */
async function quiesce(store: Store, history: LifeHistory, log: string[]): Promise<void> {
  let state = await readModelState(store);
  for (const app of state.applications) {
    const destroy = { name: `remove-application ${app.name}`, run: () => destroyApplication(store, app.name) };
    log.push(`quiesce: ${await attempt(destroy, 'quiesce')}`);
  }
  state = await checked(store, history, log, 'destroying every application');
  for (let round = 0; round < MAX_QUIESCENCE_ROUNDS && everythingRemoved(state).length > 0; round++) {
    const before = JSON.stringify(state.items);
    // Agents and cleanup runners all at once: on AWS each cleanup document is worked by its own
    // invocation, driven by the stream, alongside every agent.
    const cleanups = state.cleanups.map((c): Action[] => [{ name: `cleanup ${c.id}`, kind: c.kind, run: () => runCleanup(store, c.id) }]);
    const outcomes = await runAgents([...agentsTurn(store, state, { teardown: true }), ...cleanups], 'quiesce');
    for (const outcome of outcomes) log.push(`quiesce ${round}: ${outcome}`);
    state = await checked(store, history, log, `quiescence round ${round}`);
    if (JSON.stringify(state.items) === before) break;
  }
  const left = everythingRemoved(state);
  if (left.length) fail(log, `not everything destroyed was eventually removed:\n${left.join('\n')}`, state);
}

/** Where each sequence's log goes as it happens (to follow a slow or hanging run), if set. */
const TRACE_FILE = process.env.DROVER_PROPERTY_TRACE;
let sequenceNumber = 0;

/** A sequence's log: kept for the failure message, and traced to TRACE_FILE as it grows. */
function sequenceLog(): string[] {
  const id = ++sequenceNumber;
  const log: string[] = [];
  if (!TRACE_FILE) return log;
  appendFileSync(TRACE_FILE, `[${id}] start\n`);
  return new Proxy(log, {
    get(target, prop, receiver) {
      if (prop !== 'push') return Reflect.get(target, prop, receiver);
      return (...lines: string[]) => {
        appendFileSync(TRACE_FILE, lines.map((l) => `[${id}] ${l}\n`).join(''));
        return target.push(...lines);
      };
    },
  });
}

async function runSequence(lane: Lane, { steps, faults }: Sequence): Promise<void> {
  const log = sequenceLog();
  let timer: NodeJS.Timeout | undefined;
  // A sequence that never ends is a failure too (an operation or cleanup looping): say where it was.
  const watchdog = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new PropertyFailure(`sequence still running after ${SEQUENCE_TIMEOUT_MS} ms\n--- log ---\n${log.join('\n')}`)),
      SEQUENCE_TIMEOUT_MS,
    );
  });
  const run = withStore(lane, async (store) => {
    const history = new LifeHistory();
    let state = await checked(store, history, log, 'setup');
    const processes: Processes = [startProcess(lane, store, 0), startProcess(lane, store, 1)];
    if (faults.length) log.push(`faults: ${JSON.stringify(faults)}`);
    lane.faults.arm(faults);
    try {
      for (const [i, s] of steps.entries()) {
        lane.faults.active = true;
        const outcome = await runStep(lane, processes, i, state, s).catch((e: Error) => fail(log, `step ${i}: ${e.message}`));
        lane.faults.active = false;
        log.push(`${i}: ${outcome}`, ...restartKilled(lane, processes, store));
        state = await checked(store, history, log, `step ${i}`);
      }
    } finally {
      lane.faults.disarm();
    }
    await quiesce(store, history, log);
  });
  try {
    await Promise.race([run, watchdog]);
  } finally {
    clearTimeout(timer);
    run.catch(() => undefined); // once the watchdog has fired, the run's own end does not matter
  }
}

// ---------------------------------------------------------------------------------------------

describe('the model under random operations from several clients', () => {
  it(
    'keeps every invariant after every step, and removes everything destroyed once agents and cleanups have run',
    async () => {
      const started = Date.now();
      let anyFailed = false;
      let ran = 0;
      /** Sequences started and not yet ended: they count towards MIN_RUNS while they run. */
      let running = 0;
      const seeds = Array.from({ length: LANES }, (_, index) =>
        REPLAY_SEED ? Number(REPLAY_SEED) : (Date.now() ^ Math.imul(index + 1, 0x9e3779b9)) | 0,
      );
      // Printed every run, pass or fail, so any run can be replayed (one lane's seed at a time).
      console.info(
        `model property: seeds ${seeds.join(', ')} (${LANES} lanes, ${Math.ceil(NUM_RUNS / LANES)} sequences each, at least ${MIN_RUNS} in all); ` +
          `replay a lane with DROVER_PROPERTY_SEED=<seed> DROVER_PROPERTY_RUNS=${Math.ceil(NUM_RUNS / LANES)}`,
      );
      const endpoint = await dynamoEndpoint();
      const lanes = seeds.map((seed) => {
        const lane = newLane(endpoint);
        let failedAt: number | undefined;
        const property = fc.asyncProperty(sequence, async (generated) => {
          // Once a lane fails, the others stop (their runs pass at once); the failing lane shrinks
          // for a bounded time, after which its candidates pass too, so fast-check reports the
          // smallest failing sequence found so far. Past the time budget, nothing new starts.
          const pastBudget = Date.now() - started > TIME_BUDGET_MS && ran + running >= MIN_RUNS;
          if (failedAt === undefined ? anyFailed || pastBudget : Date.now() - failedAt > SHRINK_BUDGET_MS) return;
          running++;
          try {
            await runSequence(lane, generated);
            if (failedAt === undefined) ran++;
          } catch (e) {
            failedAt ??= Date.now();
            anyFailed = true;
            throw e;
          } finally {
            running--;
          }
        });
        const numRuns = Math.ceil(NUM_RUNS / LANES);
        const options = REPLAY_SEED
          ? { seed: Number(REPLAY_SEED), ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}), endOnFailure: true, numRuns }
          : { seed, numRuns };
        return fc.assert(property, options);
      });
      const results = await Promise.allSettled(lanes);
      const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      console.info(
        `model property: ${ran} sequences passed in ${Math.round((Date.now() - started) / 1000)} s (${LANES} lanes` +
          `${ran < NUM_RUNS && !failure ? `; the time bound stopped it before ${NUM_RUNS}` : ''}); ` +
          `${faultFigures.kills} kills and ${faultFigures.failures} transient failures injected, in ${faultFigures.sequencesWithFaults} sequences; ` +
          `${failure ? 'a violation (below)' : '0 violations'}`,
      );
      if (SOAK || process.env.DROVER_PROPERTY_STATS) {
        console.info(
          [...tally.entries()]
            .sort()
            .map(([k, n]) => `${k}: ${n}`)
            .join('\n'),
        );
      }
      if (failure) throw failure.reason;
      expect(ran).toBeGreaterThanOrEqual(MIN_RUNS);
    },
    TIMEOUT_MS,
  );
});
