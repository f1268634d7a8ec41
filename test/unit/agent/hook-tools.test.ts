// The hook tools' flags, output formats and exit codes (Juju's
// https://github.com/juju/juju/tree/2.9/worker/uniter/runner/jujuc and juju/cmd), run against a
// fake hook context: usage errors exit 2, runtime errors exit 1, both as `ERROR <message>`.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTool } from '../../../agent/hook-tools/commands/index.js';
import { parseFlags, boolFlag, stringFlag } from '../../../agent/hook-tools/flags.js';
import { formatValue } from '../../../agent/hook-tools/format.js';
import type { GoalState, NetworkInfo, ToolContext, WorkloadStatus } from '../../../agent/hook-tools/tool-context.js';
import type { LogLevel } from '#shared/logs/log-sink.js';

class FakeContext implements ToolContext {
  unitName = 'wordpress/0';
  modelUuid = '6a1c7d1e-7d2b-4c8e-9f3a-1b2c3d4e5f60';
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
  openPorts = ['8080/tcp', '443/tcp', '8000-8100/udp', '80/tcp', 'icmp'];
  openedPorts() {
    return this.openPorts;
  }
  networkInfo(binding: string): NetworkInfo | undefined {
    if (binding !== 'db' && binding !== 'juju-info') return undefined;
    return {
      bindAddresses: [
        { macAddress: '02:00:0a:00:00:02', interfaceName: 'eth0', addresses: [{ hostname: '', value: '10.0.0.2', cidr: '10.0.0.0/24' }] },
      ],
      egressSubnets: ['10.0.0.2/32'],
      ingressAddresses: ['10.0.0.2'],
    };
  }
  async goalState(): Promise<GoalState> {
    return {
      units: {
        'wordpress/1': { status: 'waiting', since: '2026-11-24 10:00:01Z' },
        'wordpress/0': { status: 'active', since: '2026-11-24 10:00:00Z' },
      },
      relations: {
        db: { mysql: { status: 'joined', since: '2026-11-24 10:00:02Z' }, 'mysql/0': { status: 'dying', since: '2026-11-24 10:00:03Z' } },
      },
    };
  }
  versions: string[] = [];
  async setWorkloadVersion(version: string) {
    this.versions.push(version);
  }
  state: Record<string, string> = { token: 'abc', empty: '' };
  stateChanges: [string, string | null][] = [];
  async charmState() {
    return { ...this.state };
  }
  setCharmState(changes: Record<string, string>) {
    for (const [k, v] of Object.entries(changes)) this.stateChanges.push([k, v]);
  }
  deleteCharmState(key: string) {
    this.stateChanges.push([key, null]);
  }
  async isLeader() {
    return false;
  }
  async leaderSettings() {
    return {};
  }
  async secretCall(): Promise<never> {
    throw new Error('no secrets in this fake: test/unit/agent/secret-tools.test.ts covers the secret-* tools');
  }
  async setLeaderSettings() {
    throw new Error('cannot write settings: not the leader');
  }
  /** resource-get's files: name → local path; any other name is one with no revision uploaded. */
  resourceFiles: Record<string, string> = {};
  async resourcePath(name: string) {
    const path = this.resourceFiles[name];
    if (path === undefined) throw new Error(`resource#app/${name} not found: no revision has been uploaded`);
    return path;
  }
  async readAppSettings() {
    return {};
  }
  async setAppSettings() {
    throw new Error('cannot write relation settings');
  }
  async setApplicationStatus() {
    throw new Error('this unit is not the leader');
  }
  async applicationStatus(): Promise<never> {
    throw new Error('this unit is not the leader');
  }
  storageAttachments() {
    return []; // test/unit/agent/storage-tools.test.ts covers the storage tools
  }
  addStorage() {}
}

