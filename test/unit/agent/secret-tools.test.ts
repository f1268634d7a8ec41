// The secret-* hook tools against a fake context that records what they ask the controller:
// the exact calls ops's Secret API makes (ops/hookcmds/_secret.py), Juju's flags and output
// formats, and usage errors (exit 2) before anything is sent.
import { describe, expect, it } from 'vitest';
import { runTool } from '../../../agent/hook-tools/commands/index.js';
import { parseExpire } from '../../../agent/hook-tools/commands/secrets.js';
import type { ToolContext } from '../../../agent/hook-tools/tool-context.js';

const URI = 'secret:cu5ff0d8kgbs73a1opb0';
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Only what the secret tools use; anything else would throw. */
function fakeContext(answers: Record<string, unknown> = {}) {
  const calls: [string, Record<string, unknown>][] = [];
  const ctx = {
    unitName: 'db/0',
    hookRelationId: 4,
    relations: () => [{ id: 4, endpoint: 'database', remoteApplication: 'client' }],
    async secretCall(op: string, body: Record<string, unknown>) {
      calls.push([op, body]);
      return answers[op] ?? {};
    },
  } as unknown as ToolContext;
  return { ctx, calls };
}

const run = (ctx: ToolContext, tool: string, ...args: string[]) => runTool(ctx, tool, args, { cwd: '/' });
const ok = (stdout: string) => ({ code: 0, stdout, stderr: '' });
const usage = (message: string) => ({ code: 2, stdout: '', stderr: `ERROR ${message}\n` });

describe('secret-add', () => {
  it("takes ops's call (content as key#base64=, as hook-tool.bash sends key#file=) and prints the URI", async () => {
    const { ctx, calls } = fakeContext({ 'secret-add': { uri: URI } });
    const res = await run(
      ctx,
      'secret-add',
      '--label',
      'creds',
      '--description',
      'd',
      '--rotate',
      'daily',
      '--owner',
      'application',
      `password#base64=${b64('hunter2')}`,
      'user=admin',
    );
    expect(res).toEqual(ok(`${URI}\n`));
    expect(calls).toEqual([
      [
        'secret-add',
        {
          content: { password: b64('hunter2'), user: b64('admin') },
          label: 'creds',
          description: 'd',
          rotate: 'daily',
          owner: 'application',
        },
      ],
    ]);
  });
  it("refuses bad input in Juju's words before sending anything", async () => {
    const { ctx, calls } = fakeContext();
    expect(await run(ctx, 'secret-add')).toEqual(usage('missing secret value or filename'));
    expect(await run(ctx, 'secret-add', 'Bad=x')).toEqual(usage('key "Bad" not valid'));
    expect(await run(ctx, 'secret-add', 'novalue')).toEqual(usage('key value "novalue" not valid'));
    expect(await run(ctx, 'secret-add', '--rotate', 'often', 'key=v')).toEqual(usage('rotate policy "often" not valid'));
    expect(await run(ctx, 'secret-add', '--owner', 'model', 'key=v')).toEqual(usage('secret owner "model" not valid'));
    expect(calls).toEqual([]);
  });
  it('--expire takes a duration from now or an RFC 3339 time', () => {
    const now = new Date('2025-01-01T00:00:00Z');
    expect(parseExpire('24h', now)).toBe('2025-01-02T00:00:00.000Z');
    expect(parseExpire('1h30m', now)).toBe('2025-01-01T01:30:00.000Z');
    expect(parseExpire('2025-03-01T10:00:00+01:00', now)).toBe('2025-03-01T09:00:00.000Z');
    expect(() => parseExpire('soon', now)).toThrow('invalid expire value "soon"');
  });
});

