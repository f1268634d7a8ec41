// Flag parsing as juju/gnuflag does it for every hook tool, in Juju 3's words (juju/cmd names a
// flag an "option": `ERROR option provided but not defined: --bogus`):
// - long flags `--relation 3`, `--relation=3`; booleans `--app`, or `--app=false`;
// - short flags `-r 3`, `-r3`, and booleans run together (`-ab`); a short flag's value is the
//   rest of its argument as it stands, so `-r=3` gives `=3`;
// - flags may come between positional arguments; `--` ends the flags; `-` and `` are positional.
// A value is checked as it is parsed (gnuflag's Value.Set), so the first bad one is the error.
import { usageError } from './tool-errors.js';
import { errorMessage } from '#shared/domain/errors.js';

export interface FlagSpec {
  /** Every spelling without dashes: `['r', 'relation']`. */
  names: string[];
  kind: 'bool' | 'string';
  /** Where the value lands in the result. */
  key: string;
  /** Throws, with the reason, for a value the flag refuses (gnuflag's Value.Set). */
  check?: (value: string) => void;
}

export interface ParsedArgs {
  flags: Record<string, string | boolean>;
  positional: string[];
}

/** Go's strconv.ParseBool. */
const BOOL_TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const BOOL_FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

/** gnuflag's flagWithMinus: `-r` for a one-letter name, `--relation` otherwise. */
const withMinus = (name: string) => (name.length > 1 ? `--${name}` : `-${name}`);

export function parseFlags(args: string[], specs: FlagSpec[]): ParsedArgs {
  const byName = new Map<string, FlagSpec>();
  for (const spec of specs) for (const name of spec.names) byName.set(name, spec);
  const flags: Record<string, string | boolean> = {};
  const positional: string[] = [];

  const set = (name: string, value: string) => {
    const spec = byName.get(name)!;
    try {
      if (spec.kind === 'bool') {
        if (BOOL_TRUE.has(value)) flags[spec.key] = true;
        else if (BOOL_FALSE.has(value)) flags[spec.key] = false;
        else throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
        return;
      }
      spec.check?.(value);
    } catch (e) {
      throw usageError(`invalid value ${JSON.stringify(value)} for option ${withMinus(name)}: ${errorMessage(e)}`);
    }
    flags[spec.key] = value;
  };
  const known = (name: string) => {
    if (!byName.has(name)) throw usageError(`option provided but not defined: ${withMinus(name)}`);
    return byName.get(name)!;
  };

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      positional.push(arg);
      continue;
    }
    // A value from the next argument, for a flag whose own argument holds none.
    const next = (name: string) => {
      if (i + 1 >= args.length) throw usageError(`option needs an argument: ${withMinus(name)}`);
      return args[++i]!;
    };
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      if (name === '') throw usageError(`empty flag in argument ${JSON.stringify(arg)}`);
      const spec = known(name);
      if (eq !== -1) set(name, arg.slice(eq + 1));
      else if (spec.kind === 'bool') set(name, 'true');
      else set(name, next(name));
      continue;
    }
    // Single-letter flags: booleans run together; a string flag takes the rest of the argument.
    const letters = [...arg.slice(1)];
    for (let at = 0; at < letters.length; at++) {
      const name = letters[at]!;
      const spec = known(name);
      const rest = letters.slice(at + 1).join('');
      if (spec.kind === 'bool' && !rest.startsWith('=')) {
        set(name, 'true');
        continue;
      }
      set(name, rest !== '' ? rest : next(name));
      break;
    }
  }
  return { flags, positional };
}

export const stringFlag = (key: string, ...names: string[]): FlagSpec => ({ names, kind: 'string', key });
export const boolFlag = (key: string, ...names: string[]): FlagSpec => ({ names, kind: 'bool', key });
