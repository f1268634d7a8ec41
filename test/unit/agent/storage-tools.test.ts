// storage-list, storage-get and storage-add as Juju 3.6's jujuc commands behave
// (https://github.com/juju/juju/tree/3.6/internal/worker/uniter/runner/jujuc, storage-*.go), and as
// ops calls them (`storage-list <name> --format=json`, `storage-get -s <id> location --format=json`,
// `storage-add <name>=<count>`), against a fake hook context: usage errors exit 2, runtime errors 1.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTool } from '../../../agent/hook-tools/commands/index.js';
import type { ToolContext, ToolStorage } from '../../../agent/hook-tools/tool-context.js';
import { HookContext } from '../../../agent/uniter/hook-context.js';
import type { HookContextInit } from '../../../agent/uniter/hook-context-init.js';

const ATTACHED: ToolStorage[] = [
  { id: 'data/0', kind: 'filesystem', location: '/var/lib/juju/storage/data/0' },
  { id: 'data/3', kind: 'filesystem', location: '/var/lib/juju/storage/data/3' },
  { id: 'logs/1', kind: 'filesystem', location: '/srv/logs' },
  { id: 'disk/2', kind: 'block', location: '/dev/nvme1n1' },
  { id: 'data/4', kind: 'filesystem' },
];

function context(hookStorageId?: string): ToolContext & { added: Record<string, number>[] } {
  const added: Record<string, number>[] = [];
  return {
    unitName: 'pg/0',
    ...(hookStorageId !== undefined ? { hookStorageId } : {}),
    added,
    storageAttachments: () => ATTACHED,
    addStorage: (counts: Record<string, number>) => added.push(counts),
  } as unknown as ToolContext & { added: Record<string, number>[] };
}

const cwd = mkdtempSync(join(tmpdir(), 'storage-tools-'));
const run = (ctx: ToolContext, tool: string, ...args: string[]) => runTool(ctx, tool, args, { cwd });
const ok = (stdout: string) => ({ code: 0, stdout, stderr: '' });
const usage = (message: string) => ({ code: 2, stdout: '', stderr: `ERROR ${message}\n` });
const failure = (message: string) => ({ code: 1, stdout: '', stderr: `ERROR ${message}\n` });

describe('storage-list', () => {
  it("lists the ids of the unit's storage, or only one storage name's: a line each, JSON as ops reads it", async () => {
    const ctx = context();
    expect(await run(ctx, 'storage-list')).toEqual(ok('data/0\ndata/3\nlogs/1\ndisk/2\ndata/4\n'));
    expect(await run(ctx, 'storage-list', 'data', '--format=json')).toEqual(ok('["data/0","data/3","data/4"]\n'));
    expect(await run(ctx, 'storage-list', 'other', '--format=json')).toEqual(ok('[]\n'));
    expect(await run(ctx, 'storage-list', 'other')).toEqual(ok(''));
    expect(await run(ctx, 'storage-list', '--format', 'yaml', 'logs')).toEqual(ok('- logs/1\n'));
  });

  it('takes one storage name at most, and only its output options', async () => {
    expect(await run(context(), 'storage-list', 'data', 'logs')).toEqual(usage('unrecognized args: ["logs"]'));
    expect(await run(context(), 'storage-list', '-s', 'data/0')).toEqual(usage('option provided but not defined: -s'));
  });
});

describe('storage-get', () => {
  it('prints the kind and location of the instance -s names: a map, or the one key asked for', async () => {
    const ctx = context();
    expect(await run(ctx, 'storage-get', '-s', 'data/3')).toEqual(ok('kind: filesystem\nlocation: /var/lib/juju/storage/data/3\n'));
    // ops: `storage-get -s <id> location --format=json`, and lately `--format=json -s <id>` for both keys.
    expect(await run(ctx, 'storage-get', '-s', 'logs/1', 'location', '--format=json')).toEqual(ok('"/srv/logs"\n'));
    expect(await run(ctx, 'storage-get', '--format=json', '-s', 'disk/2')).toEqual(ok('{"kind":"block","location":"/dev/nvme1n1"}\n'));
    expect(await run(ctx, 'storage-get', '-sdata/0', 'kind')).toEqual(ok('filesystem\n'));
  });

  it("answers --help with Juju's help, whose -s line names the hook's storage as ops 2.x reads it", async () => {
    const answer = await run(context('logs/1'), 'storage-get', '--help');
    expect(answer).toMatchObject({ code: 0, stderr: '' });
    expect(answer.stdout).toMatch(/^Usage: storage-get \[options\] \[<key>\]\n/);
    // ops/model.py's _STORAGE_KEY_RE (ops 2.19), which _storage_event_details matches against the help.
    const opsKey = /.*^-s\s+\(=\s+(?<key>.*?)\)\s*?$/ms.exec(answer.stdout)?.groups?.key;
    expect(opsKey).toBe('logs/1');
    expect((await run(context(), 'storage-get', '-h')).stdout).toContain('\n-s  (= )\n');
  });

  it("defaults to the storage hook's own instance, which -s overrides", async () => {
    const ctx = context('logs/1');
    expect(await run(ctx, 'storage-get', 'location')).toEqual(ok('/srv/logs\n'));
    expect(await run(ctx, 'storage-get', '-s', 'data/0', 'location')).toEqual(ok('/var/lib/juju/storage/data/0\n'));
  });

  it("refuses in Juju's words: no instance outside a storage hook, a bad or unknown id, an unknown key", async () => {
    expect(await run(context(), 'storage-get', 'location')).toEqual(usage('no storage instance specified'));
    expect(await run(context(), 'storage-get', '-s', 'Data/0')).toEqual(
      usage('invalid value "Data/0" for option -s: invalid storage ID "Data/0"'),
    );
    expect(await run(context(), 'storage-get', '-s', 'data/01')).toEqual(
      usage('invalid value "data/01" for option -s: invalid storage ID "data/01"'),
    );
    expect(await run(context(), 'storage-get', '-s', 'data/9')).toEqual(
      usage('invalid value "data/9" for option -s: storage attachment data/9:pg/0 not found'),
    );
    expect(await run(context(), 'storage-get', '-s', 'data/0', 'size')).toEqual(failure('invalid storage attribute "size"'));
    expect(await run(context(), 'storage-get', '-s', 'data/0', 'kind', 'location')).toEqual(usage('unrecognized args: ["location"]'));
  });

  it('says an attachment the agent has not made ready yet is not provisioned', async () => {
    expect(await run(context('data/4'), 'storage-get')).toEqual(failure('storage data/4 not provisioned'));
    expect(await run(context(), 'storage-get', '-s', 'data/4')).toEqual(
      usage('invalid value "data/4" for option -s: storage data/4 not provisioned'),
    );
  });
});

