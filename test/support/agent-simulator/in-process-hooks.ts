// Hooks run inside the simulated agent's process instead of as child processes: thousands of
// units on two cores cannot each spawn a shell and a Node hook tool per call. Everything around
// the hook stays the real unit agent's (agent/uniter/steps/run-hook.ts): it finds the hook as the real
// runner does (findExecutable), and each hook tool the hook calls goes, as hook-tool.bash sends it,
// to the unit agent's own tool server with the hook's context id and secret. So status-set is
// served by the real tool server and status reporter, in the order a real hook would see.
import { connect } from 'node:net';
import { decodeAnswer, encodeRequest } from '../../../agent/hook-tools/tool-frame.js';
import { findExecutable, type HookProcessResult, type HookRunner } from '../../../agent/uniter/hook-process.js';

/** A hook tool call: the tool and its arguments, e.g. `['status-set', 'active']`. */
export type ToolCall = [tool: string, ...args: string[]];

/** What each hook does, by name (`install`, `start`, …): the tools it calls, in order. */
export type InProcessCharm = Record<string, ToolCall[]>;

interface ToolAnswer {
  code: number;
  stdout: string;
  stderr: string;
}

/** One hook tool call over the unit agent's tool server, as agent/hook-tools/hook-tool.bash makes it. */
function callTool(env: Record<string, string>, cwd: string, [command, ...args]: ToolCall): Promise<ToolAnswer> {
  const { JUJU_AGENT_SOCKET_ADDRESS: address = '', JUJU_CONTEXT_ID: contextId, DROVER_HOOK_SECRET: secret } = env;
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  if (!port || !contextId || !secret)
    return Promise.resolve({ code: 1, stdout: '', stderr: 'ERROR hook environment without the agent address, context id or secret' });
  return new Promise((resolve) => {
    const socket = connect(port, address.slice(0, address.lastIndexOf(':')));
    const chunks: Buffer[] = [];
    socket.on('error', (e) => resolve({ code: 1, stdout: '', stderr: `error: cannot reach the unit agent: ${e.message}` }));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      const answer = decodeAnswer(Buffer.concat(chunks));
      resolve(
        answer
          ? { code: answer.code, stdout: answer.body, stderr: answer.stderr }
          : { code: 1, stdout: '', stderr: 'ERROR the unit agent sent an unreadable answer' },
      );
    });
    socket.end(encodeRequest({ contextId, secret, command, args, cwd }));
  });
}

/**
 * A HookRunner for the charm's hooks: a hook the charm directory has (as the real runner finds
 * it) runs its tool calls in order and exits 1 at the first that fails; a hook it lacks is
 * missing, as for the real runner. A hook the charm has but `charm` does not name exits 0.
 * `onRan` hears of every hook that exited 0, once its tool calls are done.
 */
export function inProcessHooks(charm: InProcessCharm, onRan?: (hook: string, unit: string) => void): HookRunner {
  return async ({ charmDir, dispatchPath, env, onLine }) => {
    const found = findExecutable(charmDir, dispatchPath);
    if ('kind' in found) return found as Extract<HookProcessResult, { kind: 'missing' }>;
    const hook = dispatchPath.slice(dispatchPath.indexOf('/') + 1);
    const hookEnv = { ...env, JUJU_DISPATCH_PATH: dispatchPath };
    for (const call of charm[hook] ?? []) {
      const answer = await callTool(hookEnv, charmDir, call);
      for (const line of (answer.stdout ?? '').split('\n').filter(Boolean)) onLine('stdout', line);
      for (const line of (answer.stderr ?? '').split('\n').filter(Boolean)) onLine('stderr', line);
      if (answer.code !== 0) return { kind: 'exited', code: 1, signal: null, via: found.via };
    }
    // Its tool calls are committed (status-set answers once its status is written).
    onRan?.(hook, env.JUJU_UNIT_NAME ?? '');
    return { kind: 'exited', code: 0, signal: null, via: found.via };
  };
}
