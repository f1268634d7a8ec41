// The secret-* hook tools (https://github.com/juju/juju/tree/3.6/worker/uniter/runner/jujuc:
// secret-add.go, secret-get.go, secret-set.go, secret-remove.go, secret-grant.go,
// secret-revoke.go, secret-ids.go, secret-info-get.go), with Juju's flags, formats and errors.
// Content goes to the controller base64-encoded per key, as Juju keeps it; `key#file=<path>` is
// read by the hook tool process, never by the agent (hook-tool.bash sends it as `key#base64=`).
import { parseRotatePolicy, parseSecretUri, secretDataFromPairs, splitSecretArg } from '#shared/domain/secrets.js';
import { systemClock } from '../../clock.js';
import { boolFlag, parseFlags, stringFlag } from '../flags.js';
import { formatOf, outputFlags } from '../format.js';
import { output } from '../output.js';
import { relationFromFlag } from '../relation-flag.js';
import { checkEmpty, runtimeError, ToolError, usageError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';
import { errorMessage } from '#shared/domain/errors.js';

/** A domain check's refusal (a bad key, a bad policy) is a usage error, as in Juju's Init. */
function checked<T>(check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (e instanceof Error && e.name === 'DroverError') throw usageError(e.message);
    throw e;
  }
}

/** What the controller answered, as a failure of the tool (exit 1), unless the tool refused first. */
async function calling<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof ToolError) throw e;
    throw runtimeError(errorMessage(e));
  }
}

const UNITS_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `--expire`: a Go duration from now (`24h`, `1h30m`) or an RFC 3339 time, as Juju takes it. */
export function parseExpire(text: string, now: Date): string {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length > 0 && parts.map((p) => p[0]).join('') === text)
    return new Date(now.getTime() + parts.reduce((sum, p) => sum + Number(p[1]) * UNITS_MS[p[2]!]!, 0)).toISOString();
  const time = Date.parse(text);
  if (/^\d{4}-\d\d-\d\dT/.test(text) && !Number.isNaN(time)) return new Date(time).toISOString();
  throw usageError(`invalid expire value "${text}"`);
}

/** The flags secret-add and secret-set share (jujuc's secretUpsertContentCommand). */
const upsertFlags = [
  stringFlag('label', 'label'),
  stringFlag('description', 'description'),
  stringFlag('expire', 'expire'),
  stringFlag('rotate', 'rotate'),
  stringFlag('owner', 'owner'),
  stringFlag('file', 'file'),
];

function upsertBody(flags: Record<string, string | boolean>, pairs: string[]): Record<string, unknown> {
  const owner = flags.owner ?? 'application';
  if (owner !== 'application' && owner !== 'unit') throw usageError(`secret owner "${String(owner)}" not valid`);
  const content: Record<string, string> = {};
  for (const arg of pairs) {
    const [key, value] = checked(() => splitSecretArg(arg));
    content[key] = value;
  }
  return {
    ...(pairs.length ? { content: checked(() => secretDataFromPairs(content)) } : {}),
    ...(typeof flags.label === 'string' ? { label: flags.label } : {}),
    ...(typeof flags.description === 'string' ? { description: flags.description } : {}),
    ...(typeof flags.expire === 'string' ? { expire: parseExpire(flags.expire, new Date(systemClock.now())) } : {}),
    ...(typeof flags.rotate === 'string' ? { rotate: checked(() => parseRotatePolicy(flags.rotate as string)) } : {}),
    owner,
  };
}

/** A secret URI given as the first argument, checked as Juju's ParseURI does. */
function uriArg(positional: string[]): string {
  const [uri] = positional;
  if (uri === undefined) throw usageError('missing secret URI');
  if (!parseSecretUri(uri)) throw usageError(`secret URI "${uri}" not valid`);
  return uri;
}

export const secretAdd: ToolCommand = {
  name: 'secret-add',
  async run(ctx, args) {
    const { flags, positional } = parseFlags(args, upsertFlags);
    if (positional.length === 0) throw usageError('missing secret value or filename');
    const body = upsertBody(flags, positional);
    const { uri } = await calling(() => ctx.secretCall<{ uri: string }>('secret-add', body));
    return `${uri}\n`;
  },
};

export const secretSet: ToolCommand = {
  name: 'secret-set',
  async run(ctx, args) {
    const { flags, positional } = parseFlags(args, upsertFlags);
    const secret = uriArg(positional);
    const { owner: _owner, ...body } = upsertBody(flags, positional.slice(1));
    if (Object.keys(body).length === 0) throw usageError('no secret content or metadata to update');
    await calling(() => ctx.secretCall('secret-set', { secret, ...body }));
    return '';
  },
};

