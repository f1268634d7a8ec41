// Queue names, spelled here and nowhere else. Every name starts `drover-<controller>-`, so an
// IAM policy can grant the controller its queues by prefix, and each machine agent exactly its
// own queue by full name (docs/architecture.md, 'Agents are least-privileged').
//
// Machine ids repeat across models (each model has its machine 0), so a machine queue is named
// by model and machine. The `default` model's queues keep the names they had before there were
// many models, so a controller made then keeps its queues; every other model's names carry a
// digest of the model's key behind a marker no machine id of `default` can produce.
import { createHash } from 'node:crypto';
import { DEFAULT_MODEL_KEY } from '../domain/models.js';

/** SQS: 1–80 characters, alphanumerics, hyphens and underscores. */
const MAX_QUEUE_NAME = 80;
const CONTROLLER_ID = /^[A-Za-z0-9-]{1,40}$/;
const MIN_HASH = 16;

function checkControllerId(controllerId: string): void {
  // Bounded so that every machine id keeps at least 30 characters of the name.
  if (!CONTROLLER_ID.test(controllerId)) {
    throw new Error(`invalid controller id "${controllerId}": use 1 to 40 letters, digits and hyphens`);
  }
  // Controller `a`'s machine queues are `drover-a-m-*`; so would be every queue of a controller
  // `a-m` or `a-m-...`, which `a`'s grants, listings and tear-down would then reach. An id that
  // has `-m-` in it or ends in `-m` is the only way to meet another's prefix.
  if (/-m(-|$)/.test(controllerId)) {
    throw new Error(
      `invalid controller id "${controllerId}": "-m-" inside or "-m" at the end would share its machine queues' names with controller "${controllerId.split(/-m(?:-|$)/)[0]}"`,
    );
  }
}

/**
 * Machine ids may hold characters SQS refuses (a container is `0/lxd/1`): each such byte becomes
 * `_` and two hex digits. `_` itself is escaped, so distinct machine ids never share a name.
 */
function escapeMachineId(machineId: string): string {
  let out = '';
  for (const byte of Buffer.from(machineId, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9-]/.test(c) ? c : `_${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/**
 * Hex digits of the model key's digest in a queue name: 64 bits, so two models of one controller
 * never share a name (a uuid, 36 characters, would leave no room for the machine id).
 */
const MODEL_DIGEST = 16;

const digest = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);

/** The queue of machine `machineId` of the model whose key is `model`. */
export function queueName(controllerId: string, model: string, machineId: string): string {
  checkControllerId(controllerId);
  if (machineId === '') throw new Error('a machine queue needs a machine id');
  if (model === '') throw new Error('a machine queue needs a model');
  const prefix = machineQueuePrefix(controllerId);
  const escaped = escapeMachineId(machineId);
  // The markers below (`_h`, `_m`, `_n`) never occur in an escaped id, where `_` is followed by
  // two hex digits, so the three kinds of name never meet, nor meet a `default` machine's.
  if (model === DEFAULT_MODEL_KEY) {
    if (prefix.length + escaped.length <= MAX_QUEUE_NAME) return prefix + escaped;
    // Too long to spell out (deeply nested containers): a digest keeps the name stable.
    const room = MAX_QUEUE_NAME - prefix.length - 2;
    if (room < MIN_HASH) throw new Error(`controller id "${controllerId}" leaves no room for machine "${machineId}" in a queue name`);
    return `${prefix}_h${digest(machineId, room)}`;
  }
  // Another model's: `_m`, the model's digest (fixed length, so where the machine id starts is
  // known), and the machine id as `default`'s are spelled, for whoever reads a queue list.
  const spelled = `${prefix}_m${digest(model, MODEL_DIGEST)}${escaped}`;
  if (spelled.length <= MAX_QUEUE_NAME) return spelled;
  // Too long: one digest of model and machine together (the controller id leaves it ≥ 28 characters).
  const room = MAX_QUEUE_NAME - prefix.length - 2;
  return `${prefix}_n${digest(`${model}\u0000${machineId}`, room)}`;
}

/** The controller's one dead-letter queue: hints an agent failed to handle again and again. */
export function deadLetterQueueName(controllerId: string): string {
  checkControllerId(controllerId);
  return `drover-${controllerId}-dlq`;
}

/** `drover-<controller>-m-`: the start of every machine queue's name (grants and listings by prefix). */
export function machineQueuePrefix(controllerId: string): string {
  checkControllerId(controllerId);
  return `drover-${controllerId}-m-`;
}
