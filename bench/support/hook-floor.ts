// The floor under a unit start's CPU: what the hooks' own processes cost when nothing else runs.
// For each unit, the charm's install, config-changed and start hooks are run one after another
// the way a unit agent runs them (agent/uniter/hook-process.ts: its own process group, output
// piped and read line by line), the hook tools installed as agents install them, and the start
// hook's status-set answered by a TCP server that only says "done" (no context, no state, no
// request): bash, the hooks' sh and date, and Node's fork and pipes, nothing of drover's.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installHookTools } from '../../agent/hook-tools/install-tools.js';
import { encodeAnswer } from '../../agent/hook-tools/tool-frame.js';
import { runHookProcess } from '../../agent/uniter/hook-process.js';
import { processCpuSeconds } from './proc-cpu.js';

const TOOL_SCRIPT = fileURLToPath(new URL('../../agent/hook-tools/hook-tool.bash', import.meta.url));
const HOOKS = ['install', 'config-changed', 'start'];

/** CPU seconds per unit (this process and the hooks it reaped) to run `charmDir`'s start-up hooks for `units` units. */
export async function hookFloorCpuPerUnit(charmDir: string, units: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-hook-floor-'));
  const toolsDir = join(dir, 'tools');
  installHookTools(toolsDir, TOOL_SCRIPT);
  const done = encodeAnswer({ code: 0, stdout: '', stderr: '' });
  // Answers once the tool has sent anything: the request's bytes are not even parsed.
  const server = createServer((socket) => {
    socket.once('data', () => socket.end(done));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const before = processCpuSeconds(process.pid);
  try {
    for (let unit = 0; unit < units; unit++) {
      // The hook writes beside its charm directory ("$CHARM_DIR/.."): a directory per unit.
      const unitDir = mkdtempSync(join(dir, 'unit-'));
      mkdirSync(join(unitDir, 'charm'));
      for (const hook of HOOKS) {
        const result = await runHookProcess({
          charmDir,
          dispatchPath: `hooks/${hook}`,
          env: {
            PATH: `${toolsDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
            CHARM_DIR: join(unitDir, 'charm'),
            JUJU_CONTEXT_ID: `floor-${unit}-${hook}`,
            DROVER_HOOK_SECRET: 'floor',
            JUJU_AGENT_SOCKET_ADDRESS: address,
          },
          onLine: () => undefined,
        });
        if (result.kind !== 'exited' || result.code !== 0)
          throw new Error(`floor: hook ${hook} did not succeed: ${JSON.stringify(result)}`);
      }
    }
    return (processCpuSeconds(process.pid) - before) / units;
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
