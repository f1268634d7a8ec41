// Maps whose keys come from outside (settings, config, charm state): looked up by their own keys
// only, so that a key named `constructor` or `toString` is a key like any other and never finds
// what every JavaScript object inherits.

/** The value of `key` in `record`, if `record` has that key of its own. */
export const ownValue = <V>(record: Readonly<Record<string, V>>, key: string): V | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

/** The same keys with the same (===) values. */
export const sameEntries = <V>(a: Readonly<Record<string, V>>, b: Readonly<Record<string, V>>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => Object.hasOwn(b, k) && b[k] === v);

/**
 * The one key no stored map can hold: the DynamoDB client marshals and unmarshals maps into plain
 * objects, where `__proto__` sets the prototype instead of a key, so it would vanish on the way
 * (every other name, `constructor` and `toString` included, is stored as given), and zod drops it
 * from every record it parses. Refused before parsing, in the same words wherever a document comes
 * from outside (a request body, a charm's YAML), so that nothing is silently lost.
 */
export const UNSTORABLE_KEY = '__proto__';

export const unstorableKey = (key: string) => `key "${key}" cannot be stored; choose another name`;

/**
 * Where `value` (parsed JSON or YAML) holds an UNSTORABLE_KEY of its own, as a dotted path to the
 * map that holds it (`''` at the top), or undefined. Walked without recursion: no depth overflows it.
 */
export function unstorableKeyPath(value: unknown): string | undefined {
  const pending: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: v, path } = pending.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) v.forEach((item, i) => pending.push({ value: item, path: `${path}[${i}]` }));
    else {
      if (Object.hasOwn(v, UNSTORABLE_KEY)) return path;
      for (const [key, item] of Object.entries(v)) pending.push({ value: item, path: path ? `${path}.${key}` : key });
    }
  }
  return undefined;
}