const cwd = mkdtempSync(join(tmpdir(), 'hook-tools-'));
const run = (ctx: ToolContext, tool: string, ...args: string[]) => runTool(ctx, tool, args, { cwd });
const ok = (stdout: string) => ({ code: 0, stdout, stderr: '' });
const usage = (message: string) => ({ code: 2, stdout: '', stderr: `ERROR ${message}\n` });
const failure = (message: string) => ({ code: 1, stdout: '', stderr: `ERROR ${message}\n` });

describe('flags, in the manner of gnuflag', () => {
  const specs = [stringFlag('relation', 'r', 'relation'), boolFlag('app', 'app'), boolFlag('all', 'a')];
  it('takes -r 3, -r3, --relation 3 and --relation=3, interspersed with arguments', () => {
    for (const args of [
      ['-r', '3', 'a'],
      ['-r3', 'a'],
      ['a', '--relation', '3'],
      ['--relation=3', 'a'],
    ]) {
      expect(parseFlags(args, specs)).toEqual({ flags: { relation: '3' }, positional: ['a'] });
    }
  });
  it('gives a short flag the rest of its argument as it stands, and runs short booleans together', () => {
    expect(parseFlags(['-r=3'], specs)).toEqual({ flags: { relation: '=3' }, positional: [] });
    expect(parseFlags(['-ar', '3'], specs)).toEqual({ flags: { all: true, relation: '3' }, positional: [] });
    expect(parseFlags(['--app=false'], specs)).toEqual({ flags: { app: false }, positional: [] });
  });
  it('treats - as an argument and stops at --', () => {
    expect(parseFlags(['-', '--', '--app'], specs)).toEqual({ flags: {}, positional: ['-', '--app'] });
  });
  it("refuses unknown flags, missing values and bad booleans in Juju 3's words (options)", () => {
    expect(() => parseFlags(['--nope'], specs)).toThrow('option provided but not defined: --nope');
    expect(() => parseFlags(['-x'], specs)).toThrow('option provided but not defined: -x');
    expect(() => parseFlags(['-r'], specs)).toThrow('option needs an argument: -r');
    expect(() => parseFlags(['--=3'], specs)).toThrow('empty flag in argument "--=3"');
    expect(() => parseFlags(['--app=maybe'], specs)).toThrow(
      'invalid value "maybe" for option --app: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
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
    expect(formatValue({}, 'smart')).toBe('{}\n');
  });
  it("writes YAML as Go's yaml.v2 does: YAML 1.1 booleans and Go integers quoted, sequences in a map not indented", () => {
    expect(formatValue({ a: 'yes', b: 'off', n: 'N', c: '1_000', d: 'fine', e: ['on', 'x'] }, 'smart')).toBe(
      'a: "yes"\nb: "off"\nc: "1_000"\nd: fine\ne:\n- "on"\n- x\n"n": "N"\n',
    );
    expect(formatValue('yes', 'yaml')).toBe('"yes"\n');
    expect(formatValue('yes', 'smart')).toBe('yes\n');
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
  it('takes the relation id after the last colon of -r, whatever names it, as Juju does', async () => {
    const ctx = new FakeContext();
    ctx.settings['12/mariadb/0'] = { host: '10.0.0.9' };
    for (const r of ['-r12', '-r=db:12', '--relation=cache:12', '--relation=a:b:12', '-r+12']) {
      expect(await run(ctx, 'relation-get', r, 'host', 'mariadb/0')).toEqual(ok('10.0.0.9\n'));
    }
    expect(await run(ctx, 'relation-list', '-r', 'whatever:5', '--app')).toEqual(ok('varnish\n'));
    expect(await run(ctx, 'relation-set', '-r', 'x:5', 'k=v')).toEqual(ok(''));
    expect(ctx.sets).toEqual([[5, { k: 'v' }]]);
    expect(await run(ctx, 'network-get', 'db', '-r', 'other:3', '--primary-address')).toEqual(ok('10.0.0.2\n'));
  });
  it('refuses a unit name that is not one, in Juju 3.6 words', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'relation-get', '-', 'mysql')).toEqual(usage('expected unit name, got application name "mysql"'));
    expect(await run(ctx, 'relation-get', '-', 'unit//0')).toEqual(usage('invalid unit name "unit//0"'));
  });
  it('refuses an unknown relation id; reports unreadable settings as a runtime error', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'relation-get', '-r', 'db:99', 'host', 'mysql/0')).toEqual(
      usage('invalid value "db:99" for option -r: relation not found'),
    );
    expect(await run(ctx, 'relation-get', '--relation', 'db:x', 'host', 'mysql/0')).toEqual(
      usage('invalid value "db:x" for option --relation: invalid relation id'),
    );
    expect(await run(ctx, 'relation-get', '-r', 'x', 'host', 'mysql/0')).toEqual(
      usage('invalid value "x" for option -r: invalid relation id'),
    );
    // The whole of what follows the colon must be the number (Go's strconv.Atoi), not a part of it.
    for (const value of ['db:3x', 'db:x3']) {
      expect(await run(ctx, 'relation-get', '-r', value, 'host', 'mysql/0')).toEqual(
        usage(`invalid value "${value}" for option -r: invalid relation id`),
      );
    }
    expect(await run(ctx, 'relation-get', '-r', '12', 'host', 'mariadb/0')).toEqual(
      failure('cannot read settings for unit "mariadb/0" in relation "db:12": unit "mariadb/0": settings not found'),
    );
  });
  it('hands -o FILE to the tool process to write instead of printing, writing nothing itself', async () => {
    expect(await run(new FakeContext(), 'relation-get', 'host', '-o', 'out.txt')).toEqual({
      ...ok(''),
      file: { path: 'out.txt', content: '10.0.0.1\n' },
    });
    expect(existsSync(join(cwd, 'out.txt'))).toBe(false);
  });
  it('refuses an unknown --format as a usage error', async () => {
    expect(await run(new FakeContext(), 'relation-get', '--format', 'xml')).toEqual(
      usage('invalid value "xml" for option --format: unknown format "xml"'),
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
  it('reads a YAML --file (or stdin), each value as written, overridden by the arguments', async () => {
    // The tool process sends the file's text; the agent opens no path.
    const ctx = new FakeContext();
    await runTool(ctx, 'relation-set', ['--file', 's.yaml', 'a=two'], { cwd, fileContent: 'a: one\nport: 5432\n' });
    expect(ctx.sets).toEqual([[3, { a: 'two', port: '5432' }]]);
    writeFileSync(join(cwd, 'on-disk.yaml'), 'a: one\n');
    expect(await run(new FakeContext(), 'relation-set', '--file', 'on-disk.yaml')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ERROR cannot read on-disk.yaml: the hook tool sent no file\n',
    });
    // Go's yaml.v2 reads each value into a string as written: 1.50 stays 1.50, True stays True.
    const written = new FakeContext();
    await runTool(written, 'relation-set', ['--file', '-'], { cwd, stdin: 'ratio: 1.50\nflag: True\nhex: 0x10\ngone: ~\n' });
    expect(written.sets).toEqual([[3, { ratio: '1.50', flag: 'True', hex: '0x10', gone: '' }]]);
    const fromStdin = new FakeContext();
    expect(await runTool(fromStdin, 'relation-set', ['--file', '-'], { cwd, stdin: 'k: v\n' })).toEqual(ok(''));
    expect(fromStdin.sets).toEqual([[3, { k: 'v' }]]);
  });
});

