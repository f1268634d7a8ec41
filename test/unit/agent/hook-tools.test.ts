// The hook tools' flags, output formats and exit codes (reference §4.4), run against a fake
// hook context: usage errors exit 2, runtime errors exit 1, both as `ERROR <message>`.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTool } from '../../../agent/hook-tools/commands/index.js';
import { parseFlags, boolFlag, stringFlag } from '../../../agent/hook-tools/flags.js';
import { formatValue } from '../../../agent/hook-tools/format.js';
import type { ToolContext, WorkloadStatus } from '../../../agent/hook-tools/tool-context.js';
import type { LogLevel } from '../../../shared/logs/log-sink.js';

class FakeContext implements ToolContext {
  unitName = 'wordpress/0';
  hookRelationId?: number = 3;
  remoteUnit?: string = 'mysql/0';
  logs: [LogLevel, string][] = [];
  sets: [number, Record<string, string>][] = [];
  ports: [string, string][] = [];
  statuses: WorkloadStatus[] = [];
  settings: Record<string, Record<string, string>> = {
    '3/mysql/0': { host: '10.0.0.1', 'private-address': '10.0.0.1' },
    '3/wordpress/0': { 'private-address': '10.0.0.2' },
  };
  relations() {
    return [
      { id: 3, endpoint: 'db', remoteApplication: 'mysql' },
      { id: 12, endpoint: 'db', remoteApplication: 'mariadb' },
      { id: 5, endpoint: 'cache', remoteApplication: 'varnish' },
    ];
  }
  relationUnits(id: number) {
    return id === 3 ? ['mysql/2', 'mysql/10', 'mysql/0'] : [];
  }
  async readSettings(id: number, unit: string) {
    const s = this.settings[`${id}/${unit}`];
    if (!s) throw new Error(`cannot read settings for unit "${unit}" in relation "db:${id}": unit "${unit}": settings not found`);
    return s;
  }
  setSettings(id: number, changes: Record<string, string>) {
    this.sets.push([id, changes]);
  }
  config() {
    return { values: { title: 'My Blog', port: 80, debug: false }, options: ['title', 'port', 'debug', 'secret'] };
  }
  address(kind: 'private' | 'public') {
    return kind === 'private' ? '10.0.0.2' : '54.1.2.3';
  }
  changePort(action: 'open' | 'close', range: string) {
    this.ports.push([action, range]);
  }
  async setStatus(s: WorkloadStatus) {
    this.statuses.push(s);
  }
  status() {
    return { status: 'active', message: 'ready' };
  }
  log(level: LogLevel, message: string) {
    this.logs.push([level, message]);
  }
  async isLeader() {
    return false;
  }
  async leaderSettings() {
    return {};
  }
  async setLeaderSettings() {
    throw new Error('cannot write settings: not the leader');
  }
}

const cwd = mkdtempSync(join(tmpdir(), 'hook-tools-'));
const run = (ctx: ToolContext, tool: string, ...args: string[]) => runTool(ctx, tool, args, { cwd });
const ok = (stdout: string) => ({ code: 0, stdout, stderr: '' });
const usage = (message: string) => ({ code: 2, stdout: '', stderr: `ERROR ${message}\n` });
const failure = (message: string) => ({ code: 1, stdout: '', stderr: `ERROR ${message}\n` });

describe('flags, in the manner of gnuflag', () => {
  const specs = [stringFlag('relation', 'r', 'relation'), boolFlag('app', 'app')];
  it('takes -r 3, -r=3, --relation 3 and --relation=3, interspersed with arguments', () => {
    for (const args of [
      ['-r', '3', 'a'],
      ['-r=3', 'a'],
      ['a', '--relation', '3'],
      ['--relation=3', 'a'],
    ]) {
      expect(parseFlags(args, specs)).toEqual({ flags: { relation: '3' }, positional: ['a'] });
    }
  });
  it('treats - as an argument and stops at --', () => {
    expect(parseFlags(['-', '--', '--app'], specs)).toEqual({ flags: {}, positional: ['-', '--app'] });
  });
  it('refuses unknown flags and missing values', () => {
    expect(() => parseFlags(['--nope'], specs)).toThrow('flag provided but not defined: --nope');
    expect(() => parseFlags(['-r'], specs)).toThrow('flag needs an argument: -r');
  });
});

