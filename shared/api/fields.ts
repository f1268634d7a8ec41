// The fields the user and agent API schemas share, with the bounds every client string meets
// before it reaches a DynamoDB key or item: one place for each limit, so a name is the same
// length everywhere and a refusal always reads the same. Without them, input a client chose
// (a 3,000-digit task id, an empty settings key, 200,000 names) reached DynamoDB and came back
// as a 500, or kept the API busy long after the client had given up.
import * as z from 'zod';
import { UNSTORABLE_KEY, unstorableKey, unstorableKeyPath } from '../domain/own-keys.js';

export { UNSTORABLE_KEY, unstorableKey, unstorableKeyPath };

/**
 * API Gateway's HTTP API takes bodies up to 10 MB, but hands them to Lambda, whose request payload
 * is at most 6 MB, the event's headers and request context included: a body past 5 MB would fail
 * as a 500 from API Gateway, never reaching the handler's refusal. The local API server keeps the
 * same bound. https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html
 */
export const MAX_REQUEST_BODY_BYTES = 5 * 1024 * 1024;

export const bodyTooLarge = (bytes: number) =>
  `the request body is ${bytes} bytes, more than the API takes (${MAX_REQUEST_BODY_BYTES} bytes, 5 MB); send less in one request`;

/** Names in one request (remove-unit, remove-machine, ...): each costs a transaction, so a list is bounded. */
export const MAX_NAMES_PER_REQUEST = 1000;

/** Longer than any name drover makes; well inside DynamoDB's key limits (1 KB sort key, 2 KB partition key). */
export const MAX_NAME_LENGTH = 200;

/** Settings and state keys: as Juju's charm-state keys, at most 256 characters. */
export const MAX_KEY_LENGTH = 256;

/** A relation key names its endpoints (`wordpress:db mysql:server`): two names and more. */
export const MAX_RELATION_KEY_LENGTH = 500;

/** Ids drover counts up (tasks, operations, machines): far more than any model reaches. */
const MAX_ID_DIGITS = 18;

export const name = z.string().min(1).max(MAX_NAME_LENGTH);

/** A list of names, one at least and at most MAX_NAMES_PER_REQUEST. */
export const names = z
  .array(name)
  .min(1, { error: 'give at least one name' })
  .max(MAX_NAMES_PER_REQUEST, { error: `at most ${MAX_NAMES_PER_REQUEST} names in one request; split the list` });

/** Optional lists of names (deploy --to, config --reset): the same bound, and empty is allowed. */
export const nameList = z
  .array(name)
  .max(MAX_NAMES_PER_REQUEST, { error: `at most ${MAX_NAMES_PER_REQUEST} names in one request; split the list` });

export const relationKey = z.string().min(1).max(MAX_RELATION_KEY_LENGTH);

/** A task or operation id as the API hands it out: digits. */
export const numericId = (what: string) =>
  z
    .string()
    .regex(/^\d+$/, { error: `${what} id must be a number` })
    .max(MAX_ID_DIGITS, { error: `${what} id must be a number of at most ${MAX_ID_DIGITS} digits` });

/**
 * A machine id as an agent names its machine: looked up as a key, so one no machine could have is
 * refused before it reaches DynamoDB.
 */
export const MACHINE_ID = new RegExp(`^\\d{1,${MAX_ID_DIGITS}}$`);

/**
 * A model's key as an agent names its model (`default`, or a uuid: shared/domain/models.ts):
 * letters, digits and hyphens only, so no claim can reach into another key of the table.
 */
export const MODEL_KEY = /^[A-Za-z0-9-]{1,64}$/;

/**
 * Settings keys (relation-set, leader-set, config): never empty (DynamoDB refuses an empty map key,
 * and Juju's `key=value` needs a key), and bounded. `__proto__`, which zod drops from records,
 * is refused before parsing (functions/api/dispatch.ts).
 */
export const settingsKey = z
  .string()
  .min(1, { error: 'a key cannot be empty; give key=value' })
  .max(MAX_KEY_LENGTH, { error: `a key is at most ${MAX_KEY_LENGTH} characters` });

/** key=value settings; the size of what they add up to is checked where they are stored (shared/domain/item-size.ts). */
export const settings = z.record(settingsKey, z.string());

/**
 * A number as DynamoDB stores it from JSON: finite, no larger in magnitude than the SDK converts
 * without losing digits (Number.MAX_SAFE_INTEGER; it refuses more), and zero or no smaller than
 * DynamoDB's smallest magnitude, 1e-130. JSON allows anything else; DynamoDB answered it with a 500.
 */
export const isStorableNumber = (n: number) =>
  Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER && (n === 0 || Math.abs(n) >= 1e-130);

const NUMBER_RANGE = `a number must be 0, or between 1e-130 and ${Number.MAX_SAFE_INTEGER} in magnitude`;

export const storableNumber = () => z.number().refine(isStorableNumber, { error: NUMBER_RANGE });

/** Nesting a client may send in free-form data (action parameters and results); DynamoDB stores 32 levels. */
const MAX_NESTING = 16;

/**
 * What would make free-form JSON unstorable: an empty key anywhere (DynamoDB refuses an empty map
 * key), a number out of DynamoDB's range, or nesting deeper than MAX_NESTING. Walked without recursion, so no depth can overflow it.
 */
export function unstorable(value: unknown): string | undefined {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value: v, path, depth } = pending.pop()!;
    if (typeof v === 'number' && !isStorableNumber(v)) return `${path || 'the value'}: ${NUMBER_RANGE}`;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_NESTING) return `${path || 'the value'} is nested more than ${MAX_NESTING} levels deep`;
    if (Array.isArray(v)) v.forEach((item, i) => pending.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 }));
    else
      for (const [key, item] of Object.entries(v)) {
        const at = path ? `${path}.${key}` : key;
        if (key === '') return `${path || 'the value'} has an empty key; every key needs a name`;
        pending.push({ value: item, path: at, depth: depth + 1 });
      }
  }
  return undefined;
}

/** Free-form key=value data (action parameters and results) that DynamoDB can store. */
export const storableRecord = z.record(settingsKey, z.unknown()).superRefine((value, ctx) => {
  const problem = unstorable(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