describe('relation-ids and relation-list', () => {
  it('relation-ids lists name:id for the hook endpoint or the named one, sorted', async () => {
    expect(await run(new FakeContext(), 'relation-ids')).toEqual(ok('db:12\ndb:3\n'));
    expect(await run(new FakeContext(), 'relation-ids', 'cache', '--format', 'json')).toEqual(ok('["cache:5"]\n'));
    const cacheHook = new FakeContext();
    cacheHook.hookRelationId = 5;
    expect(await run(cacheHook, 'relation-ids')).toEqual(ok('cache:5\n'));
    const outside = new FakeContext();
    delete outside.hookRelationId;
    expect(await run(outside, 'relation-ids')).toEqual(usage('no endpoint name specified'));
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
    // An empty key is no key (jujuc's config-get): all values, and --all is allowed with it.
    expect(await run(new FakeContext(), 'config-get', '', '--format=json')).toEqual(ok('{"debug":false,"port":80,"title":"My Blog"}\n'));
    expect(await run(new FakeContext(), 'config-get', '--all', '', '--format=json')).toEqual(
      ok('{"debug":false,"port":80,"secret":null,"title":"My Blog"}\n'),
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
    expect(await run(ctx, 'status-set')).toEqual(usage('invalid args, require <status> [message]'));
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
  it("an unknown tool is refused as Juju's jujuc server refuses it: error: bad request, exit 1", async () => {
    expect(await run(new FakeContext(), 'no-such-tool', 'x')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: bad request: unknown hook command: no-such-tool\n',
    });
  });
  it('relation-set, juju-log, open-port and close-port warn that --format is deprecated, and carry on', async () => {
    const ctx = new FakeContext();
    const warned = (tool: string) => ({ code: 0, stdout: '', stderr: `--format flag deprecated for command "${tool}"` });
    expect(await run(ctx, 'relation-set', '--format=json', 'a=1')).toEqual(warned('relation-set'));
    expect(await run(ctx, 'juju-log', '--format', 'yaml', 'hi')).toEqual(warned('juju-log'));
    expect(await run(ctx, 'open-port', '--format=json', '80')).toEqual(warned('open-port'));
    expect(await run(ctx, 'close-port', '--format=json', '80')).toEqual(warned('close-port'));
    expect(ctx.sets).toEqual([[3, { a: '1' }]]);
    expect(ctx.ports).toEqual([
      ['open', '80/tcp'],
      ['close', '80/tcp'],
    ]);
    expect(await run(ctx, 'relation-set', '--format=json', 'nope')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'ERROR expected "key=value", got "nope"\n',
    });
  });
  it("relation-model-get prints the related application's model: this one, drover relating no other", async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'relation-model-get')).toEqual(ok('uuid: 6a1c7d1e-7d2b-4c8e-9f3a-1b2c3d4e5f60\n'));
    expect(await run(ctx, 'relation-model-get', '-r', 'cache:5', '--format=json')).toEqual(
      ok('{"uuid":"6a1c7d1e-7d2b-4c8e-9f3a-1b2c3d4e5f60"}\n'),
    );
    delete ctx.hookRelationId;
    expect(await run(ctx, 'relation-model-get')).toEqual(usage('no relation id specified'));
  });
});

