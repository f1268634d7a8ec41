// Output formats of the hook tools that print values (juju/cmd's output.go,
// https://github.com/juju/cmd/blob/master/output.go):
// `smart` (the default) prints strings raw, lists one item per line, booleans as True/False
// (pyjuju compatibility), nothing for nil, an empty string or an empty list, and YAML for
// everything else (an empty map is `{}`); `yaml` and
// `json` print the value in that syntax. `-o/--output FILE` writes to a file instead of stdout.
import { Document, isScalar, visit } from 'yaml';
import { stringFlag, type FlagSpec } from './flags.js';

export type Format = 'smart' | 'yaml' | 'json';
const FORMATS: Format[] = ['smart', 'yaml', 'json'];

/** juju/cmd's Output.AddFlags: `--format` (refusing a format not offered) and `-o/--output`. */
export function outputFlagsOf(formats: Format[]): FlagSpec[] {
  const format: FlagSpec = {
    ...stringFlag('format', 'format'),
    check: (value) => {
      if (!(formats as string[]).includes(value)) throw new Error(`unknown format ${JSON.stringify(value)}`);
    },
  };
  return [format, stringFlag('output', 'o', 'output')];
}

export const outputFlags: FlagSpec[] = outputFlagsOf(FORMATS);

/** The format the flags chose (checked as they were parsed), or `fallback`, the tool's default. */
export function formatOf(flags: Record<string, string | boolean>, fallback: Format = 'smart'): Format {
  return typeof flags.format === 'string' ? (flags.format as Format) : fallback;
}

/**
 * A Go map that is nil (Juju's HookContext returns one for an empty charm state): YAML, and so the
 * smart format, print it `{}`, JSON `null`.
 */
export const NIL_MAP: unique symbol = Symbol('nil map');

/**
 * Strings Go's yaml.v2 (which juju/cmd prints with) quotes and YAML 1.2 leaves plain: YAML 1.1's
 * booleans (https://yaml.org/type/bool.html, gopkg.in/yaml.v2 resolve.go) and integers with
 * underscores, which Go's ParseInt reads. Left plain, `relation-get` would print `flag: yes` where
 * Juju prints `flag: "yes"`, and a YAML 1.1 reader (PyYAML, which charms use) would read a bool.
 */
const GO_YAML_QUOTED = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|[-+]?[0-9][0-9_]*_[0-9_]*)$/;

function yaml(value: unknown, sortKeys: boolean): string {
  const doc = new Document(value, { sortMapEntries: sortKeys });
  visit(doc, {
    Scalar(_key, node) {
      if (isScalar(node) && typeof node.value === 'string' && GO_YAML_QUOTED.test(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  // yaml.v2 writes a sequence inside a mapping at the mapping's own indentation (`key:\n- a`).
  return doc.toString({ lineWidth: 0, indentSeq: false });
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * The text a tool prints for `value`: empty, or ending in a newline. `ordered`: the value stands
 * for a Go struct, whose fields Go prints in declaration order (only maps are sorted); the caller
 * built it in that order, with any maps inside already sorted.
 */
export function formatValue(value: unknown, format: Format, options: { ordered?: boolean } = {}): string {
  const sortKeys = options.ordered !== true;
  if (value === NIL_MAP) return format === 'json' ? 'null\n' : '{}\n';
  let text: string;
  switch (format) {
    case 'json':
      // Go's encoding/json sorts map keys.
      text = JSON.stringify(sortKeys ? sorted(value ?? null) : (value ?? null));
      break;
    case 'yaml':
      text = value === undefined || value === null ? '' : yaml(value, sortKeys);
      break;
    case 'smart':
      if (value === undefined || value === null) text = '';
      else if (typeof value === 'string') text = value;
      else if (typeof value === 'boolean') text = value ? 'True' : 'False';
      else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) text = value.join('\n');
      // Anything else is YAML, an empty map included: `{}`.
      else text = yaml(value, sortKeys);
      break;
  }
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
