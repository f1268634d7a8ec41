// What fits in one stored item. DynamoDB refuses an item over 400 KB (names and values
// together), and a refused write used to come back as a 500 with no word of why; a unit agent
// whose hook had set a 500 KB relation value failed the hook with no cause. Whatever a client
// makes grow (settings, config, a charm's metadata) is measured here first and refused with the
// limit named, so the client learns what to change and nothing is written.
import { invalidArgument } from './errors.js';

/** DynamoDB's limit on one item (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html). */
export const DYNAMODB_ITEM_LIMIT_BYTES = 400 * 1024;

/**
 * One bag of key=value settings in its own item: a unit's settings in a relation, an
 * application's bag, its leader settings. Leaves room for the item's keys and version.
 */
export const MAX_SETTINGS_BYTES = 300_000;

/**
 * A charm's metadata, config options and actions as stored on its application, which also holds
 * the application's config: together they stay well inside one item.
 */
export const MAX_CHARM_METADATA_BYTES = 160 * 1024;

/** An application's config values (config key=value), beside its charm on the same item. */
export const MAX_CONFIG_BYTES = 160 * 1024;

/** The bytes key=value pairs take in an item: DynamoDB counts the UTF-8 of names and values. */
export function keyValueBytes(values: Record<string, unknown>): number {
  let bytes = 0;
  for (const [key, value] of Object.entries(values)) bytes += Buffer.byteLength(key) + Buffer.byteLength(String(value));
  return bytes;
}

/** Refuses `what` (e.g. `the settings of unit "a/0" in relation 3`) when its settings would exceed the limit. */
export function checkSettingsSize(settings: Record<string, string>, what: string): void {
  const bytes = keyValueBytes(settings);
  if (bytes > MAX_SETTINGS_BYTES) throw tooLarge(what, bytes, MAX_SETTINGS_BYTES);
}

/** The refusal, in the words of Juju's charm-state limit, with what to do about it. */
export function tooLarge(what: string, bytes: number, limit: number) {
  return invalidArgument(
    `max allowed size (${limit}) of ${what} exceeded: it would take ${bytes} bytes (a stored item holds at most 400 KB); ` +
      'store large data elsewhere and pass a reference',
  );
}

/** Refuses an application's config whose values would exceed MAX_CONFIG_BYTES. */
export function checkConfigSize(config: Record<string, unknown>, application: string): void {
  const bytes = keyValueBytes(config);
  if (bytes > MAX_CONFIG_BYTES) throw tooLarge(`the config of application "${application}"`, bytes, MAX_CONFIG_BYTES);
}

/** Refuses a charm whose metadata, config options and actions, as stored, would exceed MAX_CHARM_METADATA_BYTES. */
export function checkCharmSize(charm: { name: string }): void {
  const bytes = Buffer.byteLength(JSON.stringify(charm));
  if (bytes > MAX_CHARM_METADATA_BYTES)
    throw tooLarge(`the metadata, config and actions of charm "${charm.name}"`, bytes, MAX_CHARM_METADATA_BYTES);
}
