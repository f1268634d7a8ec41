// `npm run bench:bundle-deploy`: deploying a Juju bundle of 10 applications, 100 units and 12 relations
// (`drover deploy bundle.yaml`, cli/bundle/) against the same deployment made command by command
// (10 `deploy -n 10`, 12 `relate`), both through the CLI's API client to the API handler over
// HTTP on one DynamoDB Local, in the same run, alternating which goes first. Each run gets a
// fresh table; every DynamoDB request the API sends is counted (bench/support/request-log.ts).
// Prints a Markdown table and records it in bench/RESULTS.md.
//
// BENCH_RUNS (default 5): timed runs of each way, after one untimed run of each (the first runs
// of a process pay for compiling and for DynamoDB Local warming up).
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { deployBundle } from '../cli/bundle/apply.js';
import { readCharmDir } from '../cli/charm-dir.js';
import { charmRequest } from '../cli/charm-request.js';
import { writeConfig } from '../cli/config.js';
import { createCli } from '../cli/context.js';
import type { CliIo } from '../cli/io.js';
import { startApiServer } from '../embedded/api-server.js';
import { charmFileRoutes } from '../embedded/charm-files.js';
import { startDynamoDbLocal, type DynamoDbLocal } from '../embedded/dynamodb-local.js';
import { createApiHandler } from '../functions/api/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { derivedAgentCredentials, newAgentCredentialKey } from '#shared/provisioner/agent-credentials.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { createStore } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { RequestLog, reads, tally, writes, type Tally } from './support/request-log.js';
import { publishSection, runLine } from './support/results-file.js';
import { silentLogger } from '../test/support/silent-logger.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const APPLICATIONS = 10;
const UNITS_EACH = 10;
/** Which application requires which one's endpoint: a chain, and three across it. */
const RELATIONS: [number, number][] = [...Array.from({ length: 9 }, (_, i) => [i, i + 1] as [number, number]), [0, 2], [3, 5], [6, 8]];
const HEADING = '## Bundle deploy (npm run bench:state, after the state core; alone: npm run bench:bundle-deploy)';
const TOKEN = 'bench';

const appName = (i: number) => `app-${'abcdefghij'[i]}`;

/** Ten charms: each provides its own interface and requires those of the applications it relates to. */
function writeCharms(dir: string): void {
  for (let i = 0; i < APPLICATIONS; i++) {
    const requires = RELATIONS.filter(([a]) => a === i).map(([, b]) => `  use-${appName(b)}: {interface: if-${appName(b)}}`);
    const charm = join(dir, appName(i));
    mkdirSync(charm, { recursive: true });
    writeFileSync(
      join(charm, 'metadata.yaml'),
      [`name: ${appName(i)}`, 'summary: a benchmark charm', 'series: [jammy]', 'provides:', `  srv: {interface: if-${appName(i)}}`]
        .concat(requires.length ? ['requires:', ...requires] : [])
        .join('\n') + '\n',
    );
  }
}

function writeBundle(dir: string): string {
  const lines = ['series: jammy', 'applications:'];
  for (let i = 0; i < APPLICATIONS; i++) lines.push(`  ${appName(i)}:`, `    charm: ./${appName(i)}`, `    num_units: ${UNITS_EACH}`);
  lines.push('relations:', ...RELATIONS.map(([a, b]) => `  - [${appName(a)}:use-${appName(b)}, ${appName(b)}:srv]`));
  writeFileSync(join(dir, 'bundle.yaml'), lines.join('\n') + '\n');
  return join(dir, 'bundle.yaml');
}

interface Run {
  way: 'bundle' | 'commands';
  seconds: number;
  apiRequests: number;
  requests: Tally;
}