describe('output formats', () => {
  it('smart prints strings raw, lists one per line, booleans as True/False, nothing for nil, YAML otherwise', () => {
    expect(formatValue('x', 'smart')).toBe('x\n');
    expect(formatValue(['a', 'b'], 'smart')).toBe('a\nb\n');
    expect(formatValue(true, 'smart')).toBe('True\n');
    expect(formatValue(null, 'smart')).toBe('');
    expect(formatValue([], 'smart')).toBe('');
    expect(formatValue({ b: '1', a: 2 }, 'smart')).toBe('a: 2\nb: "1"\n');
  });
  it('json and yaml print the value in that syntax, json with sorted keys', () => {
    expect(formatValue({ b: '1', a: 2 }, 'json')).toBe('{"a":2,"b":"1"}\n');
    expect(formatValue(null, 'json')).toBe('null\n');
    expect(formatValue(['a'], 'yaml')).toBe('- a\n');
  });
});

describe('relation-get', () => {
  it('defaults to the hook relation and remote unit', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'relation-get', 'host')).toEqual(ok('10.0.0.1\n'));
    expect(await run(ctx, 'relation-get')).toEqual(ok('host: 10.0.0.1\nprivate-address: 10.0.0.1\n'));
    expect(await run(ctx, 'relation-get', '-', 'wordpress/0', '--format=json')).toEqual(ok('{"private-address":"10.0.0.2"}\n'));
  });
  it('prints nothing for a missing key', async () => {
    expect(await run(new FakeContext(), 'relation-get', 'nope')).toEqual(ok(''));
  });
  it('needs a relation outside relation hooks, and a unit in -broken', async () => {
    const ctx = new FakeContext();
    delete ctx.hookRelationId;
    expect(await run(ctx, 'relation-get')).toEqual(usage('no relation id specified'));
    const broken = new FakeContext();
    delete broken.remoteUnit;
    expect(await run(broken, 'relation-get', 'host')).toEqual(usage('no unit or application specified'));
  });
  it('refuses an unknown relation id; reports unreadable settings as a runtime error', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'relation-get', '-r', 'db:99', 'host', 'mysql/0')).toEqual(
      usage('invalid value "db:99" for flag -r: relation not found'),
    );
    expect(await run(ctx, 'relation-get', '-r', 'x', 'host', 'mysql/0')).toEqual(
      usage('invalid value "x" for flag -r: invalid relation id'),
    );
    expect(await run(ctx, 'relation-get', '-r', '12', 'host', 'mariadb/0')).toEqual(
      failure('cannot read settings for unit "mariadb/0" in relation "db:12": unit "mariadb/0": settings not found'),
    );
  });
  it('writes to -o FILE instead of stdout', async () => {
    expect(await run(new FakeContext(), 'relation-get', 'host', '-o', 'out.txt')).toEqual(ok(''));
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('10.0.0.1\n');
  });
  it('refuses an unknown --format as a usage error', async () => {
    expect(await run(new FakeContext(), 'relation-get', '--format', 'xml')).toEqual(
      usage('invalid value "xml" for flag --format: unknown format "xml"'),
    );
  });
});

describe('relation-set', () => {
  it('buffers key=value settings for the hook relation or -r; an empty value deletes', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'relation-set', 'a=1', 'b=')).toEqual(ok(''));
    expect(await run(ctx, 'relation-set', '-r', 'cache:5', 'c=x=y')).toEqual(ok(''));
    expect(ctx.sets).toEqual([
      [3, { a: '1', b: '' }],
      [5, { c: 'x=y' }],
    ]);
  });
  it('refuses malformed and duplicate settings', async () => {
    expect(await run(new FakeContext(), 'relation-set', 'nope')).toEqual(usage('expected "key=value", got "nope"'));
    expect(await run(new FakeContext(), 'relation-set', 'a=1', 'a=2')).toEqual(usage('key "a" specified more than once'));
  });
  it('reads a YAML --file (or stdin), overridden by the arguments', async () => {
    writeFileSync(join(cwd, 's.yaml'), 'a: one\nport: 5432\n');
    const ctx = new FakeContext();
    await run(ctx, 'relation-set', '--file', 's.yaml', 'a=two');
    expect(ctx.sets).toEqual([[3, { a: 'two', port: '5432' }]]);
    const fromStdin = new FakeContext();
    expect(await runTool(fromStdin, 'relation-set', ['--file', '-'], { cwd, stdin: 'k: v\n' })).toEqual(ok(''));
    expect(fromStdin.sets).toEqual([[3, { k: 'v' }]]);
  });
});

describe('relation-ids and relation-list', () => {
  it('relation-ids lists name:id for the hook endpoint or the named one, sorted', async () => {
    expect(await run(new FakeContext(), 'relation-ids')).toEqual(ok('db:12\ndb:3\n'));
    expect(await run(new FakeContext(), 'relation-ids', 'cache', '--format', 'json')).toEqual(ok('["cache:5"]\n'));
    const outside = new FakeContext();
    delete outside.hookRelationId;
    expect(await run(outside, 'relation-ids')).toEqual(usage('no relation name specified'));
  });
  it('relation-list lists the units, sorted as strings; --app the remote application', async () => {
    expect(await run(new FakeContext(), 'relation-list')).toEqual(ok('mysql/0\nmysql/10\nmysql/2\n'));
    expect(await run(new FakeContext(), 'relation-list', '--app')).toEqual(ok('mysql\n'));
    expect(await run(new FakeContext(), 'relation-list', 'extra')).toEqual(usage('unrecognized args: ["extra"]'));
  });
});

