// Output formats of the hook tools that print values (juju/cmd's output.go,
// https://github.com/juju/cmd/blob/master/output.go):
// `smart` (the default) prints strings raw, lists one item per line, booleans as True/False
// (pyjuju compatibility), nothing for nil or empty, and YAML for everything else; `yaml` and
// `json` print the value in that syntax. `-o/--output FILE` writes to a file instead of stdout.
import { stringify } from 'yaml';
import { stringFlag, type FlagSpec } from './flags.js';
import { usageError } from './tool-errors.js';

export type Format = 'smart' | 'yaml' | 'json';
const FORMATS: Format[] = ['smart', 'yaml', 'json'];

export const outputFlags: FlagSpec[] = [stringFlag('format', 'format'), stringFlag('output', 'o', 'output')];

export function formatOf(flags: Record<string, string | boolean>): Format {
  const value = flags.format;
  if (value === undefined) return 'smart';
  if (typeof value !== 'string' || !(FORMATS as string[]).includes(value)) {
    throw usageError(`invalid value "${String(value)}" for flag --format: unknown format "${String(value)}"`);
  }
  return value as Format;
}

const yaml = (value: unknown, sortKeys: boolean) => stringify(value, { lineWidth: 0, sortMapEntries: sortKeys });

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
      else if (typeof value === 'object' && Object.keys(value).length === 0) text = '';
      else text = yaml(value, sortKeys);
      break;
  }
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
