// state-get [--strict] [<key>|-], state-set [--file <yaml|->] key=value..., state-delete <key>:
// the unit's "server side state", as juju/juju worker/uniter/runner/jujuc/state-{get,set,delete}.go.
// The controller keeps it per unit; a hook sees it sandboxed and its changes are committed with
// the hook's other changes, as Juju's HookContext.Flush does.
import { boolFlag, parseFlags, stringFlag } from '../flags.js';
import { NIL_MAP, outputFlags } from '../format.js';
import { output } from '../output.js';
import { checkEmpty, runtimeError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';
import { parseKeyValues, readSettingsFile } from './relation-set.js';

/** Juju's fixed quotas (core/quota: MaxCharmStateKeySize, MaxCharmStateValueSize). */
export const MAX_STATE_KEY_BYTES = 256;
export const MAX_STATE_VALUE_BYTES = 64 * 1024;

export const stateGet: ToolCommand = {
  name: 'state-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [...outputFlags, boolFlag('strict', 'strict')]);
    const [first = '', ...rest] = positional;
    checkEmpty(rest);
    const key = first === '-' ? '' : first;
    const state = await ctx.charmState();
    // Juju's HookContext hands an empty state over as a nil map: `{}`, or `null` in JSON.
    if (key === '') return output(Object.keys(state).length === 0 ? NIL_MAP : state, flags, io);
    if (!Object.hasOwn(state, key)) {
      if (flags.strict === true) throw runtimeError(`"${key}" not found`);
      return output('', flags, io);
    }
    return output(state[key], flags, io);
  },
};

export const stateSet: ToolCommand = {
  name: 'state-set',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [stringFlag('file', 'file')]);
    // keyvalues.Parse(args, true): `key=value`, an empty value allowed, a key once.
    const overrides = parseKeyValues(positional);
    const fromFile = typeof flags.file === 'string' ? await readSettingsFile(flags.file, io) : {};
    const values = { ...fromFile, ...overrides };
    for (const [key, value] of Object.entries(values)) {
      if (Buffer.byteLength(key) > MAX_STATE_KEY_BYTES) throw runtimeError(`max allowed key length (${MAX_STATE_KEY_BYTES}) exceeded`);
      if (Buffer.byteLength(value) > MAX_STATE_VALUE_BYTES)
        throw runtimeError(`max allowed value length (${MAX_STATE_VALUE_BYTES}) exceeded`);
    }
    ctx.setCharmState(values);
    return '';
  },
};

export const stateDelete: ToolCommand = {
  name: 'state-delete',
  async run(ctx, args) {
    const { positional } = parseFlags(args, []);
    const [key = '', ...rest] = positional;
    checkEmpty(rest);
    if (key !== '') ctx.deleteCharmState(key);
    return '';
  },
};
