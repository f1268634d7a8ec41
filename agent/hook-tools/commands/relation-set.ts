// relation-set [-r <id>] [--file <yaml|->] key=value...: writes the unit's settings in a relation
// (--app: the application's bag, leader only). Buffered: committed only when the hook exits 0,
// and discarded when it fails, as Juju's HookContext.Flush does
// (https://github.com/juju/juju/blob/3.6/worker/uniter/runner/context/context.go). An empty value deletes the key; values from the command line
// override those of the file; one key twice on the command line is an error.
import { UNSTORABLE_KEY, unstorableKey } from '#shared/api/fields.js';
import { parseYamlScalarsAsText } from '#shared/domain/yaml.js';
import { deprecatedFormatFlag, warnDeprecatedFormat } from '../deprecated-format.js';
import { boolFlag, parseFlags, stringFlag } from '../flags.js';
import { relationFlag, relationFromFlag } from '../relation-flag.js';
import { runtimeError, usageError } from '../tool-errors.js';
import type { ToolIO } from '../tool-context.js';
import type { ToolCommand } from './command.js';
import { errorMessage } from '#shared/domain/errors.js';

/** Juju's keyvalues.Parse (https://github.com/juju/utils/blob/master/keyvalues/keyvalues.go) with duplicates refused. */
export function parseKeyValues(args: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq < 1) throw usageError(`expected "key=value", got "${arg}"`);
    const key = arg.slice(0, eq);
    if (key === UNSTORABLE_KEY) throw usageError(unstorableKey(key));
    if (Object.hasOwn(result, key)) throw usageError(`key "${key}" specified more than once`);
    result[key] = arg.slice(eq + 1);
  }
  return result;
}

export async function readSettingsFile(path: string, io: ToolIO): Promise<Record<string, string>> {
  let text: string;
  try {
    if (path === '-') text = io.stdin ?? '';
    else if (io.fileContent !== undefined) text = io.fileContent;
    // The hook tool reads the file (agent/hook-tools/tool-context.ts, `fileContent`); one that did not is not ours.
    else throw new Error('the hook tool sent no file');
  } catch (e) {
    throw runtimeError(`cannot read ${path}: ${errorMessage(e)}`);
  }
  let doc: unknown;
  try {
    // Read as Juju reads it, into a map of strings: values keep their written text.
    doc = parseYamlScalarsAsText(text);
  } catch (e) {
    throw runtimeError(`cannot parse ${path}: ${errorMessage(e).split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw runtimeError(`${path} must hold a YAML map of settings`);
  const settings: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc)) {
    if (k === UNSTORABLE_KEY) throw runtimeError(`${path}: ${unstorableKey(k)}`);
    if (v !== null && typeof v === 'object') throw runtimeError(`setting "${k}" in ${path} is not a string`);
    settings[k] = v === null ? '' : String(v);
  }
  return settings;
}

export const relationSet: ToolCommand = {
  name: 'relation-set',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [
      relationFlag(ctx),
      stringFlag('file', 'file'),
      boolFlag('app', 'app'),
      deprecatedFormatFlag,
    ]);
    const relation = relationFromFlag(ctx, flags.relation);
    const overrides = parseKeyValues(positional);
    // Juju warns once the arguments are taken (Init), before it runs.
    warnDeprecatedFormat(flags, 'relation-set', io);
    const fromFile = typeof flags.file === 'string' ? await readSettingsFile(flags.file, io) : {};
    const changes = { ...fromFile, ...overrides };
    // --app: the application's bag, the leader's alone ("cannot write relation settings" otherwise).
    if (flags.app === true) await ctx.setAppSettings(relation.id, changes);
    else ctx.setSettings(relation.id, changes);
    return '';
  },
};
