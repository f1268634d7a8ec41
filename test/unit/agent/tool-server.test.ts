// The hook tool executables (copies of agent/hook-tools/hook-tool.bash) against a real tool
// server: what a hook sees when it calls them, and what the server does with anything else.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installHookTools } from '../../../agent/hook-tools/install-tools.js';
import { MAX_FIELDS_BYTES, MAX_PAYLOAD_BYTES, TOOL_PROTOCOL } from '../../../agent/hook-tools/tool-frame.js';
import { ToolServer } from '../../../agent/hook-tools/tool-server.js';
import { MAX_YAML_BYTES } from '#shared/domain/yaml.js';
import type { ToolContext } from '../../../agent/hook-tools/tool-context.js';

const TOOL = fileURLToPath(new URL('../../../agent/hook-tools/hook-tool.bash', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tool-server-'));
const toolsDir = join(dir, 'tools');
/** Short, so that the test of a request that never completes waits little. */
const DEADLINE_MS = 1_000;
let server: ToolServer;
let secret: string;
const sets: Record<string, string>[] = [];
let settings: Record<string, string> = {};
const logged: string[] = [];
const secretCalls: [string, Record<string, unknown>][] = [];

const ctx = {
  unitName: 'wordpress/0',
  hookRelationId: 3,
  remoteUnit: 'mysql/0',
  relations: () => [{ id: 3, endpoint: 'db', remoteApplication: 'mysql' }],
  relationUnits: () => ['mysql/0'],
  readSettings: async () => settings,
  setSettings: (_id: number, changes: Record<string, string>) => sets.push(changes),
  setCharmState: (changes: Record<string, string>) => sets.push(changes),
  log: (_level: string, message: string) => logged.push(message),
  secretCall: async (op: string, body: Record<string, unknown>) => {
    secretCalls.push([op, body]);
    return { uri: 'secret:cu5ff0d8kgbs73a1opb0' };
  },
} as unknown as ToolContext;

beforeAll(async () => {
  server = new ToolServer({ deadlineMs: DEADLINE_MS });
  ({ secret } = await server.open('ctx-1', ctx));
  installHookTools(toolsDir, TOOL);
});
afterAll(async () => {
  await server.stop();
});
beforeEach(() => {
  settings = { host: '10.0.0.1' };
});

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function hookCalls(command: string, args: string[], env: Record<string, string> = {}, stdin?: string | Buffer, cwd = dir) {
  return new Promise<Outcome>((resolve) => {
    const child = execFile(
      join(toolsDir, command),
      args,
      {
        cwd,
        maxBuffer: 2 * MAX_PAYLOAD_BYTES,
        env: {
          PATH: process.env.PATH ?? '',
          JUJU_CONTEXT_ID: 'ctx-1',
          DROVER_HOOK_SECRET: secret,
          JUJU_AGENT_SOCKET_NETWORK: 'tcp',
          JUJU_AGENT_SOCKET_ADDRESS: server.address,
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
    child.stdin?.on('error', () => undefined); // a tool that reads no input may exit before it is written
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

/** Raw bytes to the server, as any local process may send them; its answer's exit code and stderr. */
function rawRequest(bytes: Buffer | string, options: { end?: boolean } = {}) {
  return new Promise<{ code: number; stderr: string }>((resolve, reject) => {
    const [host, port] = server.address.split(':') as [string, string];
    const socket = connect(Number(port), host);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const answer = Buffer.concat(chunks);
      const newline = answer.indexOf(10);
      const [protocol, code, stderrBytes] = answer.subarray(0, newline).toString().split(' ');
      if (protocol !== TOOL_PROTOCOL) return reject(new Error(`not an answer: ${answer.toString()}`));
      resolve({ code: Number(code), stderr: answer.subarray(newline + 1, newline + 1 + Number(stderrBytes)).toString() });
    });
    socket.write(bytes);
    if (options.end) socket.end();
  });
}

const frame = (...fields: string[]) => fields.map((f) => `${f}\0`).join('');
const head = (s = secret, contextId = 'ctx-1') => frame(TOOL_PROTOCOL, s, contextId, dir);

describe('hook tools over TCP', () => {
  it('print what the agent answers and exit with its code', async () => {
    expect(await hookCalls('relation-get', ['host'])).toEqual({ code: 0, stdout: '10.0.0.1\n', stderr: '' });
    expect(await hookCalls('relation-list', ['--bogus'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'ERROR option provided but not defined: --bogus\n',
    });
    expect(await hookCalls('relation-list', [])).toEqual({ code: 0, stdout: 'mysql/0\n', stderr: '' });
  });

  it('send standard input only to relation-set --file -', async () => {
    expect(await hookCalls('relation-set', ['--file', '-'], {}, 'a: b\n')).toMatchObject({ code: 0 });
    expect(sets).toContainEqual({ a: 'b' });
    // Any other tool leaves standard input alone: it neither waits on it nor sends it.
    expect(await hookCalls('juju-log', ['--', '-not-a-flag'], {}, 'ignored')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(logged.at(-1)).toBe('db:3: -not-a-flag');
  });

  it('and to state-set --file -, which ops calls with JSON on standard input', async () => {
    expect(await hookCalls('state-set', ['--file', '-'], {}, '{"snapshot": "{\\"n\\": 1}"}')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(sets).toContainEqual({ snapshot: '{"n": 1}' });
  });

  it('send standard input byte for byte: trailing newlines, unicode, and --file=- alike', async () => {
    expect(await hookCalls('relation-set', ['--file=-'], {}, 'kept: |+\n  line é 😀\n\n\n')).toMatchObject({ code: 0 });
    expect(sets).toContainEqual({ kept: 'line é 😀\n\n\n' });
    expect(await hookCalls('relation-set', ['--file', '-'], {}, '')).toMatchObject({ code: 0 });
    expect(sets.at(-1)).toEqual({});
  });

  it('send up to MAX_PAYLOAD_BYTES of standard input, and refuse more before connecting', async () => {
    const value = (bytes: number) => `v: ${'x'.repeat(bytes - 'v: \n'.length)}\n`;
    // The largest document relation-set parses arrives whole...
    expect(await hookCalls('relation-set', ['--file', '-'], {}, value(MAX_YAML_BYTES))).toMatchObject({ code: 0 });
    expect(sets.at(-1)?.v).toHaveLength(MAX_YAML_BYTES - 4);
    // ...and the largest the tools send reaches the agent, whose YAML parser refuses it in its own words.
    expect(await hookCalls('relation-set', ['--file', '-'], {}, value(MAX_PAYLOAD_BYTES))).toEqual({
      code: 1,
      stdout: '',
      stderr: `ERROR cannot parse -: the document is larger than ${MAX_YAML_BYTES / 1024} KiB\n`,
    });
    expect(await hookCalls('relation-set', ['--file', '-'], {}, value(MAX_PAYLOAD_BYTES + 1))).toEqual({
      code: 1,
      stdout: '',
      stderr: `ERROR cannot read -: more than ${MAX_PAYLOAD_BYTES} bytes\n`,
    });
  });

  it('write -o files relative to the hook directory', async () => {
    expect(await hookCalls('relation-get', ['-o', 'host.txt', 'host'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(join(dir, 'host.txt'), 'utf8')).toBe('10.0.0.1\n');
  });

  it('print a value holding NUL bytes exactly, to stdout or to -o', async () => {
    settings = { blob: 'a\0b\n\0' };
    expect(await hookCalls('relation-get', ['blob'])).toEqual({ code: 0, stdout: 'a\0b\n\0\n', stderr: '' });
    expect(await hookCalls('relation-get', ['--output=blob.bin', 'blob'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(join(dir, 'blob.bin'), 'utf8')).toBe('a\0b\n\0\n');
  });

  it('refuse to run outside a hook', async () => {
    expect(await hookCalls('relation-get', [], { JUJU_CONTEXT_ID: '' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: JUJU_CONTEXT_ID not set\n',
    });
    expect(await hookCalls('relation-get', [], { JUJU_CONTEXT_ID: 'old' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: bad request: unknown context id "old"\n',
    });
    expect(await hookCalls('relation-get', [], { JUJU_AGENT_SOCKET_ADDRESS: '' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: JUJU_AGENT_SOCKET_ADDRESS not set\n',
    });
    expect((await hookCalls('relation-get', [], { JUJU_AGENT_SOCKET_NETWORK: 'unix' })).stderr).toBe(
      'error: JUJU_AGENT_SOCKET_NETWORK is "unix": these tools speak tcp\n',
    );
  });

  it('say so when no agent listens: between hooks, the agent does not', async () => {
    const between = new ToolServer();
    const { address } = await between.open('ctx-9', ctx);
    await between.close('ctx-9');
    expect(() => between.address).toThrow(/not listening/);
    expect(await hookCalls('relation-get', ['host'], { JUJU_AGENT_SOCKET_ADDRESS: address })).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot reach the unit agent at ${address}\n`,
    });
  });
});

describe('arguments', () => {
  it('arrive exactly as given: spaces, quotes, newlines, =, unicode, empty strings, leading dashes', async () => {
    const odd = ['', ' two  spaces ', `quote's "double"`, 'new\nline\n', 'a=b=c', 'é 😀 ü', '-x', '--file', '$HOME `id` \\ *'];
    // relation-set after `--` takes every argument as key=value and sets exactly those values.
    const args = odd.map((value, i) => `k${i}=${value}`);
    expect(await hookCalls('relation-set', ['--', ...args])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(sets.at(-1)).toEqual(Object.fromEntries(odd.map((value, i) => [`k${i}`, value])));
    // Empty arguments are arguments: two of them, joined by the space juju-log puts between them.
    expect(await hookCalls('juju-log', ['--', '', ''])).toMatchObject({ code: 0 });
    expect(logged.at(-1)).toBe('db:3:  ');
    expect((await hookCalls('relation-set', ['--', ''])).stderr).toBe('ERROR expected "key=value", got ""\n');
  });

  it('of any content but NUL arrive exactly (property)', async () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0'));
    // `__proto__` is the one key refused (below): no JavaScript map would keep it.
    const key = text.filter((s) => s !== '' && !s.includes('=') && s !== '__proto__');
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(key, text), { selector: ([k]) => k, maxLength: 6 }), async (pairs) => {
        const result = await hookCalls('relation-set', ['--', ...pairs.map(([k, v]) => `${k}=${v}`)]);
        expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
        expect(sets.at(-1)).toEqual(Object.fromEntries(pairs));
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it('refuse the one key no map can hold, __proto__, saying so and setting nothing', async () => {
    const before = sets.length;
    expect(await hookCalls('relation-set', ['a=1', '__proto__=x'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'ERROR key "__proto__" cannot be stored; choose another name\n',
    });
    expect(await hookCalls('state-set', ['__proto__=x'])).toMatchObject({ code: 2, stdout: '' });
    expect(sets).toHaveLength(before);
  });
});

// docs/reliability.md, "Defects found by a hostile probe, and their regression tests" (a hook
// reaching past its own context): the tools reach only their own hook's context, and files only as the hook.
describe('what a hook tool may reach', () => {
  it("is refused without the running hook's secret, even with its context id", async () => {
    expect(await hookCalls('relation-get', ['host'], { DROVER_HOOK_SECRET: '' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: DROVER_HOOK_SECRET not set\n',
    });
    const wrong = Buffer.alloc(32, 1).toString('base64url');
    for (const guess of [wrong, 'short', `${secret}x`]) {
      expect(await hookCalls('relation-get', ['host'], { DROVER_HOOK_SECRET: guess })).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: bad request: wrong secret for context id "ctx-1"\n',
      });
    }
  });

  it('each hook gets its own secret, and a process left from an ended hook is refused', async () => {
    const { secret: next, address } = await server.open('ctx-2', ctx);
    // One listener for the unit's open contexts.
    expect(address).toBe(server.address);
    expect(next).not.toBe(secret);
    expect(Buffer.from(next, 'base64url')).toHaveLength(32);
    // One hook's secret is no key to another's context.
    expect((await hookCalls('relation-get', ['host'], { JUJU_CONTEXT_ID: 'ctx-2' })).stderr).toBe(
      'error: bad request: wrong secret for context id "ctx-2"\n',
    );
    expect(await hookCalls('relation-get', ['host'], { JUJU_CONTEXT_ID: 'ctx-2', DROVER_HOOK_SECRET: next })).toMatchObject({ code: 0 });
    await server.close('ctx-2');
    // The hook ended: its leftovers, which know its id and secret, are refused.
    expect(await hookCalls('relation-get', ['host'], { JUJU_CONTEXT_ID: 'ctx-2', DROVER_HOOK_SECRET: next })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: bad request: unknown context id "ctx-2"\n',
    });
    // Registered again (a later hook with the same id): the old secret still does not open it.
    const { secret: later } = await server.open('ctx-2', ctx);
    expect((await hookCalls('relation-get', ['host'], { JUJU_CONTEXT_ID: 'ctx-2', DROVER_HOOK_SECRET: next })).code).toBe(1);
    expect((await hookCalls('relation-get', ['host'], { JUJU_CONTEXT_ID: 'ctx-2', DROVER_HOOK_SECRET: later })).code).toBe(0);
    await server.close('ctx-2');
  });

  it('-o is written by the tool process: where the hook cannot write, nothing is written and the tool fails', async () => {
    const hookDir = join(dir, 'hook-cwd');
    mkdirSync(hookDir, { recursive: true });
    expect(await hookCalls('relation-get', ['-o', 'out.txt', 'host'], {}, undefined, hookDir)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(join(hookDir, 'out.txt'), 'utf8')).toBe('10.0.0.1\n');
    // The agent's answer holds the text, not a path it wrote: a missing directory fails in the tool.
    const nowhere = join(dir, 'no-such-dir', 'x.txt');
    expect(await hookCalls('relation-get', ['-o', nowhere, 'host'])).toEqual({
      code: 1,
      stdout: '',
      stderr: `ERROR open ${nowhere}: no such file or directory\n`,
    });
    expect(existsSync(nowhere)).toBe(false);
  });

  it('--file is read by the tool process and sent; the agent opens no path a hook names', async () => {
    const hookDir = join(dir, 'hook-file');
    mkdirSync(hookDir, { recursive: true });
    writeFileSync(join(hookDir, 'settings.yaml'), 'from: file\n');
    expect(await hookCalls('relation-set', ['--file', 'settings.yaml'], {}, undefined, hookDir)).toMatchObject({ code: 0 });
    expect(sets).toContainEqual({ from: 'file' });
    expect(await hookCalls('relation-set', ['--file=missing.yaml'], {}, undefined, hookDir)).toEqual({
      code: 1,
      stdout: '',
      stderr: `ERROR open ${hookDir}/missing.yaml: no such file or directory\n`,
    });
    expect(await hookCalls('relation-set', ['--file', hookDir])).toEqual({
      code: 1,
      stdout: '',
      stderr: `ERROR read ${hookDir}: is a directory\n`,
    });
  });
});

describe('secret-add and secret-set key#file=', () => {
  it('is read by the tool process and sent as key#base64=, byte for byte; the agent opens no path a hook names', async () => {
    const hookDir = join(dir, 'secret-files');
    mkdirSync(hookDir, { recursive: true });
    const value = 'pa55 wörd\nwith = and a trailing newline\n';
    writeFileSync(join(hookDir, 'password'), value);
    expect(await hookCalls('secret-add', ['--owner', 'unit', `password#file=${join(hookDir, 'password')}`, 'user=admin'])).toEqual({
      code: 0,
      stdout: 'secret:cu5ff0d8kgbs73a1opb0\n',
      stderr: '',
    });
    expect(secretCalls.at(-1)).toEqual([
      'secret-add',
      { content: { password: Buffer.from(value).toString('base64'), user: Buffer.from('admin').toString('base64') }, owner: 'unit' },
    ]);
    const count = secretCalls.length;
    expect(await hookCalls('secret-set', ['secret:cu5ff0d8kgbs73a1opb0', 'password#file=missing'], {}, undefined, hookDir)).toEqual({
      code: 1,
      stdout: '',
      stderr: `ERROR open ${join(hookDir, 'missing')}: no such file or directory\n`,
    });
    expect(secretCalls).toHaveLength(count);
  });
});

describe('the tool server, given what no tool sends', () => {
  const rest = (args: string[] = []) => frame('relation-get', String(args.length), ...args, 'none', '0');

  it('answers a well-formed frame from any client', async () => {
    expect(await rawRequest(head() + frame('relation-list', '0', 'none', '0'))).toEqual({ code: 0, stderr: '' });
  });

  it('refuses malformed frames with error: bad request, and keeps serving', async () => {
    const refusals: [string, string][] = [
      [`${JSON.stringify({ contextId: 'ctx-1', secret })}\n`, 'not drover-tool/1'],
      [frame('drover-tool/2', secret, 'ctx-1'), 'not drover-tool/1'],
      [frame(TOOL_PROTOCOL, 'x'.repeat(65)), 'secret too long'],
      [`${frame(TOOL_PROTOCOL, secret)}${'c'.repeat(600)}`, 'context id too long'],
      [head() + frame('relation-get', 'two'), 'argument count "two" is not a number'],
      [head() + frame('relation-get', '0', 'pipe', '0'), 'payload kind "pipe" is none of none, stdin, file'],
      [head() + frame('relation-get', '0', 'stdin', '-1'), 'payload length "-1" is not a number'],
      [head() + frame('relation-get', '0', 'none', '3') + 'abc', 'payload kind none with a payload'],
    ];
    for (const [bytes, message] of refusals)
      expect(await rawRequest(bytes)).toEqual({ code: 1, stderr: `error: bad request: ${message}\n` });
    expect(await hookCalls('relation-get', ['host'])).toMatchObject({ code: 0 });
  });

  it('refuses a request too large: from its declared length, before its payload arrives, or once its fields pass their bound', async () => {
    expect(await rawRequest(head() + frame('relation-set', '0', 'stdin', String(MAX_PAYLOAD_BYTES + 1)))).toEqual({
      code: 1,
      stderr: `error: bad request: request too large: a payload of ${MAX_PAYLOAD_BYTES + 1} bytes exceeds ${MAX_PAYLOAD_BYTES}\n`,
    });
    // An argument that never ends is refused once the fields pass their bound.
    expect(await rawRequest(head() + frame('relation-get', '1') + 'x'.repeat(MAX_FIELDS_BYTES))).toEqual({
      code: 1,
      stderr: `error: bad request: request too large: its fields exceed ${MAX_FIELDS_BYTES} bytes\n`,
    });
  });

  it('checks the secret before reading the rest of the request', async () => {
    // No working directory, tool or arguments yet: a process without the secret is answered at once.
    expect(await rawRequest(frame(TOOL_PROTOCOL, 'guess', 'ctx-1'))).toEqual({
      code: 1,
      stderr: 'error: bad request: wrong secret for context id "ctx-1"\n',
    });
    expect(await rawRequest(frame(TOOL_PROTOCOL, secret, 'nobody'))).toEqual({
      code: 1,
      stderr: 'error: bad request: unknown context id "nobody"\n',
    });
  });

  it('answers whatever bytes follow a valid beginning, and keeps serving (property)', async () => {
    const beginnings = [head(), head() + frame('relation-get'), head() + frame('relation-get', '1', 'host')];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...beginnings), fc.uint8Array({ maxLength: 200 }), async (beginning, tail) => {
        const answer = await rawRequest(Buffer.concat([Buffer.from(beginning), tail]), { end: true });
        expect([0, 1, 2]).toContain(answer.code);
        if (answer.code !== 0) expect(answer.stderr).toMatch(/^(ERROR |error: bad request: )/);
      }),
      { numRuns: 200 },
    );
    expect(await hookCalls('relation-get', ['host'])).toEqual({ code: 0, stdout: '10.0.0.1\n', stderr: '' });
  });

  it('answers a request that ends early, or never completes, instead of waiting for it forever', async () => {
    expect(await rawRequest(head() + frame('relation-get'), { end: true })).toEqual({
      code: 1,
      stderr: 'error: bad request: the request ended before its last byte\n',
    });
    expect(await rawRequest(head() + rest().slice(0, -3))).toEqual({
      code: 1,
      stderr: `error: bad request: no whole request within ${DEADLINE_MS / 1000} s\n`,
    });
    expect(await rawRequest(head() + rest(['host']), { end: true })).toEqual({ code: 0, stderr: '' });
  });
});
