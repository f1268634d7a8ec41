// Queueing an operation: `drover run` (one action on units of one application) and `drover exec`
// (the predefined juju-exec action on any units). Juju 3.6 (apiserver/facades/client/action,
// state/operation.go): the operation and its tasks are created together; each task is checked
// against its unit's charm (an undefined action or bad params refuse the whole request, so
// nothing is queued), and its parameters are stored with the schema's defaults filled in.
//
// The ids are reserved before (shared/domain/sequences.ts); then one transaction: the operation,
// the tasks, and each unit's `pendingTasks` (asserting the unit is not Dead). The unit item changing is what
// hints its machine's agent.
import { validateActionParams, type ActionSpec } from '../actions.js';
import type { Application, Unit } from '../entities.js';
import { invalidArgument, notFound } from '../errors.js';
import { EXEC_ACTION, expiresAt, unitTag, type Operation, type Task } from '../operations.js';
import { refs, type Change, type Plan } from '../plan.js';
import type { Numbers } from '../sequences.js';

/** At most this many units per operation: one transaction holds 2 items per unit plus 2. */
export const MAX_TASKS_PER_OPERATION = 40;
/** Parameters are stored in the operation and in every task: bounded, so each item stays far below 400 KB. */
export const MAX_PARAMETERS_BYTES = 32 * 1024;

/** The schema Juju predefines for juju-exec (core/actions/actions.go). */
export const EXEC_SPEC: ActionSpec = {
  description: 'predefined juju-exec action',
  parallel: true,
  executionGroup: '',
  params: {
    type: 'object',
    title: EXEC_ACTION,
    required: ['command', 'timeout'],
    properties: {
      command: { type: 'string', description: 'command to be ran under juju-exec' },
      timeout: { type: 'number', description: 'timeout for command execution' },
    },
  },
};

export interface EnqueueSnapshot {
  /** The receivers, aligned with the intent's `units` (undefined: no such unit). */
  units: (Unit | undefined)[];
  applications: Application[];
  /** Where the operation's and the tasks' ids come from. */
  numbers: Numbers;
}

export interface EnqueueIntent {
  action: string;
  parameters: Record<string, unknown>;
  units: string[];
}

export interface EnqueueResult {
  operation: string;
  tasks: { id: string; unit: string }[];
}

export const TASK_SEQUENCE = 'task';

function specFor(action: string, unit: Unit, application: Application | undefined): ActionSpec {
  if (action === EXEC_ACTION) return EXEC_SPEC;
  const actions = application?.charm.actions ?? {};
  const spec = Object.hasOwn(actions, action) ? actions[action] : undefined;
  if (!spec) throw invalidArgument(`action "${action}" not defined on unit "${unit.name}"`);
  return spec;
}

export function planEnqueueOperation(snapshot: EnqueueSnapshot, intent: EnqueueIntent, now: string): Plan<EnqueueResult> {
  if (intent.units.length === 0) throw invalidArgument('no unit specified');
  if (new Set(intent.units).size !== intent.units.length) throw invalidArgument('a unit is named more than once');
  if (Buffer.byteLength(JSON.stringify(intent.parameters)) > MAX_PARAMETERS_BYTES) {
    throw invalidArgument(`parameters too large: at most ${MAX_PARAMETERS_BYTES / 1024} KiB of JSON`);
  }
  if (intent.units.length > MAX_TASKS_PER_OPERATION) {
    throw invalidArgument(`too many units: one operation runs on at most ${MAX_TASKS_PER_OPERATION}`);
  }
  const checked = intent.units.map((name, i) => {
    const unit = snapshot.units[i];
    if (!unit || unit.life === 'dead') throw notFound(`unit "${name}" not found`);
    const application = snapshot.applications.find((a) => a.name === unit.application);
    const spec = specFor(intent.action, unit, application);
    return { unit, parameters: validateActionParams(spec, intent.parameters) };
  });

  const [operationId, ...taskIds] = snapshot.numbers.take(TASK_SEQUENCE, 1 + checked.length).map((n) => String(n + 1));
  const expires = expiresAt(now);
  const tasks: Task[] = checked.map(({ unit, parameters }, i) => ({
    id: taskIds[i]!,
    operation: operationId!,
    unit: unit.name,
    action: intent.action,
    parameters,
    status: 'pending',
    log: [],
    enqueued: now,
    expiresAt: expires,
  }));
  const operation: Operation = {
    id: operationId!,
    summary: `${intent.action} run on ${checked.map(({ unit }) => unitTag(unit.name)).join(',')}`,
    action: intent.action,
    parameters: intent.parameters,
    tasks: tasks.map((t) => t.id),
    enqueued: now,
    expiresAt: expires,
  };
  const changes: Change[] = [{ op: 'create', ref: refs.operation(operation.id), value: { ...operation } }];
  for (const task of tasks) {
    changes.push({ op: 'create', ref: refs.task(task.id), value: { ...task } });
    changes.push({ op: 'update', ref: refs.unit(task.unit), addToSet: { pendingTasks: [task.id] }, expect: { life: ['alive', 'dying'] } });
  }
  return { changes, result: { operation: operation.id, tasks: tasks.map((t) => ({ id: t.id, unit: t.unit })) } };
}
