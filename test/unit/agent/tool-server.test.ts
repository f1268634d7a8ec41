// The hook tool executables against a real agent socket: what a hook sees when it calls them.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
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
  server.register('ctx-1', ctx);
  installHookTools(toolsDir, process.execPath, TOOL);
});
afterAll(async () => {
  await server.stop();
});

function hookCalls(command: string, args: string[], env: Record<string, string> = {}, stdin?: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      join(toolsDir, command),
      args,
      { cwd: dir, env: { PATH: process.env.PATH ?? '', JUJU_CONTEXT_ID: 'ctx-1', JUJU_AGENT_SOCKET: server.path, ...env } },
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