describe('opened-ports', () => {
  it("lists the unit's ranges sorted by port, as Juju, in smart, yaml and json; --endpoints marks them (*)", async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'opened-ports')).toEqual(ok('icmp\n80/tcp\n443/tcp\n8000-8100/udp\n8080/tcp\n'));
    expect(await run(ctx, 'opened-ports', '--format=json')).toEqual(ok('["icmp","80/tcp","443/tcp","8000-8100/udp","8080/tcp"]\n'));
    expect(await run(ctx, 'opened-ports', '--endpoints', '--format', 'yaml')).toEqual(
      ok('- icmp (*)\n- 80/tcp (*)\n- 443/tcp (*)\n- 8000-8100/udp (*)\n- 8080/tcp (*)\n'),
    );
    ctx.openPorts = [];
    expect(await run(ctx, 'opened-ports')).toEqual(ok(''));
    expect(await run(ctx, 'opened-ports', '--format=json')).toEqual(ok('[]\n'));
    expect(await run(ctx, 'opened-ports', 'extra')).toEqual(usage('unrecognized args: ["extra"]'));
  });
});

describe('network-get', () => {
  it("prints the binding's network in Juju's NetworkInfoResult shape, fields in Go's order, YAML with the older spellings too", async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'network-get', 'db', '--format=json')).toEqual(
      ok(
        '{"bind-addresses":[{"mac-address":"02:00:0a:00:00:02","interface-name":"eth0","addresses":[{"hostname":"","value":"10.0.0.2","cidr":"10.0.0.0/24"}]}],"egress-subnets":["10.0.0.2/32"],"ingress-addresses":["10.0.0.2"]}\n',
      ),
    );
    const yaml = (await run(ctx, 'network-get', 'db')).stdout;
    expect(yaml).toBe(
      [
        'bind-addresses:',
        '- mac-address: 02:00:0a:00:00:02',
        '  interface-name: eth0',
        '  addresses:',
        '  - hostname: ""',
        '    value: 10.0.0.2',
        '    cidr: 10.0.0.0/24',
        '    address: 10.0.0.2',
        '  macaddress: 02:00:0a:00:00:02',
        '  interfacename: eth0',
        'egress-subnets:',
        '- 10.0.0.2/32',
        'ingress-addresses:',
        '- 10.0.0.2',
        '',
      ].join('\n'),
    );
  });
  it('prints one value for one flag, a map for several; -r must name a relation', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'network-get', 'db', '--ingress-address')).toEqual(ok('10.0.0.2\n'));
    expect(await run(ctx, 'network-get', 'db', '--bind-address', '-r', '3')).toEqual(ok('10.0.0.2\n'));
    expect(await run(ctx, 'network-get', 'juju-info', '--egress-subnets')).toEqual(ok('10.0.0.2/32\n'));
    expect(await run(ctx, 'network-get', 'db', '--primary-address')).toEqual(ok('10.0.0.2\n'));
    expect(await run(ctx, 'network-get', 'db', '--ingress-address', '--bind-address', '--format=json')).toEqual(
      ok('{"bind-address":"10.0.0.2","ingress-address":"10.0.0.2"}\n'),
    );
    expect(await run(ctx, 'network-get', 'db', '-r', '99')).toEqual(usage('invalid value "99" for option -r: relation not found'));
    expect(await run(ctx, 'network-get', 'db', '--primary-address', '--bind-address')).toEqual(
      failure('--primary-address must be the only flag specified'),
    );
  });
  it('refuses a missing or unknown binding', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'network-get')).toEqual(usage('no arguments specified'));
    expect(await run(ctx, 'network-get', 'db', 'more')).toEqual(usage('unrecognized args: ["more"]'));
    expect(await run(ctx, 'network-get', 'website')).toEqual(failure('no network config found for binding "website"'));
  });
});

