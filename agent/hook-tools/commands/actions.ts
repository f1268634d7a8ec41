// The action tools (https://github.com/juju/juju/tree/3.6/worker/uniter/runner/jujuc:
// action-get.go, action-set.go, action-log.go, action-fail.go), with Juju's arguments, checks
// and messages. Outside an action each fails as Juju's context does: "not running an action".
import { parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import type { ActionToolContext, ToolContext } from '../tool-context.js';
import { checkEmpty, runtimeError, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';

/** action-set's keyRule: lowercase alphanumerics with inner hyphens, per dotted part. */
const KEY = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** Results Juju fills in from the action's own output. */
const RESERVED_KEYS = ['stdout', 'stdout-encoding', 'stderr', 'stderr-encoding'];

function actionOf(ctx: ToolContext): ActionToolContext {
  if (!ctx.action) throw runtimeError('not running an action');
  return ctx.action;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** action-get [<key>[.<key>...]]: the parameters, or the value at a key path (nothing if absent). */
export const actionGet: ToolCommand = {
  name: 'action-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, outputFlags);
    const [path, ...rest] = positional;
    checkEmpty(rest);
    const params = actionOf(ctx).params();
    if (path === undefined) return output(params, flags, io);
    let value: unknown = params;
    for (const key of path.split('.')) value = isMap(value) && Object.hasOwn(value, key) ? value[key] : undefined;
    return output(value ?? null, flags, io);
  },
};

/**
 * action-set <key>=<value> [<key>.<key>=<value> ...]: values are strings, dotted keys nest. No
 * pair at all sets nothing, and is no error (Juju 3.6's Init checks only the pairs given).
 */
export const actionSet: ToolCommand = {
  name: 'action-set',
  async run(ctx, args) {
    const { positional } = parseFlags(args, []);
    const values: [string[], string][] = [];
    for (const arg of positional) {
      const eq = arg.indexOf('=');
      if (eq === -1) throw usageError(`argument "${arg}" must be of the form key...=value`);
      const keys = arg.slice(0, eq).split('.');
      // Every part of the path is checked, the reserved names at any depth.
      for (const key of keys) {
        if (!KEY.test(key)) {
          throw usageError(
            `key "${key}" must start and end with lowercase alphanumeric, and contain only lowercase alphanumeric and hyphens`,
          );
        }
        if (RESERVED_KEYS.includes(key)) throw usageError(`cannot set reserved action key "${key}"`);
      }
      values.push([keys, arg.slice(eq + 1)]);
    }
    actionOf(ctx).setResults(values);
    return '';
  },
};

/** action-log <message>: the words joined by spaces. */
export const actionLog: ToolCommand = {
  name: 'action-log',
  async run(ctx, args) {
    const { positional } = parseFlags(args, []);
    if (positional.length === 0) throw usageError('no message specified');
    await actionOf(ctx).log(positional.join(' '));
    return '';
  },
};

/** action-fail ["<failure message>"]: Juju's default message when none is given. */
export const actionFail: ToolCommand = {
  name: 'action-fail',
  async run(ctx, args) {
    const { positional } = parseFlags(args, []);
    const [message, ...rest] = positional;
    checkEmpty(rest);
    actionOf(ctx).fail(message ?? 'action failed without reason given, check action for errors');
    return '';
  },
};
