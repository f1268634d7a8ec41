// The hook tool executables against a real agent socket: what a hook sees when it calls them.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installHookTools } from '../../../agent/hook-tools/install-tools.js';
import { ToolServer, socketPathFor } from '../../../agent/hook-tools/tool-server.js';
import type { ToolContext } from '../../../agent/hook-tools/tool-context.js';

const TOOL = fileURLToPath(new URL('../../../agent/hook-tools/hook-tool.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tool-server-'));
const toolsDir = join(dir, 'tools');
let server: ToolServer;
let secret: string;
const sets: Record<string, string>[] = [];

const ctx = {
  unitName: 'wordpress/0',
  hookRelationId: 3,
  remoteUnit: 'mysql/0',
  relations: () => [{ id: 3, endpoint: 'db', remoteApplication: 'mysql' }],
  relationUnits: () => ['mysql/0'],
  readSettings: async () => ({ host: '10.0.0.1' }),
  setSettings: (_id: number, changes: Record<string, string>) => sets.push(changes),
  setCharmState: (changes: Record<string, string>) => sets.push(changes),
} as unknown as ToolContext;

beforeAll(async () => {
  server = new ToolServer(socketPathFor(dir));
  await server.start();
  secret = server.register('ctx-1', ctx);
  installHookTools(toolsDir, process.execPath, TOOL);
});
afterAll(async () => {
  await server.stop();
});

function hookCalls(command: string, args: string[], env: Record<string, string> = {}, stdin?: string, cwd = dir) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      join(toolsDir, command),
      args,
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', JUJU_CONTEXT_ID: 'ctx-1', DROVER_HOOK_SECRET: secret, JUJU_AGENT_SOCKET: server.path, ...env },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

describe('hook tools over the agent socket', () => {
  it('print what the agent answers and exit with its code', async () => {
    expect(await hookCalls('relation-get', ['host'])).toEqual({ code: 0, stdout: '10.0.0.1\n', stderr: '' });
    expect(await hookCalls('relation-list', ['--bogus'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'ERROR flag provided but not defined: --bogus\n',
    });
  });

  it('send standard input only to relation-set --file -', async () => {
    expect(await hookCalls('relation-set', ['--file', '-'], {}, 'a: b\n')).toMatchObject({ code: 0 });
    expect(sets).toContainEqual({ a: 'b' });
  });

  it('and to state-set --file -, which ops calls with JSON on standard input', async () => {
    expect(await hookCalls('state-set', ['--file', '-'], {}, '{"snapshot": "{\\"n\\": 1}"}')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(sets).toContainEqual({ snapshot: '{"n": 1}' });
  });

  it('write -o files relative to the hook directory', async () => {
    await hookCalls('relation-get', ['-o', 'host.txt', 'host']);
    expect(readFileSync(join(dir, 'host.txt'), 'utf8')).toBe('10.0.0.1\n');
  });

  it('refuse to run outside a hook', async () => {
    expect(await hookCalls('relation-get', [], { JUJU_CONTEXT_ID: '' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ERROR JUJU_CONTEXT_ID not set\n',
    });
    expect(await hookCalls('relation-get', [], { JUJU_CONTEXT_ID: 'old' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ERROR bad request: unknown context id "old"\n',
    });
  });
});

// docs/reliability.md, defect #10: the tools reach only their own hook's context, and files only as the hook.
describe('what a hook tool may reach', () => {
  it("is refused without the running hook's secret, even with its context id", async () => {
    expect(await hookCalls('relation-get', ['host'], { DROVER_HOOK_SECRET: '' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ERROR DROVER_HOOK_SECRET not set\n',
    });
    const wrong = Buffer.alloc(32, 1).toString('base64url');
    for (const guess of [wrong, 'short', `${secret}x`]) {
      expect(await hookCalls('relation-get', ['host'], { DROVER_HOOK_SECRET: guess })).toEqual({
        code: 1,
        stdout: '',
        stderr: 'ERROR bad request: wrong secret for context id "ctx-1"\n',
      });
    }
  });

  it('each hook gets its own secret, and a process left from an ended hook is refused', async () => {
    const next = server.register('ctx-2', ctx);
    expect(next).not.toBe(secret);
    expect(Buffer.from(next, 'base64url')).toHaveLength(32);
    // One hook's secret is no key to another's context.
    expect((await hookCalls('relation-get', ['host'], { JUJU_CONTEXT_ID: 'ctx-2' })).stderr).toBe(
      'ERROR bad request: wrong secret for context id "ctx-2"\n',
    );
    expect(await hookCalls('relation-get', ['host'], { JUJU_CONTEXT_ID: 'ctx-2', DROVER_HOOK_SECRET: next })).toMatchObject({ code: 0 });
    server.unregister('ctx-2');
    // The hook ended: its leftovers, which know its id and secret, are refused.
    expect(await hookCalls('relation-get', ['host'], { JUJU_CONTEXT_ID: 'ctx-2', DROVER_HOOK_SECRET: next })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ERROR bad request: unknown context id "ctx-2"\n',
    });
    // Registered again (a later hook with the same id): the old secret still does not open it.
    const later = server.register('ctx-2', ctx);
    expect((await hookCalls('relation-get', ['host'], { JUJU_CONTEXT_ID: 'ctx-2', DROVER_HOOK_SECRET: next })).code).toBe(1);
    expect((await hookCalls('relation-get', ['host'], { JUJU_CONTEXT_ID: 'ctx-2', DROVER_HOOK_SECRET: later })).code).toBe(0);
    server.unregister('ctx-2');
  });

  it('-o is written by the tool process: where the hook cannot write, nothing is written and the tool fails', async () => {
    const hookDir = join(dir, 'hook-cwd');
    mkdirSync(hookDir, { recursive: true });
    expect(await hookCalls('relation-get', ['-o', 'out.txt', 'host'], {}, undefined, hookDir)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(join(hookDir, 'out.txt'), 'utf8')).toBe('10.0.0.1\n');
    // The agent's answer holds the text, not a path it wrote: a missing directory fails in the tool.
    const nowhere = join(dir, 'no-such-dir', 'x.txt');
    const result = await hookCalls('relation-get', ['-o', nowhere, 'host']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ERROR cannot write .*no-such-dir\/x\.txt: ENOENT/);
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
      stderr: expect.stringMatching(/^ERROR cannot read missing\.yaml: ENOENT/),
    });
  });
});