describe('goal-state', () => {
  it('prints units and relations as YAML by default, or JSON; no smart format', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'goal-state')).toEqual(
      ok(
        [
          'units:',
          '  wordpress/0:',
          '    status: active',
          '    since: 2026-11-24 10:00:00Z',
          '  wordpress/1:',
          '    status: waiting',
          '    since: 2026-11-24 10:00:01Z',
          'relations:',
          '  db:',
          '    mysql:',
          '      status: joined',
          '      since: 2026-11-24 10:00:02Z',
          '    mysql/0:',
          '      status: dying',
          '      since: 2026-11-24 10:00:03Z',
          '',
        ].join('\n'),
      ),
    );
    const json = JSON.parse((await run(ctx, 'goal-state', '--format', 'json')).stdout);
    expect(Object.keys(json)).toEqual(['units', 'relations']);
    expect(json.relations.db['mysql/0']).toEqual({ status: 'dying', since: '2026-11-24 10:00:03Z' });
    expect(await run(ctx, 'goal-state', '--format=smart')).toEqual(
      usage('invalid value "smart" for option --format: unknown format "smart"'),
    );
  });
});

describe('application-version-set', () => {
  it('records the version; needs exactly one argument', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'application-version-set', '5.7.20')).toEqual(ok(''));
    expect(ctx.versions).toEqual(['5.7.20']);
    expect(await run(ctx, 'application-version-set')).toEqual(usage('no version specified'));
    expect(await run(ctx, 'application-version-set', '1', '2')).toEqual(usage('unrecognized args: ["2"]'));
    expect(ctx.versions).toEqual(['5.7.20']);
  });
});

