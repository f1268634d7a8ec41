// action-get, action-set, action-log and action-fail (jujuc/action-*.go): flags, messages and
// exit codes, run against the real ActionState with a recording API.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runTool } from '../../../agent/hook-tools/commands/index.js';
import type { ToolContext } from '../../../agent/hook-tools/tool-context.js';
import type { AgentApi } from '../../../agent/api-client.js';
import { ActionState } from '../../../agent/uniter/action-state.js';

const io = { cwd: mkdtempSync(`${tmpdir()}/action-tools-`) };

function contexts(parameters: Record<string, unknown> = { target: '/srv', compression: { kind: 'xz', quality: 9 } }) {
  const calls: [string, unknown][] = [];
  const api = { call: async (op: string, body: unknown) => (calls.push([op, body]), {}) } as unknown as AgentApi;
  const action = new ActionState('backup', { id: '2', unit: 'db/0', parameters }, api);
  const inAction = { unitName: 'db/0', action } as unknown as ToolContext;
  const inHook = { unitName: 'db/0' } as unknown as ToolContext;
  return { action, calls, inAction, inHook };
}

describe('action-get', () => {
  it('prints the parameters, or the value at a dotted key path, in any format', async () => {
    const { inAction } = contexts();
    expect(await runTool(inAction, 'action-get', ['target'], io)).toEqual({ code: 0, stdout: '/srv\n', stderr: '' });
    expect((await runTool(inAction, 'action-get', ['compression.quality'], io)).stdout).toBe('9\n');
    expect((await runTool(inAction, 'action-get', ['--format=json'], io)).stdout).toBe(
      '{"compression":{"kind":"xz","quality":9},"target":"/srv"}\n',
    );
    expect((await runTool(inAction, 'action-get', ['compression.nothing'], io)).stdout).toBe('');
    expect(await runTool(inAction, 'action-get', ['a', 'b'], io)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'ERROR unrecognized args: ["b"]\n',
    });
  });
});

describe('action-set', () => {
  it('nests dotted keys, and the later value wins', async () => {
    const { action, inAction } = contexts();
    expect((await runTool(inAction, 'action-set', ['outcome=ok', 'file.name=a.tgz', 'file.size=10'], io)).code).toBe(0);
    expect((await runTool(inAction, 'action-set', ['outcome=done'], io)).code).toBe(0);
    expect(action.results).toEqual({ outcome: 'done', file: { name: 'a.tgz', size: '10' } });
  });

  it("refuses bad keys and reserved keys at any depth as usage errors, in Juju 3.6's words; no pair sets nothing", async () => {
    const { action, inAction } = contexts();
    const refused = async (args: string[], message: string) =>
      expect(await runTool(inAction, 'action-set', args, io)).toEqual({ code: 2, stdout: '', stderr: `ERROR ${message}\n` });
    await refused(['novalue'], 'argument "novalue" must be of the form key...=value');
    await refused(
      ['Bad=1'],
      'key "Bad" must start and end with lowercase alphanumeric, and contain only lowercase alphanumeric and hyphens',
    );
    await refused(['stdout=x'], 'cannot set reserved action key "stdout"');
    await refused(['stderr.a=x'], 'cannot set reserved action key "stderr"');
    await refused(['out.stdout=x'], 'cannot set reserved action key "stdout"');
    expect(await runTool(inAction, 'action-set', [], io)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(action.results).toEqual({});
  });
});

describe('action-log and action-fail', () => {
  it('logs the words joined, at once and in order', async () => {
    const { calls, inAction } = contexts();
    await runTool(inAction, 'action-log', ['half', 'way'], io);
    // ops calls `action-log -- <message>`, so a message may start with a dash.
    await runTool(inAction, 'action-log', ['--', 'done'], io);
    expect(calls).toEqual([
      ['log-task', { unit: 'db/0', task: '2', message: 'half way' }],
      ['log-task', { unit: 'db/0', task: '2', message: 'done' }],
    ]);
    expect(await runTool(inAction, 'action-log', [], io)).toEqual({ code: 2, stdout: '', stderr: 'ERROR no message specified\n' });
  });

  it("fails the action with the message given, or Juju's default", async () => {
    const first = contexts();
    await runTool(first.inAction, 'action-fail', ['disk full'], io);
    expect(first.action.failure).toBe('disk full');
    const second = contexts();
    await runTool(second.inAction, 'action-fail', [], io);
    expect(second.action.failure).toBe('action failed without reason given, check action for errors');
  });

  it('fail outside an action with "not running an action"', async () => {
    const { inHook } = contexts();
    for (const [tool, args] of [
      ['action-get', []],
      ['action-set', ['a=1']],
      ['action-log', ['x']],
      ['action-fail', []],
    ] as const) {
      expect(await runTool(inHook, tool, [...args], io)).toEqual({ code: 1, stdout: '', stderr: 'ERROR not running an action\n' });
    }
  });
});
