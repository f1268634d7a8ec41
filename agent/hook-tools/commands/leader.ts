// is-leader, leader-get [<key>], leader-set <key>=<value>...: application leadership
// (https://github.com/juju/juju/tree/3.6/worker/uniter/runner/jujuc: is-leader.go,
// leader-get.go, leader-set.go). is-leader prints a boolean in the output format (smart: True or
// False; json: true or false); leader-get prints one value or the whole map, as config-get does;
// leader-set writes only from the leader, with the hook (agent/uniter/hook-context.ts).
import { parseFlags } from '../flags.js';
import { outputFlags } from '../format.js';
import { output } from '../output.js';
import { checkEmpty, runtimeError, ToolError, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';
import { parseKeyValues } from './relation-set.js';
import { errorMessage } from '#shared/domain/errors.js';

export const isLeader: ToolCommand = {
  name: 'is-leader',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, outputFlags);
    checkEmpty(positional);
    let leader: boolean;
    try {
      leader = await ctx.isLeader();
    } catch (e) {
      throw runtimeError(`leadership status unknown: ${errorMessage(e)}`);
    }
    return output(leader, flags, io);
  },
};

export const leaderGet: ToolCommand = {
  name: 'leader-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, outputFlags);
    const [first, ...rest] = positional;
    const key = first === undefined || first === '-' ? '' : first;
    if (key.includes('=')) throw usageError(`invalid key "${key}"`);
    checkEmpty(rest);
    let settings: Record<string, string>;
    try {
      settings = await ctx.leaderSettings();
    } catch (e) {
      throw runtimeError(`cannot read leadership settings: ${errorMessage(e)}`);
    }
    if (key === '') return output(settings, flags, io);
    return output(Object.hasOwn(settings, key) ? settings[key] : null, flags, io);
  },
};

export const leaderSet: ToolCommand = {
  name: 'leader-set',
  async run(ctx, args) {
    const { positional } = parseFlags(args, []);
    const changes = parseKeyValues(positional);
    try {
      await ctx.setLeaderSettings(changes);
    } catch (e) {
      if (e instanceof ToolError) throw e;
      throw runtimeError(`cannot write leadership settings: ${errorMessage(e)}`);
    }
    return '';
  },
};
