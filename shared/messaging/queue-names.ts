// Queue names, spelled here and nowhere else. Every name starts `drover-<controller>-`, so an
// IAM policy can grant the controller its queues by prefix, and each machine agent exactly its
// own queue by full name (docs/architecture.md, 'Agents are least-privileged').
import { createHash } from 'node:crypto';

/** SQS: 1–80 characters, alphanumerics, hyphens and underscores. */
const MAX_QUEUE_NAME = 80;
const CONTROLLER_ID = /^[A-Za-z0-9-]{1,40}$/;
const MIN_HASH = 16;

function checkControllerId(controllerId: string): void {
  // Bounded so that every machine id keeps at least 30 characters of the name.
  if (!CONTROLLER_ID.test(controllerId)) {
    throw new Error(`invalid controller id "${controllerId}": use 1 to 40 letters, digits and hyphens`);
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

export function queueName(controllerId: string, machineId: string): string {
  checkControllerId(controllerId);
  if (machineId === '') throw new Error('a machine queue needs a machine id');
  const prefix = `drover-${controllerId}-m-`;
  const escaped = escapeMachineId(machineId);
  if (prefix.length + escaped.length <= MAX_QUEUE_NAME) return prefix + escaped;
  // Too long to spell out (deeply nested containers): a digest keeps the name stable, and its
  // `_h` marker never occurs in an escaped id (an escaped byte is `_` and two hex digits).
  const room = MAX_QUEUE_NAME - prefix.length - 2;
  if (room < MIN_HASH) throw new Error(`controller id "${controllerId}" leaves no room for machine "${machineId}" in a queue name`);
  return `${prefix}_h${createHash('sha256').update(machineId).digest('hex').slice(0, room)}`;
}

/** The controller's one dead-letter queue: hints an agent failed to handle again and again. */
export function deadLetterQueueName(controllerId: string): string {
  checkControllerId(controllerId);
  return `drover-${controllerId}-dlq`;
}

/** `drover-<controller>-m-`: the start of every machine queue's name (grants and listings by prefix). */
export function machineQueuePrefix(controllerId: string): string {
  return queueName(controllerId, '0').slice(0, -1);
}