describe('unit tools', () => {
  it('unit-get prints an address and refuses anything else', async () => {
    expect(await run(new FakeContext(), 'unit-get', 'private-address')).toEqual(ok('10.0.0.2\n'));
    expect(await run(new FakeContext(), 'unit-get', 'public-address')).toEqual(ok('54.1.2.3\n'));
    expect(await run(new FakeContext(), 'unit-get')).toEqual(usage('no setting specified'));
    expect(await run(new FakeContext(), 'unit-get', 'foo')).toEqual(usage('unknown setting "foo"'));
  });
  it('config-get prints one value, all values, or --all with nulls', async () => {
    expect(await run(new FakeContext(), 'config-get', 'title')).toEqual(ok('My Blog\n'));
    expect(await run(new FakeContext(), 'config-get', 'debug')).toEqual(ok('False\n'));
    expect(await run(new FakeContext(), 'config-get', 'port')).toEqual(ok('80\n'));
    expect(await run(new FakeContext(), 'config-get', 'nope')).toEqual(ok(''));
    expect(await run(new FakeContext(), 'config-get', '--format=json')).toEqual(ok('{"debug":false,"port":80,"title":"My Blog"}\n'));
    expect(await run(new FakeContext(), 'config-get', '-a', '--format=json')).toEqual(
      ok('{"debug":false,"port":80,"secret":null,"title":"My Blog"}\n'),
    );
    expect(await run(new FakeContext(), 'config-get', '--all', 'title')).toEqual(
      usage('cannot use argument --all together with key "title"'),
    );
  });
  it('open-port and close-port buffer canonical ranges and refuse bad ones', async () => {
    const ctx = new FakeContext();
    await run(ctx, 'open-port', '80');
    await run(ctx, 'open-port', '8000-8080/UDP');
    await run(ctx, 'close-port', 'icmp');
    expect(ctx.ports).toEqual([
      ['open', '80/tcp'],
      ['open', '8000-8080/udp'],
      ['close', 'icmp'],
    ]);
    expect(await run(ctx, 'open-port')).toEqual(usage('no port or range specified'));
    expect(await run(ctx, 'open-port', '0')).toEqual(usage('port must be in the range [1, 65535]; got "0"'));
    expect(await run(ctx, 'open-port', '80/sctp')).toEqual(usage('protocol must be "tcp", "udp", or "icmp"; got "sctp"'));
    expect(await run(ctx, 'open-port', 'http')).toEqual(
      usage('expected <port>[/<protocol>] or <from>-<to>[/<protocol>] or icmp; got "http"'),
    );
  });
  it('status-set sets the workload status at once; status-get reads it', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'status-set', 'maintenance', 'installing')).toEqual(ok(''));
    expect(ctx.statuses).toEqual([{ status: 'maintenance', message: 'installing' }]);
    expect(await run(ctx, 'status-set', 'happy')).toEqual(
      usage('invalid status "happy", expected one of [maintenance blocked waiting active]'),
    );
    expect(await run(ctx, 'status-get')).toEqual(ok('active\n'));
    expect(await run(ctx, 'status-get', '--include-data', '--format=json')).toEqual(
      ok('{"message":"ready","status":"active","status-data":{}}\n'),
    );
  });
  it('juju-log logs at INFO (or -l LEVEL), prefixed with the relation in relation hooks', async () => {
    const ctx = new FakeContext();
    await run(ctx, 'juju-log', 'hello', 'world');
    await run(ctx, 'juju-log', '-l', 'WARNING', 'careful');
    await run(ctx, 'juju-log', '--debug', 'details');
    await run(ctx, 'juju-log', '-l', 'LOUD', 'x');
    expect(ctx.logs).toEqual([
      ['INFO', 'db:3: hello world'],
      ['WARNING', 'db:3: careful'],
      ['DEBUG', 'db:3: details'],
      ['WARNING', 'Specified log level of "LOUD" is not valid'],
      ['INFO', 'db:3: x'],
    ]);
    expect(await run(ctx, 'juju-log')).toEqual(usage('no message specified'));
  });
  it('an unknown tool is a usage error', async () => {
    expect(await run(new FakeContext(), 'no-such-tool')).toEqual(usage('unknown command "no-such-tool"'));
  });
});