describe('state-get, state-set, state-delete', () => {
  it('state-get prints all (no key or -), one value, nothing for a missing key unless --strict', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'state-get')).toEqual(ok('empty: ""\ntoken: abc\n'));
    expect(await run(ctx, 'state-get', '-', '--format=json')).toEqual(ok('{"empty":"","token":"abc"}\n'));
    expect(await run(ctx, 'state-get', 'token')).toEqual(ok('abc\n'));
    expect(await run(ctx, 'state-get', 'nope')).toEqual(ok(''));
    expect(await run(ctx, 'state-get', 'nope', '--strict')).toEqual(failure('"nope" not found'));
    expect(await run(ctx, 'state-get', 'a', 'b')).toEqual(usage('unrecognized args: ["b"]'));
  });
  it('state-get prints an empty state as Juju prints its nil map: {} (smart, yaml), null (json)', async () => {
    const ctx = new FakeContext();
    ctx.state = {};
    expect(await run(ctx, 'state-get')).toEqual(ok('{}\n'));
    expect(await run(ctx, 'state-get', '--format=yaml')).toEqual(ok('{}\n'));
    expect(await run(ctx, 'state-get', '-', '--format=json')).toEqual(ok('null\n'));
  });
  it('state-set buffers key=value (empty allowed), --file overridden by arguments; state-delete one key', async () => {
    const ctx = new FakeContext();
    expect(await runTool(ctx, 'state-set', ['--file', 'state.yaml', 'a=arg', 'c='], { cwd, fileContent: 'a: from-file\nb: 2\n' })).toEqual(
      ok(''),
    );
    expect(ctx.stateChanges).toEqual([
      ['a', 'arg'],
      ['b', '2'],
      ['c', ''],
    ]);
    expect(await run(ctx, 'state-delete', 'a')).toEqual(ok(''));
    expect(ctx.stateChanges.at(-1)).toEqual(['a', null]);
    expect(await run(ctx, 'state-delete', 'a', 'b')).toEqual(usage('unrecognized args: ["b"]'));
  });
  it('state-set refuses malformed pairs and oversized keys or values, buffering nothing', async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'state-set', 'novalue')).toEqual(usage('expected "key=value", got "novalue"'));
    expect(await run(ctx, 'state-set', `${'k'.repeat(257)}=v`)).toEqual(failure('max allowed key length (256) exceeded'));
    expect(await run(ctx, 'state-set', `k=${'v'.repeat(65_537)}`)).toEqual(failure('max allowed value length (65536) exceeded'));
    expect(ctx.stateChanges).toEqual([]);
  });
});

describe('resource-get', () => {
  it('prints the local path of the file, and fails as Juju does for a resource with no revision', async () => {
    const ctx = new FakeContext();
    ctx.resourceFiles['software'] = '/var/lib/drover/unit-app-0/resources/software/software.tar';
    expect(await run(ctx, 'resource-get', 'software')).toEqual({
      code: 0,
      stdout: '/var/lib/drover/unit-app-0/resources/software/software.tar\n',
      stderr: '',
    });
    expect(await run(ctx, 'resource-get', 'other')).toEqual(
      failure('could not download resource: resource#app/other not found: no revision has been uploaded'),
    );
    expect(await run(ctx, 'resource-get')).toEqual(usage('missing required resource name'));
    expect(await run(ctx, 'resource-get', 'software', 'x')).toEqual(usage('unrecognized args: ["x"]'));
  });
});

describe('tools for what drover does not have', () => {
  it("credential-get and juju-reboot fail in Juju's words", async () => {
    const ctx = new FakeContext();
    expect(await run(ctx, 'credential-get')).toEqual(failure('cannot access cloud credentials: permission denied'));
    expect(await run(ctx, 'credential-get', 'x')).toEqual(usage('unrecognized args: ["x"]'));
    expect((await run(ctx, 'juju-reboot', '--now')).code).toBe(1);
    expect(await run(ctx, 'juju-reboot', 'x')).toEqual(usage('unrecognized args: ["x"]'));
  });
});