export const secretGet: ToolCommand = {
  name: 'secret-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [
      ...outputFlags,
      stringFlag('label', 'label'),
      boolFlag('peek', 'peek'),
      boolFlag('refresh', 'refresh'),
    ]);
    formatOf(flags);
    const [uri, key, ...rest] = positional;
    checkEmpty(rest);
    const label = typeof flags.label === 'string' ? flags.label : undefined;
    if (uri === undefined && label === undefined) throw usageError('require either a secret URI or label');
    if (uri !== undefined && !parseSecretUri(uri)) throw usageError(`secret URI "${uri}" not valid`);
    if (flags.peek && flags.refresh) throw usageError('specify one of --peek or --refresh but not both');
    const { content } = await calling(() =>
      ctx.secretCall<{ content: Record<string, string> }>('secret-get', {
        secret: uri ?? label,
        ...(uri !== undefined && label !== undefined ? { label } : {}),
        ...(flags.peek ? { peek: true } : {}),
        ...(flags.refresh ? { refresh: true } : {}),
      }),
    );
    const decoded = (v: string) => Buffer.from(v, 'base64').toString('utf8');
    if (key !== undefined) {
      const encoded = key.endsWith('#base64');
      const name = encoded ? key.slice(0, -'#base64'.length) : key;
      const value = content[name];
      if (value === undefined) throw runtimeError(`secret key "${name}" not found`);
      return output(encoded ? value : decoded(value), flags, io);
    }
    return output(Object.fromEntries(Object.entries(content).map(([k, v]) => [k, decoded(v)])), flags, io);
  },
};

export const secretRemove: ToolCommand = {
  name: 'secret-remove',
  async run(ctx, args) {
    const { flags, positional } = parseFlags(args, [stringFlag('revision', 'revision')]);
    const secret = uriArg(positional);
    checkEmpty(positional.slice(1));
    let revision: number | undefined;
    if (flags.revision !== undefined) {
      revision = Number(flags.revision);
      if (!Number.isInteger(revision) || revision < 1)
        throw usageError(`invalid value "${String(flags.revision)}" for flag --revision: parse error`);
    }
    await calling(() => ctx.secretCall('secret-remove', { secret, ...(revision !== undefined ? { revision } : {}) }));
    return '';
  },
};

function grantFlags(args: string[], revoke: boolean) {
  const specs = [
    stringFlag('relation', 'r', 'relation'),
    stringFlag('unit', 'unit'),
    ...(revoke ? [stringFlag('app', 'app', 'application')] : []),
  ];
  return parseFlags(args, specs);
}

/** secret-grant and secret-revoke: over a relation, to its other application or one of its units. */
function accessTool(name: 'secret-grant' | 'secret-revoke'): ToolCommand {
  return {
    name,
    async run(ctx, args) {
      const { flags, positional } = grantFlags(args, name === 'secret-revoke');
      const secret = uriArg(positional);
      checkEmpty(positional.slice(1));
      if (flags.relation === undefined && name === 'secret-grant') throw usageError('missing relation or application');
      const relation = relationFromFlag(ctx, flags.relation);
      const unit = typeof flags.unit === 'string' ? flags.unit : undefined;
      if (unit !== undefined && unit.split('/')[0] !== relation.remoteApplication)
        throw usageError(`invalid unit "${unit}": not in relation ${relation.endpoint}:${relation.id}`);
      await calling(() => ctx.secretCall(name, { secret, relationId: relation.id, ...(unit !== undefined ? { to: unit } : {}) }));
      return '';
    },
  };
}

export const secretGrant = accessTool('secret-grant');
export const secretRevoke = accessTool('secret-revoke');

export const secretIds: ToolCommand = {
  name: 'secret-ids',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, outputFlags);
    formatOf(flags);
    checkEmpty(positional);
    const { ids } = await calling(() => ctx.secretCall<{ ids: string[] }>('secret-ids', {}));
    return output(ids, flags, io);
  },
};

export const secretInfoGet: ToolCommand = {
  name: 'secret-info-get',
  async run(ctx, args, io) {
    const { flags, positional } = parseFlags(args, [...outputFlags, stringFlag('label', 'label')]);
    const format = flags.format ?? 'yaml';
    if (format !== 'yaml' && format !== 'json')
      throw usageError(`invalid value "${String(format)}" for flag --format: unknown format "${String(format)}"`);
    const [uri, ...rest] = positional;
    checkEmpty(rest);
    const label = typeof flags.label === 'string' ? flags.label : undefined;
    if (uri === undefined && label === undefined) throw usageError('require either a secret URI or label');
    if (uri !== undefined && label !== undefined) throw usageError('specify either a secret URI or label but not both');
    if (uri !== undefined && !parseSecretUri(uri)) throw usageError(`secret URI "${uri}" not valid`);
    const info = await calling(() => ctx.secretCall<Record<string, unknown>>('secret-info-get', { secret: uri ?? label }));
    return output(info, { ...flags, format }, io, { ordered: true });
  },
};

export const SECRET_TOOLS: ToolCommand[] = [
  secretAdd,
  secretGet,
  secretSet,
  secretRemove,
  secretGrant,
  secretRevoke,
  secretIds,
  secretInfoGet,
];