/** A controller on a fresh table, a client configured for it, and one way of deploying, timed. */
async function run(dynamo: DynamoDbLocal, dir: string, way: Run['way']): Promise<Run> {
  const store = createStore({ table: `bench-bundle-${randomUUID().slice(0, 8)}`, endpoint: dynamo.endpoint, region: 'local' });
  await ensureTable(store.client, store.table);
  await ensureModel(store);
  const log = new RequestLog(store, createStore({ table: store.table, endpoint: dynamo.endpoint, region: 'local' }));
  const charms = localCharmStore(mkdtempSync(join(tmpdir(), 'bench-bundle-charms-')));
  const handler = createApiHandler({
    store,
    charms,
    auth: { kind: 'token', token: TOKEN },
    // No agent calls in this benchmark; the API still needs a way to check one.
    agents: { kind: 'machine-keys', keys: derivedAgentCredentials(newAgentCredentialKey()) },
    controller: 'bench',
    logger: silentLogger,
  });
  let apiRequests = 0;
  const api = await startApiServer((event) => (apiRequests++, handler(event)), { direct: charmFileRoutes(charms) });
  const env = { DROVER_HOME: mkdtempSync(join(tmpdir(), 'bench-bundle-home-')) };
  await writeConfig(env, { current: 'bench', controllers: { bench: { type: 'local', apiUrl: api.url, token: TOKEN } } });
  const io: CliIo = {
    stdout: () => undefined,
    stderr: () => undefined,
    env,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    readLine: async () => undefined,
    signal: new AbortController().signal,
  };
  const cli = createCli(io, () => undefined);
  try {
    const start = performance.now();
    const { requests } = await log.capture(async () => {
      if (way === 'bundle') return deployBundle(cli, join(dir, 'bundle.yaml'), { dryRun: false });
      const client = await cli.client({ timeoutMs: 300_000 });
      for (let i = 0; i < APPLICATIONS; i++) {
        const charm = await readCharmDir(join(dir, appName(i)));
        await client.post('deploy', { charm: await charmRequest(client, charm), name: appName(i), series: 'jammy', numUnits: UNITS_EACH });
      }
      for (const [a, b] of RELATIONS) await client.post('relate', { endpoints: [`${appName(a)}:use-${appName(b)}`, `${appName(b)}:srv`] });
    });
    return { way, seconds: (performance.now() - start) / 1000, apiRequests, requests: tally(requests) };
  } finally {
    await api.close();
  }
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function table(runs: Run[]): string {
  const row = (way: Run['way']) => {
    const of = runs.filter((r) => r.way === way);
    const t = of[0]!.requests;
    return {
      way,
      seconds: median(of.map((r) => r.seconds)),
      api: of[0]!.apiRequests,
      transactions: t.transactions,
      writes: writes(t),
      reads: reads(t),
    };
  };
  const [bundle, commands] = [row('bundle'), row('commands')];
  const lines = [
    '| way | runs | median time s | API requests | transactions | write actions | reads |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...[bundle, commands].map(
      (r) =>
        `| ${r.way === 'bundle' ? '`deploy bundle.yaml`' : 'command by command'} | ${RUNS} | ${r.seconds.toFixed(2)} | ${r.api} | ${r.transactions} | ${r.writes} | ${r.reads} |`,
    ),
  ];
  return [
    ...lines,
    '',
    `Bundle against commands: time ×${(bundle.seconds / commands.seconds).toFixed(2)}, transactions ×${(bundle.transactions / commands.transactions).toFixed(2)}, API requests ×${(bundle.api / commands.api).toFixed(2)}.`,
  ].join('\n');
}

async function main() {
  const began = Date.now();
  const loadBefore = loadavg()[0]!;
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundle-'));
  writeCharms(dir);
  writeBundle(dir);
  const dynamo = await startDynamoDbLocal();
  try {
    for (const way of ['bundle', 'commands'] as const) await run(dynamo, dir, way);
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternating which goes first, so neither always meets a warmer DynamoDB Local.
      for (const way of i % 2 ? (['commands', 'bundle'] as const) : (['bundle', 'commands'] as const)) {
        const r = await run(dynamo, dir, way);
        console.error(`${way}: ${r.seconds.toFixed(2)} s, ${r.requests.transactions} transactions, ${r.apiRequests} API requests`);
        runs.push(r);
      }
    }
    const body = [
      runLine(began, loadBefore, 'DynamoDB Local in memory, one untimed run of each way first'),
      '',
      `${APPLICATIONS} applications of ${UNITS_EACH} units each and ${RELATIONS.length} relations, deployed on a fresh table, through the CLI's API client ` +
        'to the API handler over HTTP (charms uploaded as `drover deploy` uploads them). The bundle reads the model, deploys each application ' +
        "with no units, adds each application's units in one add-unit request, then relates; command by command is one `deploy -n 10` per " +
        'application and one `relate` per relation. Transactions and write actions are every DynamoDB write the API sent.',
      '',
      table(runs),
    ].join('\n');
    await publishSection(HEADING, body);
  } finally {
    await dynamo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
