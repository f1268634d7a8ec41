// The child of `drover ssh` and `scp` (cli/ssh/run-child.ts) when the CLI runs in-process, with no
// terminal of its own to hand over: output captured through the CLI's streams, status returned.
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../../cli/io.js';
import { ExitCode } from '../../../cli/errors.js';
import { runChild, runChildAndExit } from '../../../cli/ssh/run-child.js';

function capturingIo() {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: (t) => void (out.stdout += t),
    stderr: (t) => void (out.stderr += t),
    env: {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    readLine: async () => undefined,
    signal: new AbortController().signal,
  };
  return { io, out };
}

describe('running the child of ssh and scp in-process', () => {
  it("captures its output and gives its exit status, a signal's as 128 + its number", async () => {
    const { io, out } = capturingIo();
    const env = { PATH: process.env.PATH };
    expect(await runChild(io, { program: 'sh', args: ['-c', 'echo out; echo err >&2; exit 5'], env })).toBe(5);
    expect(out).toEqual({ stdout: 'out\n', stderr: 'err\n' });
    expect(await runChild(io, { program: 'sh', args: ['-c', 'kill -TERM $$'], env })).toBe(128 + 15);
    await expect(runChildAndExit(io, { program: 'sh', args: ['-c', 'exit 7'], env })).rejects.toSatisfy(
      (e) => e instanceof ExitCode && e.code === 7,
    );
    await expect(runChildAndExit(io, { program: 'sh', args: ['-c', 'true'], env })).resolves.toBeUndefined();
  });

  it('says so when the program is not installed', async () => {
    const { io } = capturingIo();
    await expect(runChild(io, { program: 'no-such-ssh-client', args: [], env: { PATH: '/nonexistent' } })).rejects.toThrow(
      'no-such-ssh-client not found: it must be installed and on PATH',
    );
  });
});