describe('storage-add', () => {
  it('asks for counts by storage name, 1 unless given, added when the hook commits', async () => {
    const ctx = context();
    expect(await run(ctx, 'storage-add', 'data=2', 'logs')).toEqual(ok(''));
    expect(await run(ctx, 'storage-add', 'data=,3')).toEqual(ok(''));
    expect(ctx.added).toEqual([{ data: 2, logs: 1 }, { data: 3 }]);
  });

  it("refuses directives as Juju's parser does, and anything but a count, changing nothing", async () => {
    const ctx = context();
    const refusals: [string[], string][] = [
      [[], 'storage add requires a storage directive'],
      [['a=b=c'], 'expected "name=directive" or "name", got "a=b=c"'],
      [['=2'], 'expected "name=directive" or "name", got "=2"'],
      [['data', 'data=2'], 'storage "data" specified more than once'],
      [['data=0'], 'cannot parse directive for storage "data": cannot parse count: count must be greater than zero, got "0"'],
      [['data=-1'], 'cannot parse directive for storage "data": cannot parse count: count must be greater than zero, got "-1"'],
      [['data='], 'cannot parse directive for storage "data": storage directives require at least one field to be specified'],
      [['data=2,x!'], 'cannot parse directive for storage "data": unrecognized storage directive "x!" not valid'],
      [['data=ebs,rootfs'], 'cannot parse directive for storage "data": pool name is already set to "ebs", new value "rootfs" not valid'],
      [['data=-1G'], 'cannot parse directive for storage "data": cannot parse size: expected a non-negative number, got "-1G"'],
      [['data=ebs'], 'only count can be specified for "data"'],
      [['data=2,10G'], 'only count can be specified for "data"'],
      [['--count=2'], 'option provided but not defined: --count'],
    ];
    for (const [args, message] of refusals) expect(await run(ctx, 'storage-add', ...args), args.join(' ')).toEqual(usage(message));
    expect(ctx.added).toEqual([]);
  });
});

describe('storage-add in a hook', () => {
  function hookContext() {
    const calls: [string, unknown][] = [];
    // Only what storage-add, state-set and the commit touch.
    const init = {
      id: 'ctx-1',
      unitName: 'pg/0',
      modelUuid: '',
      openPorts: [],
      relations: [],
      workload: { status: 'unknown', message: '' },
      storage: { attachments: ATTACHED },
      api: {
        call: async (op: string, body: unknown) => {
          calls.push([op, body]);
          return {};
        },
      },
    } as unknown as HookContextInit;
    return { ctx: new HookContext(init), calls };
  }

  it('adds nothing until the hook commits; then, after its other changes, one storage-add per name with the counts added up', async () => {
    const { ctx, calls } = hookContext();
    expect((await run(ctx, 'storage-add', 'data=2', 'logs')).code).toBe(0);
    expect((await run(ctx, 'storage-add', 'data')).code).toBe(0);
    expect((await run(ctx, 'state-set', 'k=v')).code).toBe(0);
    expect(calls).toEqual([]);
    await ctx.flush();
    expect(calls.map(([op]) => op)).toEqual(['commit-hook', 'storage-add', 'storage-add']);
    expect(calls.slice(1)).toEqual([
      ['storage-add', { unit: 'pg/0', name: 'data', count: 3 }],
      ['storage-add', { unit: 'pg/0', name: 'logs', count: 1 }],
    ]);
  });

  it('a hook with only storage-add sends only that; one without sends nothing', async () => {
    const alone = hookContext();
    await run(alone.ctx, 'storage-add', 'data=1');
    await alone.ctx.flush();
    expect(alone.calls).toEqual([['storage-add', { unit: 'pg/0', name: 'data', count: 1 }]]);
    const none = hookContext();
    await none.ctx.flush();
    expect(none.calls).toEqual([]);
  });

  it('storage-list and storage-get read the unit’s attachments from the context', async () => {
    const { ctx } = hookContext();
    expect(await run(ctx, 'storage-list', 'logs')).toEqual(ok('logs/1\n'));
    expect(await run(ctx, 'storage-get', '-s', 'logs/1', 'location')).toEqual(ok('/srv/logs\n'));
  });
});
