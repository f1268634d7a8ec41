// `npm run bench:dashboard`: `drover dashboard` on a model of APPLICATIONS applications of UNITS
// units each (200 units; built through the state operations, no agents), each related to the next,
// in headless Chromium (test/support/browser.ts). Measured side by side in one run:
// - page load to topology drawn (every node placed) in a fresh page, against the CLI's own read of
//   the whole status (cli/status/read-pages.ts) over the same API: the ratio is what the page adds
//   (its 1.5 MB script, the layout, the drawing) to the read it cannot avoid;
// - the requests the page sends the dashboard's server in IDLE_SECONDS of an idle, visible page,
//   as requests per minute, at the page's default interval.
// Prints a Markdown table and records it in bench/RESULTS.md.
//
// BENCH_RUNS (default 3): page loads and status reads, alternating, after one untimed of each.
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '../cli/client.js';
import { dashboardAssets } from '../cli/dashboard/bundle.js';
import { startDashboardServer } from '../cli/dashboard/server.js';
import { readWholeStatus } from '../cli/status/read-pages.js';
import { startApiServer } from '../embedded/api-server.js';
import { startDynamoDbLocal } from '../embedded/dynamodb-local.js';
import { createApiHandler } from '../functions/api/handler.js';
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { parseCharm } from '#shared/domain/charm.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { createStore } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { testAgentKeys } from '../test/support/agent-events.js';
import { launchBrowser } from '../test/support/browser.js';
import { writeSection } from './support/results-file.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const APPLICATIONS = 10;
const UNITS = 20;
const IDLE_SECONDS = 60;
const TOKEN = 'bench-token';
const HEADING = '## Dashboard (npm run bench:dashboard)';

const appName = (i: number) => `app-${String.fromCharCode(97 + i)}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dynamo = await startDynamoDbLocal();
  const browser = await launchBrowser();
  try {
    const store = createStore({ table: `bench-dashboard-${randomUUID().slice(0, 8)}`, endpoint: dynamo.endpoint, region: 'local' });
    await ensureTable(store.client, store.table);
    await ensureModel(store);
    for (let i = 0; i < APPLICATIONS; i++) {
      const charm = parseCharm(
        `name: ${appName(i)}\nseries: [jammy]\nprovides:\n  out: {interface: link}\nrequires:\n  in: {interface: link}\n`,
      );
      await deploy(store, { charm, numUnits: UNITS });
    }
    for (let i = 0; i + 1 < APPLICATIONS; i++) await addRelation(store, [`${appName(i)}:out`, `${appName(i + 1)}:in`]);

    const handler = createApiHandler({
      store,
      charms: localCharmStore(await mkdtemp(join(tmpdir(), 'drover-bench-charms-'))),
      auth: { kind: 'token', token: TOKEN },
      agents: { kind: 'machine-keys', keys: testAgentKeys },
      controller: 'bench',
      logger: { error: () => undefined } as never,
    });
    const api = await startApiServer(handler);
    const client = new ApiClient(
      { name: 'bench', controller: { type: 'local', apiUrl: api.url, token: TOKEN } },
      { headers: { [MODEL_HEADER]: 'default' } },
    );
    let requests = 0;
    const counting = {
      get: ((...args: Parameters<ApiClient['get']>) => {
        requests++;
        return client.get(...args);
      }) as ApiClient['get'],
      post: ((...args: Parameters<ApiClient['post']>) => {
        requests++;
        return client.post(...args);
      }) as ApiClient['post'],
      // The bench's page shows the model the dashboard started on: none of its reads names another.
      withHeaders: (): ApiClient => {
        throw new Error('the bench reads only the model the dashboard started on');
      },
    };
    const dashboard = await startDashboardServer({ client: counting, assets: await dashboardAssets(), port: 0, title: 'bench' });
    try {
      const loadPage = async () => {
        const page = await browser.context.newPage();
        const start = performance.now();
        await page.goto(dashboard.url);
        await page
          .locator('g.node')
          .nth(APPLICATIONS - 1)
          .waitFor({ timeout: 60_000 });
        const seconds = (performance.now() - start) / 1000;
        await page.close();
        return seconds;
      };
      const readStatus = async () => {
        const start = performance.now();
        await readWholeStatus(client);
        return (performance.now() - start) / 1000;
      };
      await loadPage();
      await readStatus();
      const loads: number[] = [];
      const reads: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        loads.push(await loadPage());
        reads.push(await readStatus());
      }

      const idle = await browser.context.newPage();
      await idle.goto(dashboard.url);
      await idle
        .locator('g.node')
        .nth(APPLICATIONS - 1)
        .waitFor({ timeout: 60_000 });
      requests = 0;
      await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
      const perMinute = (requests * 60) / IDLE_SECONDS;
      await idle.close();

      const load = median(loads);
      const read = median(reads);
      const body = [
        `${APPLICATIONS} applications of ${UNITS} units (${APPLICATIONS * UNITS} units, ${APPLICATIONS * UNITS} machines), each related to the next; DynamoDB Local, the local API server, headless Chromium ${(await browser.context.browser()?.version()) ?? ''}, on ${availableParallelism()} × ${cpus()[0]?.model ?? 'cpu'}. Medians of ${RUNS} runs, alternating.`,
        '',
        '| measure | value |',
        '| --- | --- |',
        `| page load to topology drawn (fresh page) | ${load.toFixed(2)} s |`,
        `| the CLI's whole status read, same API | ${read.toFixed(2)} s |`,
        `| ratio: page load / status read | ${(load / read).toFixed(1)}× |`,
        `| requests to the dashboard's server while idle (visible page, default interval) | ${perMinute.toFixed(0)} a minute |`,
        '',
        `Measured ${new Date().toISOString().slice(0, 10)}. Each poll is one status page (up to 1,000 entities) and one \`stuck\`.`,
      ].join('\n');
      console.log(`${HEADING}\n\n${body}`);
      await writeSection(join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md'), HEADING, body);
    } finally {
      await dashboard.close();
      await api.close();
    }
  } finally {
    await browser.close();
    await dynamo.stop();
  }
}

await main();
