// `npm run bench:hook-tools`: what one hook tool call costs a hook, side by side in one run. The
// tools are bash scripts talking to the unit agent's tool server over TCP
// (agent/hook-tools/hook-tool.bash, tool-server.ts); before, each call started Node, whose start
// alone is measured as the old floor (`node -e 0`: that client is gone, and it did its work after
// Node had started). The host's floor for a bash tool is `bash -c :` plus one TCP round trip to
// a server in this process.
//
// The calls are made as a hook makes them: a bash loop (the driver) runs each command as a child
// process and times it with $EPOCHREALTIME, in blocks of BLOCK calls that rotate between the
// commands, so that all share the machine's noise. The tool server is the real one, in this
// process; its hook context answers from memory, as the real one answers is-leader while the
// lease holds (shared/domain/leadership.ts) and takes juju-log lines without a request: the
// numbers are the tools' cost, not the API's.
//
// BENCH_CALLS (default 200): calls of each command.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installHookTools } from '../agent/hook-tools/install-tools.js';
import type { ToolContext } from '../agent/hook-tools/tool-context.js';
import { ToolServer } from '../agent/hook-tools/tool-server.js';
import { writeSection } from './support/results-file.js';
import { percentile } from './support/timing.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const BLOCK = 10;
const HEADING = '## Hook tool calls (npm run bench:hook-tools)';
const BASH_VERSION = execFileSync('bash', ['-c', 'echo $BASH_VERSION'], { encoding: 'utf8' }).trim();
const TOOL_SCRIPT = fileURLToPath(new URL('../agent/hook-tools/hook-tool.bash', import.meta.url));

/** Each command the driver times, as a bash function body. */
const COMMANDS = {
  node: { label: '`node -e 0`: Node starting, the old client’s floor', body: '"$NODE" -e 0' },
  bash: { label: '`bash -c :`', body: 'bash -c :' },
  floor: { label: 'bash + one TCP round trip: the new floor', body: '"$FLOOR"' },
  isLeader: { label: '`is-leader` (bash client)', body: 'is-leader >/dev/null' },
  jujuLog: { label: '`juju-log <line>` (bash client)', body: 'juju-log "a line an ops charm logs"' },
} as const;
type Command = keyof typeof COMMANDS;

/** A TCP server that answers one line per connection, for the floor's round trip. */
async function lineServer() {
  const server = createServer((socket) => socket.once('data', () => socket.end('ok\n')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(resolve)) };
}

function driverScript(): string {
  const names = Object.keys(COMMANDS) as Command[];
  return [
    '#!/bin/bash',
    ...names.map((name) => `call_${name}() { ${COMMANDS[name].body}; }`),
    `names=(${names.join(' ')})`,
    `for ((from = 0, b = 0; from < ${CALLS}; from += ${BLOCK}, b++)); do`,
    '  for ((k = 0; k < ${#names[@]}; k++)); do',
    '    name=${names[(k + b) % ${#names[@]}]}',
    `    for ((i = from; i < from + ${BLOCK} && i < ${CALLS}; i++)); do`,
    '      t0=${EPOCHREALTIME/./}',
    '      call_$name',
    '      t1=${EPOCHREALTIME/./}',
    '      echo "$name $((t1 - t0))" >&3',
    '    done',
    '  done',
    'done',
  ].join('\n');
}

/** Runs the driver; each command's latencies in milliseconds. */
function drive(script: string, env: Record<string, string>): Promise<Record<Command, number[]>> {
  return new Promise((resolve, reject) => {
    // fd 3 carries the timings, so that what the tools print cannot mix with them.
    const child = spawn('bash', [script], { env, stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
    let out = '';
    child.stdio[3]!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the driver exited with ${code}`));
      const latencies = Object.fromEntries(Object.keys(COMMANDS).map((name) => [name, [] as number[]])) as Record<Command, number[]>;
      for (const line of out.trim().split('\n')) {
        const [name, micros] = line.split(' ') as [Command, string];
        latencies[name].push(Number(micros) / 1000);
      }
      resolve(latencies);
    });
  });
}

const logged: string[] = [];
const context = {
  unitName: 'bench/0',
  relations: () => [],
  isLeader: async () => true,
  log: (_level: string, message: string) => void logged.push(message),
} as unknown as ToolContext;

const dir = mkdtempSync(join(tmpdir(), 'bench-hook-tools-'));
const tools = new ToolServer();
const floorServer = await lineServer();
try {
  const { secret } = await tools.open('bench/0-install-1', context);
  installHookTools(join(dir, 'tools'), TOOL_SCRIPT);
  const floor = join(dir, 'floor');
  writeFileSync(floor, `#!/bin/bash\nexec 3<>/dev/tcp/127.0.0.1/${floorServer.port}\nprintf 'x\\n' >&3\nIFS= read -r line <&3\n`, {
    mode: 0o755,
  });
  const script = join(dir, 'driver.bash');
  writeFileSync(script, driverScript());
  const latencies = await drive(script, {
    PATH: `${join(dir, 'tools')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    NODE: process.execPath,
    FLOOR: floor,
    JUJU_CONTEXT_ID: 'bench/0-install-1',
    DROVER_HOOK_SECRET: secret,
    JUJU_AGENT_SOCKET_NETWORK: 'tcp',
    JUJU_AGENT_SOCKET_ADDRESS: tools.address,
  });
  if (logged.length !== CALLS) throw new Error(`juju-log reached the agent ${logged.length} times, not ${CALLS}`);

  const stats = Object.fromEntries(
    Object.entries(latencies).map(([name, xs]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return [name, { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }];
    }),
  ) as Record<Command, { p50: number; p99: number }>;
  const ms = (x: number) => x.toFixed(1);
  const ratio = (a: number, b: number) => `×${(a / b).toFixed(2)}`;
  const rows = (Object.keys(COMMANDS) as Command[]).map((name) => {
    const s = stats[name];
    return `| ${COMMANDS[name].label} | ${ms(s.p50)} | ${ms(s.p99)} | ${ratio(s.p50, stats.node.p50)} | ${ratio(s.p50, stats.floor.p50)} |`;
  });
  const body = [
    `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? 'unknown CPU'} (${availableParallelism()} cores), load ${loadavg()[0]!.toFixed(1)}; Node ${process.version}, bash ${BASH_VERSION}.`,
    '',
    `${CALLS} calls of each command, timed by a bash loop with $EPOCHREALTIME as a hook would make them (fork, exec, wait), in blocks of ${BLOCK} rotating between the commands. The tool server is the real one (agent/hook-tools/tool-server.ts); its hook context answers from memory, so the numbers are the tools' own cost. The old Node client no longer exists; \`node -e 0\` is what it paid before doing anything. The floor is \`bash -c :\` plus one TCP round trip to a server that answers a line. Target: a tool call at p50 ≤ 10 ms.`,
    '',
    '| call | p50 ms | p99 ms | p50 vs Node start | p50 vs floor |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
  process.stdout.write(`${body}\n`);
  await writeSection(join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md'), HEADING, body);
} finally {
  await tools.stop();
  await floorServer.close();
  rmSync(dir, { recursive: true, force: true });
}
