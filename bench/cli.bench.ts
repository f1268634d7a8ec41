// `npm run bench:cli`: what a `drover` command costs to start, against Node's own start-up, side by
// side in one run. Tools poll the CLI (jubilant's wait() runs `status --format json` about once a
// second), so its CPU per call is what they pay. Measured, each as its own process:
//   - `node -e 0`: Node's start-up alone, the floor every command pays;
//   - a bare HTTP request from Node to a local server: the floor of a command that asks the API;
//   - `drover --version` and `drover status --format json` through the bin (cli/drover.mjs: the
//     cached bundle, cli/launch/cli-bundle.mjs), status on a model of UNITS units;
//   - `drover --version` through tsx, as the bin ran the CLI before it was bundled.
// The model is served as the local controller serves it (its HTTP server and the API handler, over
// DynamoDB Local; no agents), deployed with `drover deploy test/charms/cli-mysql -n UNITS`.
// CPU is each child's user + system time, every thread, as it exits (bench/support/cpu-at-exit.cjs).
// Runs are paired and interleaved: a round runs every command once, in an order that rotates from
// round to round, and each command's ratio to `node -e 0` is taken within its round; the median
// round counts. Prints a Markdown table and records it in bench/RESULTS.md.
//
// BENCH_ROUNDS (default 9, at least 5): timed rounds, after one untimed (which builds the bundle if
// it is not there). BENCH_UNITS (default 50).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startApiServer } from '../embedded/api-server.js';
import { charmFileRoutes } from '../embedded/charm-files.js';
import { startDynamoDbLocal } from '../embedded/dynamodb-local.js';
import { createApiHandler } from '../functions/api/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { createStore } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { testAgentKeys } from '../test/support/agent-events.js';
import { silentLogger } from '../test/support/silent-logger.js';
import { publishSection, runLine } from './support/results-file.js';

const ROUNDS = Math.max(5, Number(process.env.BENCH_ROUNDS ?? 9));
const UNITS = Number(process.env.BENCH_UNITS ?? 50);
const HEADING = '## CLI start-up (npm run bench:cli)';
const TOKEN = 'bench-token';
const REPO = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(REPO, 'cli', 'drover.mjs');
const CPU_AT_EXIT = join(REPO, 'bench', 'support', 'cpu-at-exit.cjs');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Run {
  cpuMs: number;
  wallMs: number;
}

/** Runs `node <args>` with the CPU preload; its CPU and wall time. Fails on a non-zero exit. */
function measure(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--require', CPU_AT_EXIT, ...args], {
      cwd: REPO,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let cpu = '';
    child.stdout!.resume();
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => (cpu += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`));
      resolve({ cpuMs: Number(cpu.trim()) / 1000, wallMs });
    });
  });
}

async function main(): Promise<void> {
  const began = Date.now();
  const loadBefore = loadavg()[0]!;
  const dynamo = await startDynamoDbLocal();
  const bare = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/`;
  try {
    const store = createStore({ table: `bench-cli-${randomUUID().slice(0, 8)}`, endpoint: dynamo.endpoint, region: 'local' });
    await ensureTable(store.client, store.table);
    await ensureModel(store);
    const charms = localCharmStore(await mkdtemp(join(tmpdir(), 'drover-bench-charms-')));
    const handler = createApiHandler({
      store,
      charms,
      auth: { kind: 'token', token: TOKEN },
      agents: { kind: 'machine-keys', keys: testAgentKeys },
      controller: 'bench',
      logger: silentLogger,
    });
    const api = await startApiServer(handler, { direct: charmFileRoutes(charms) });
    const home = await mkdtemp(join(tmpdir(), 'drover-bench-home-'));
    await writeFile(
      join(home, 'controllers.json'),
      JSON.stringify({ current: 'bench', controllers: { bench: { type: 'local', apiUrl: api.url, token: TOKEN } } }),
      { mode: 0o600 },
    );
    const env = { DROVER_HOME: home };
    try {
      await measure([BIN, 'deploy', join(REPO, 'test', 'charms', 'cli-mysql'), '-n', String(UNITS)], env);

      const commands: { label: string; args: string[] }[] = [
        { label: '`node -e 0`', args: ['-e', '0'] },
        {
          label: 'a bare HTTP request from Node to a local server',
          args: ['-e', `require('node:http').get(${JSON.stringify(bareUrl)}, (r) => r.resume())`],
        },
        { label: '`drover --version`', args: [BIN, '--version'] },
        { label: `\`drover status --format json\`, ${UNITS} units`, args: [BIN, 'status', '--format', 'json'] },
        {
          label: '`drover --version` through tsx (the bin before the bundle)',
          args: ['--import', TSX, join(REPO, 'cli', 'main.ts'), '--version'],
        },
      ];
      for (const command of commands) await measure(command.args, env); // untimed: builds the bundle if need be
      const runs = commands.map(() => [] as Run[]);
      const ratios = commands.map(() => [] as number[]);
      for (let round = 0; round < ROUNDS; round++) {
        const inRound: Run[] = [];
        for (let k = 0; k < commands.length; k++) {
          const i = (round + k) % commands.length;
          inRound[i] = await measure(commands[i]!.args, env);
        }
        commands.forEach((_, i) => {
          runs[i]!.push(inRound[i]!);
          ratios[i]!.push(inRound[i]!.cpuMs / inRound[0]!.cpuMs);
        });
        console.error(`bench:cli: round ${round + 1} of ${ROUNDS} done`);
      }
      const row = (i: number) =>
        `| ${commands[i]!.label} | ${median(runs[i]!.map((r) => r.cpuMs)).toFixed(1)} | ${median(ratios[i]!).toFixed(2)} | ${median(runs[i]!.map((r) => r.wallMs)).toFixed(0)} |`;
      const body = [
        runLine(began, loadBefore, `${ROUNDS} rounds, status on ${UNITS} units`),
        '',
        '| command | CPU ms (user + system), median | × `node -e 0` (median of the rounds) | wall ms, median |',
        '| --- | ---: | ---: | ---: |',
        ...commands.map((_, i) => row(i)),
        '',
        `Targets: \`--version\` at most 2× \`node -e 0\`, \`status --format json\` on ${UNITS} units at most 3×.`,
        '',
        "What a command no longer does at start, each found with `--cpu-prof` and measured on its own: compile the CLI through tsx (the bin runs cached bundles, cli/launch/cli-bundle.mjs); parse the bundle (V8's code cache, ~15 ms); load every command's module and its libraries (the named command's only, cli/command-modules.ts; `--version` none); load fetch's implementation, undici and its WebAssembly parser (~20 ms; node:http instead, cli/http-request.ts); build zod's schemas to check the client config (~15 ms; checked by hand, cli/config.ts); set up ICU's collator for localeCompare to sort status (10–20 ms; shared/domain/natural-order.ts, the same order).",
        '',
        `Method: each command is its own \`node\` process, its CPU (every thread) read as it exits (bench/support/cpu-at-exit.cjs, preloaded into every one alike). A round runs each command once, the order rotating from round to round; a command's ratio is taken against \`node -e 0\` of the same round, and the median round is shown. The model is served by the local controller's HTTP server and API handler over DynamoDB Local, in the bench's process (not counted), deployed with \`drover deploy test/charms/cli-mysql -n ${UNITS}\` (no agents: the units wait for machines). The bundle is built before the timed rounds.`,
      ].join('\n');
      await publishSection(HEADING, body);
    } finally {
      await api.close();
      store.client.destroy();
    }
  } finally {
    bare.close();
    await dynamo.stop();
  }
}

await main();
