// The crash-point matrix for uploads and bundle deploys (docs/reliability.md, "Crash-point
// matrix"): `drover deploy <bundle>` (two local charms, each packed and uploaded, deployed, placed,
// configured, exposed and related) and `drover deploy <charm> --resource` (a charm and a resource
// uploaded, checked as they stream and kept), run with the CLI in-process against the API over
// HTTP. A first run records every I/O step of the API process (its DynamoDB commands and charm
// store calls, through test/support/fault-seam.ts); then, for each step and each side of it, the
// flow runs again on a fresh table and charm store with the API killed there: that request and
// everything the process does afterwards fail (the CLI sees a 500), the process is started again
// with nothing in memory, and the user runs the command that failed again. Every point must end
// as the run without faults: the same applications with their charms, units, options, resources
// and relation, the model's invariants, and nothing leaked: no upload left waiting and no archive
// that nothing uses.
//
// `npm test` runs two points: the API killed just after the first upload is kept as an archive
// (before anything names it), and just before the bundle's last write (half a bundle applied);
// DROVER_CRASH_POINTS=n runs n points spread over the recording; DROVER_SOAK=1 runs them all. DROVER_CRASH_ONLY="kill after api:charms.adoptUpload#1"
// replays the points so named.
import { mkdtempSync, readdirSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/api/handler.js';
import { startApiServer } from '../../embedded/api-server.js';
import { charmFileRoutes } from '../../embedded/charm-files.js';
import { localCharmStore, type LocalCharmStore } from '#shared/charmstore/local-charm-store.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { charmDir, runCli, TOKEN, writeClientConfig } from '../support/cli.js';
import { dynamoEndpoint } from '../support/dynamodb.js';
import { FaultSeam, pointName, type FaultPoint } from '../support/fault-seam.js';
import { checkInvariants, LifeHistory } from '../support/invariants.js';
import { readModelState } from '../support/model-state.js';
import { testAgentKeys } from '../support/agent-events.js';
import { silentLogger } from '../support/silent-logger.js';
import { freshStore } from '../support/table.js';
import { SOAK } from '../support/soak.js';
import { ATTR } from '#shared/state/engine/keys.js';

const SAMPLE = process.env.DROVER_CRASH_POINTS ? Number(process.env.DROVER_CRASH_POINTS) : undefined;
const ONLY = process.env.DROVER_CRASH_ONLY;
/** Times the user runs a command again after it failed under them. */
const MAX_TRIES = 4;

const BUNDLE = `series: jammy
applications:
  database:
    charm: ./database
    num_units: 1
    options:
      db-name: appdb
  client:
    charm: ./client
    num_units: 1
    to: [database/0]
    expose: true
relations:
  - [client:db, database:db]
`;

interface Run {
  problems: string[];
  /** What the model and the charm store hold at the end, for comparing with the run without faults. */
  outcome: unknown;
  fired: number;
  retries: number;
  /** The API's transactions while the bundle deployed. */
  bundleWrites: number;
  /** The API requests the CLI sent (its uploads' PUTs aside). */
  requests: number;
  /** The CLI was killed as its request was answered. */
  cliKilled: boolean;
}

/** The flow's files: the bundle beside copies of its charms, and a resource file. */
function flowFiles(): { dir: string; bundle: string; payload: string } {
  const dir = mkdtempSync(join(tmpdir(), 'drover-crash-uploads-'));
  for (const name of ['database', 'client', 'resourceful']) cpSync(charmDir(name), join(dir, name), { recursive: true });
  writeFileSync(join(dir, 'bundle.yaml'), BUNDLE);
  writeFileSync(join(dir, 'payload.txt'), 'the payload\n');
  return { dir, bundle: join(dir, 'bundle.yaml'), payload: join(dir, 'payload.txt') };
}

/** The files of the charm store: archives by sha256, and uploads waiting to be adopted. */
function storeContents(charms: LocalCharmStore): { archives: string[]; uploads: string[] } {
  const list = (dir: string) => {
    try {
      return readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
        .sort();
    } catch {
      return [];
    }
  };
  return { archives: list(charms.directory), uploads: list(join(charms.directory, 'uploads')) };
}

/** The applications as the flow leaves them, the parts two runs must agree on. */
async function outcomeOf(observer: Store, charms: LocalCharmStore) {
  const state = await readModelState(observer);
  const applications = state.items
    .filter((i) => i[ATTR.kind] === 'application')
    .map((a) => {
      const app = a as {
        name: string;
        charmArchive?: string;
        config?: Record<string, unknown>;
        exposed?: boolean;
        resources?: Record<string, { sha256: string; revision: number }>;
      };
      return {
        name: app.name,
        charmArchive: app.charmArchive,
        config: app.config,
        exposed: app.exposed ?? false,
        resources: Object.fromEntries(Object.entries(app.resources ?? {}).map(([k, r]) => [k, { sha256: r.sha256, revision: r.revision }])),
        units: state.units.filter((u) => u.application === app.name && u.life === 'alive').length,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const relations = state.relations.map((r) => r.key).sort();
  const store = storeContents(charms);
  // Charms are packed again by each run (their files' times differ), so two runs agree on which
  // archives are kept, not on their sha256s.
  const kept = (sha256: string | undefined) => (sha256 !== undefined && store.archives.includes(`${sha256}.tar.gz`) ? 'kept' : 'missing');
  return {
    applications: applications.map((a) => ({ ...a, charmArchive: kept(a.charmArchive) })),
    relations,
    store: { archives: store.archives.length, uploads: store.uploads },
    used: applications.flatMap((a) => [a.charmArchive, ...Object.values(a.resources).map((r) => r.sha256)]),
    archives: store.archives,
    state,
  };
}

/**
 * `cliDiesAt`: the CLI process dies once the API has its request of that number (counted over the
 * flow): the request is served, the CLI never reads the answer nor sends the next.
 */
async function runFlow(seam: FaultSeam, cliDiesAt?: number): Promise<Run> {
  const files = flowFiles();
  const observer = await freshStore();
  await ensureModel(observer);
  const charms = localCharmStore(join(files.dir, 'store'));
  const problems: string[] = [];
  let retries = 0;

  /** A new API process: its own DynamoDB client and charm store calls through the seam, nothing in memory. */
  const startApi = () => {
    const store = createStore({ table: observer.table, endpoint: endpoint, region: 'local' });
    seam.attachDynamo(store.client, 'api');
    return createApiHandler({
      store,
      charms: seam.wrapCharmStore(charms, 'api'),
      auth: { kind: 'token', token: TOKEN },
      agents: { kind: 'machine-keys', keys: testAgentKeys },
      controller: 'crash',
      logger: silentLogger,
    });
  };
  const endpoint = await dynamoEndpoint();
  let api = startApi();
  let requests = 0;
  let cli = new AbortController();
  let cliKilled = false;
  // The uploads' PUTs go to the store itself, as they go to S3 on AWS, not through the API process.
  const server = await startApiServer(
    (event) => {
      if (++requests === cliDiesAt) {
        cli.abort();
        cliKilled = true;
      }
      return api(event);
    },
    { direct: charmFileRoutes(charms) },
  );
  const home = join(files.dir, 'home');
  await writeClientConfig(home, 'crash', { crash: { type: 'local', apiUrl: server.url, token: TOKEN } });

  /** Runs the command, and again after the API died under it, as a user would. */
  const command = async (args: string[], alreadyDone: RegExp) => {
    for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
      const result = await runCli(args, { DROVER_HOME: home }, { signal: cli.signal });
      const interrupted = cli.signal.aborted;
      cli = new AbortController();
      const died = seam.isDead('api');
      if (died) {
        seam.revive('api');
        api = startApi();
      }
      if (result.code === 0) return;
      // The first try committed before the process died: the repeat is refused as a user would see it.
      if (attempt > 1 && alreadyDone.test(result.stderr)) return;
      if (!died && !interrupted && seam.fired.length === 0) {
        problems.push(`drover ${args.join(' ')} failed with no fault: ${result.stderr}`);
        return;
      }
      retries++;
    }
    problems.push(`drover ${args.join(' ')} still failed after ${MAX_TRIES} tries`);
  };

  try {
    await command(['deploy', files.bundle], /^$/);
    const bundleWrites = seam.steps.filter((s) => s.process === 'api' && s.call === 'TransactWriteItems').length;
    await command(['deploy', join(files.dir, 'resourceful'), '--resource', `payload=${files.payload}`], /already exists/);
    const { state, used, archives, ...outcome } = await outcomeOf(observer, charms);
    for (const v of checkInvariants(state, new LifeHistory())) problems.push(`at the end: ${v}`);
    // Nothing leaked: no upload waits, and every archive kept is a charm or resource the model uses.
    if (outcome.store.uploads.length) problems.push(`uploads left waiting: ${outcome.store.uploads.join(', ')}`);
    const unused = archives.filter((f) => !used.some((sha256) => f === `${sha256}.tar.gz`));
    if (unused.length) problems.push(`archives nothing uses: ${unused.join(', ')}`);
    return { problems, outcome, fired: seam.fired.length, retries, bundleWrites, requests, cliKilled };
  } finally {
    await server.close();
    rmSync(files.dir, { recursive: true, force: true });
  }
}

/** The API process killed at a step, or the CLI killed as the API gets its request of this number. */
type Point = { api: FaultPoint } | { cliAt: number };
const nameOf = (p: Point) => ('api' in p ? pointName(p.api) : `cli killed at request #${p.cliAt}`);

/** `n` points spread evenly over the recording. */
function sample(points: Point[], n: number): Point[] {
  if (points.length <= n) return points;
  return Array.from({ length: n }, (_, i) => points[Math.floor((i * points.length) / n)]!);
}

/** `npm test`'s three points: after the first upload is kept, before the bundle's last write, the CLI killed half way. */
function keyPoints(points: Point[], bundleWrites: number, requests: number): Point[] {
  const named = [
    `kill after api:charms.adoptUpload#1`,
    `kill before api:TransactWriteItems#${bundleWrites}`,
    `cli killed at request #${Math.ceil(requests / 2)}`,
  ];
  return points.filter((p) => named.includes(nameOf(p)));
}

describe('the crash-point matrix of uploads and bundle deploys', () => {
  it(
    'ends as a run without faults after the API dies at any I/O step of a bundle deploy and an upload, and leaks nothing',
    async () => {
      const recording = new FaultSeam();
      const clean = await runFlow(recording);
      expect(clean.problems).toEqual([]);
      const steps = recording.steps.filter((s) => s.process === 'api');
      // The recording reaches the uploads: each archive is opened as it streams, then kept.
      expect(steps.map((s) => s.call)).toEqual(expect.arrayContaining(['charms.openUpload', 'charms.adoptUpload', 'TransactWriteItems']));
      const all: Point[] = [
        ...steps.flatMap((s) => (['before', 'after'] as const).map((phase): Point => ({ api: { ...s, phase, action: 'kill' } }))),
        ...Array.from({ length: clean.requests }, (_, i): Point => ({ cliAt: i + 1 })),
      ];
      const points = ONLY
        ? all.filter((p) => ONLY.split(',').includes(nameOf(p)))
        : SOAK
          ? all
          : SAMPLE !== undefined
            ? sample(all, SAMPLE)
            : keyPoints(all, clean.bundleWrites, clean.requests);
      expect(points.length).toBeGreaterThan(0);
      const failures: string[] = [];
      let reached = 0;
      let retries = 0;
      const started = Date.now();
      for (const point of points) {
        const seam = new FaultSeam();
        if ('api' in point) seam.arm(point.api);
        const run = await runFlow(seam, 'cliAt' in point ? point.cliAt : undefined);
        if (run.fired > 0 || run.cliKilled) reached++;
        retries += run.retries;
        if (JSON.stringify(run.outcome) !== JSON.stringify(clean.outcome))
          run.problems.push(`ended as ${JSON.stringify(run.outcome)}, not as without faults: ${JSON.stringify(clean.outcome)}`);
        if (run.problems.length) failures.push(`${nameOf(point)}:\n  ${run.problems.join('\n  ')}`);
      }
      console.info(
        `crash matrix of uploads and bundles: ${points.length} points of ${all.length} ` +
          `(${steps.length} steps of the API, ${clean.requests} requests of the CLI), ` +
          `${points.length - failures.length} ended as without faults, ${reached} reached, ${retries} commands run again, ` +
          `${Math.round((Date.now() - started) / 1000)} s`,
      );
      expect(failures).toEqual([]);
      expect(reached).toBe(points.length);
    },
    SOAK ? 4 * 60 * 60_000 : 300_000,
  );
});
