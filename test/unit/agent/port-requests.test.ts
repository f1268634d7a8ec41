// open-port and close-port in one hook, checked as Juju 3.6's port range recorder checks them
// (agent/uniter/port-requests.ts): equal ranges change nothing, overlapping ones are refused.
import { describe, expect, it } from 'vitest';
import { runTool } from '../../../agent/hook-tools/commands/index.js';
import { HookContext } from '../../../agent/uniter/hook-context.js';
import type { HookContextInit } from '../../../agent/uniter/hook-context-init.js';

function hook(openPorts: string[]) {
  const commits: unknown[] = [];
  const init = {
    id: 'ctx-1',
    unitName: 'web/0',
    modelUuid: '',
    openPorts,
    relations: [],
    workload: { status: 'unknown', message: '' },
    api: {
      call: async (_op: string, body: unknown) => {
        commits.push(body);
        return {};
      },
    },
  } as unknown as HookContextInit;
  const ctx = new HookContext(init);
  const run = (tool: string, ...args: string[]) => runTool(ctx, tool, args, { cwd: '/' });
  return { ctx, run, commits };
}

const refused = (message: string) => ({ code: 1, stdout: '', stderr: `ERROR ${message}\n` });
const ok = (stdout = '') => ({ code: 0, stdout, stderr: '' });

describe('open-port and close-port within a hook', () => {
  it('refuse a range overlapping, unequal, one requested earlier or already open, in Juju 3.6 words', async () => {
    const { run } = hook(['8000-8100/tcp']);
    expect(await run('open-port', '85/tcp')).toEqual(ok());
    expect(await run('open-port', '80-90/tcp')).toEqual(
      refused('cannot open 80-90/tcp (unit "web/0"): port range conflicts with 85/tcp (unit "web/0") requested earlier'),
    );
    expect(await run('open-port', '8080/tcp')).toEqual(
      refused('cannot open 8080/tcp (unit "web/0"): port range conflicts with 8000-8100/tcp (unit "web/0")'),
    );
    expect(await run('close-port', '8050/tcp')).toEqual(
      refused('cannot close 8050/tcp (unit "web/0"): port range conflicts with 8000-8100/tcp (unit "web/0")'),
    );
    // Another protocol never conflicts.
    expect(await run('open-port', '8080/udp')).toEqual(ok());
    expect(await run('opened-ports')).toEqual(ok('85/tcp\n8000-8100/tcp\n8080/udp\n'));
  });

  it('take an equal range as nothing to do, and let an open and a close of one range cancel out', async () => {
    const { ctx, run, commits } = hook(['80/tcp']);
    expect(await run('open-port', '80')).toEqual(ok());
    expect(await run('open-port', '443/tcp')).toEqual(ok());
    expect(await run('open-port', '443/tcp')).toEqual(ok());
    expect(await run('close-port', '443/tcp')).toEqual(ok());
    expect(await run('close-port', '80/tcp')).toEqual(ok());
    expect(await run('open-port', 'icmp')).toEqual(ok());
    expect(await run('opened-ports')).toEqual(ok('icmp\n'));
    await ctx.flush();
    expect(commits).toEqual([
      expect.objectContaining({
        // Juju keeps the close of a range it never opened; the controller finds nothing to close.
        ports: [
          { action: 'open', range: 'icmp' },
          { action: 'close', range: '443/tcp' },
          { action: 'close', range: '80/tcp' },
        ],
      }),
    ]);
  });

  it('closing with nothing open commits nothing', async () => {
    const { ctx, run, commits } = hook([]);
    expect(await run('close-port', '22/tcp')).toEqual(ok());
    await ctx.flush();
    expect(commits).toEqual([]);
  });
});