describe('secret-get', () => {
  it('prints the decoded content in the format asked, or one key', async () => {
    const { ctx, calls } = fakeContext({ 'secret-get': { content: { password: b64('hunter2'), user: b64('admin') } } });
    expect(await run(ctx, 'secret-get', '--format=json', URI, '--refresh')).toEqual(ok('{"password":"hunter2","user":"admin"}\n'));
    expect(await run(ctx, 'secret-get', '--format=json', '--label', 'creds', '--peek')).toEqual(
      ok('{"password":"hunter2","user":"admin"}\n'),
    );
    expect(await run(ctx, 'secret-get', URI, 'user')).toEqual(ok('admin\n'));
    expect(await run(ctx, 'secret-get', URI, 'user#base64')).toEqual(ok(`${b64('admin')}\n`));
    expect(calls.map(([, body]) => body)).toEqual([
      { secret: URI, refresh: true },
      { secret: 'creds', peek: true },
      { secret: URI },
      { secret: URI },
    ]);
  });
  it('sets a consumer label given with a URI; needs a URI or label, and one of --peek and --refresh', async () => {
    const { ctx, calls } = fakeContext({ 'secret-get': { content: {} } });
    await run(ctx, 'secret-get', URI, '--label', 'mine');
    expect(calls[0]![1]).toEqual({ secret: URI, label: 'mine' });
    expect(await run(ctx, 'secret-get')).toEqual(usage('require either a secret URI or label'));
    expect(await run(ctx, 'secret-get', 'nope')).toEqual(usage('secret URI "nope" not valid'));
    expect(await run(ctx, 'secret-get', URI, '--peek', '--refresh')).toEqual(usage('specify one of --peek or --refresh but not both'));
  });
});

describe('secret-set, secret-remove, secret-grant, secret-revoke, secret-ids, secret-info-get', () => {
  it("make ops's calls", async () => {
    const info = { cu5ff0d8kgbs73a1opb0: { revision: 2, label: 'creds', owner: 'application', rotation: 'never' } };
    const { ctx, calls } = fakeContext({ 'secret-ids': { ids: [URI] }, 'secret-info-get': info });
    expect(await run(ctx, 'secret-set', '--owner', 'application', URI, `password#base64=${b64('new')}`)).toEqual(ok(''));
    expect(await run(ctx, 'secret-remove', URI, '--revision', '1')).toEqual(ok(''));
    expect(await run(ctx, 'secret-grant', '--relation', '4', URI)).toEqual(ok(''));
    expect(await run(ctx, 'secret-grant', '--relation', '4', '--unit', 'client/1', URI)).toEqual(ok(''));
    expect(await run(ctx, 'secret-revoke', '--relation', '4', URI)).toEqual(ok(''));
    expect(await run(ctx, 'secret-ids', '--format=json')).toEqual(ok(`["${URI}"]\n`));
    expect(await run(ctx, 'secret-info-get', '--format=json', URI)).toEqual(ok(`${JSON.stringify(info)}\n`));
    expect(calls).toEqual([
      ['secret-set', { secret: URI, content: { password: b64('new') } }],
      ['secret-remove', { secret: URI, revision: 1 }],
      ['secret-grant', { secret: URI, relationId: 4 }],
      ['secret-grant', { secret: URI, relationId: 4, to: 'client/1' }],
      ['secret-revoke', { secret: URI, relationId: 4 }],
      ['secret-ids', {}],
      ['secret-info-get', { secret: URI }],
    ]);
  });
  it('refuse bad arguments before sending anything', async () => {
    const { ctx, calls } = fakeContext();
    expect(await run(ctx, 'secret-set', URI)).toEqual(usage('no secret content or metadata to update'));
    expect(await run(ctx, 'secret-remove')).toEqual(usage('missing secret URI'));
    expect(await run(ctx, 'secret-remove', URI, '--revision', 'x')).toEqual(usage('invalid value "x" for flag --revision: parse error'));
    expect(await run(ctx, 'secret-grant', URI)).toEqual(usage('missing relation or application'));
    expect(await run(ctx, 'secret-grant', '-r', '4', '--unit', 'other/0', URI)).toEqual(
      usage('invalid unit "other/0": not in relation database:4'),
    );
    expect(await run(ctx, 'secret-info-get', URI, '--label', 'x')).toEqual(usage('specify either a secret URI or label but not both'));
    expect(calls).toEqual([]);
  });
  it('report a refusal of the controller as a runtime error, in its words', async () => {
    const ctx = {
      unitName: 'db/0',
      relations: () => [],
      secretCall: async () => {
        throw new Error('permission denied');
      },
    } as unknown as ToolContext;
    expect(await run(ctx, 'secret-get', URI)).toEqual({ code: 1, stdout: '', stderr: 'ERROR permission denied\n' });
  });
});
