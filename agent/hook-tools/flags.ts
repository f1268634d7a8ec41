// Flag parsing in the manner of juju/gnuflag, which every hook tool uses: `-r 3`, `-r=3`,
// `--relation 3`, `--relation=3`; booleans as `--app` (or `--app=false`); flags may come between
// positional arguments; `--` ends the flags, and a lone `-` is a positional argument.
import { usageError } from './tool-errors.js';

export interface FlagSpec {
  /** Every spelling without dashes: `['r', 'relation']`. */
  names: string[];
  kind: 'bool' | 'string';
  /** Where the value lands in the result. */
  key: string;
}

export interface ParsedArgs {
  flags: Record<string, string | boolean>;
  positional: string[];
}

const BOOL_TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const BOOL_FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

export function parseFlags(args: string[], specs: FlagSpec[]): ParsedArgs {
  const byName = new Map<string, FlagSpec>();
  for (const spec of specs) for (const name of spec.names) byName.set(name, spec);
  const flags: Record<string, string | boolean> = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const dashes = arg.startsWith('--') ? '--' : '-';
    const body = arg.slice(dashes.length);
    const eq = body.indexOf('=');
    const name = eq === -1 ? body : body.slice(0, eq);
    const spec = byName.get(name);
    if (!spec) throw usageError(`flag provided but not defined: ${dashes}${name}`);
    if (spec.kind === 'bool') {
      if (eq === -1) flags[spec.key] = true;
      else {
        const value = body.slice(eq + 1);
        if (BOOL_TRUE.has(value)) flags[spec.key] = true;
        else if (BOOL_FALSE.has(value)) flags[spec.key] = false;
        else throw usageError(`invalid value "${value}" for flag ${dashes}${name}: parse error`);
      }
      continue;
    }
    if (eq !== -1) {
      flags[spec.key] = body.slice(eq + 1);
      continue;
    }
    const value = args[i + 1];
    if (value === undefined) throw usageError(`flag needs an argument: ${dashes}${name}`);
    flags[spec.key] = value;
    i++;
  }
  return { flags, positional };
}

export const stringFlag = (key: string, ...names: string[]): FlagSpec => ({ names, kind: 'string', key });
export const boolFlag = (key: string, ...names: string[]): FlagSpec => ({ names, kind: 'bool', key });
