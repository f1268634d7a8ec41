// `npm run bench:dashboard`: `drover dashboard` on a model of APPLICATIONS applications of UNITS
// units each (200 units; built through the state operations, no agents), each related to the next,
// in headless Chromium (test/support/browser.ts), with the `changes` function on the table's stream
// as the local controller runs it (it moves the model's revision). Measured side by side in one run:
// - page load to topology drawn (every node placed) in a fresh page, against the CLI's own read of
//   the whole status (cli/status/read-pages.ts) over the same API: the ratio is what the page adds
//   (its 1.5 MB script, the layout, the drawing) to the read it cannot avoid;
// - two pages open at once on the same model, each through its own dashboard server and its own
//   API server (one handler each, their DynamoDB requests counted apart):
//     polled: a controller without the model's revision (its API answers that route as an older
//       controller does), so the page reads status and stuck every 5 s, as every page did before;
//     pushed: the dashboard's server reads the revision every 2 s and tells the page, which reads
//       status and stuck only when it moved (and once a minute anyway);
//   for each, the API requests and DynamoDB reads per minute while nothing changes (IDLE_SECONDS),
//   then with a change every CHANGE_EVERY_S s (a unit's agent status and message, written as its
//   agent would), the time from the write to the page showing it, and the requests meanwhile.
// Prints a Markdown table and records it in bench/RESULTS.md.
//
// BENCH_RUNS (default 3): page loads and status reads, alternating, after one untimed of each.
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import { ApiClient } from '../cli/client.js';
import { dashboardAssets } from '../cli/dashboard/bundle.js';
import { startDashboardServer, type DashboardServer } from '../cli/dashboard/server.js';
import { readWholeStatus } from '../cli/status/read-pages.js';
import { startApiServer, type ApiServer } from '../embedded/api-server.js';
import { startDynamoDbLocal } from '../embedded/dynamodb-local.js';
import { startSqsServer } from '../embedded/sqs-server.js';
import { pollerSettingsOf } from '../embedded/stream/consumer-settings.js';
import { createStreamPoller } from '../embedded/stream-poller.js';
import { createApiHandler } from '../functions/api/handler.js';
import { errorResponse } from '../functions/api/http.js';
import { createChangesHandler } from '../functions/changes/handler.js';
import { streamConsumer } from '../functions/stream-consumers.js';
import { MODEL_HEADER } from '#shared/api/model-header.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { parseCharm } from '#shared/domain/charm.js';
import { createSqsClient } from '#shared/messaging/sqs-client.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { addRelation } from '#shared/state/operations/add-relation.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { testAgentKeys } from '../test/support/agent-events.js';
import { launchBrowser } from '../test/support/browser.js';
import { silentLogger } from '../test/support/silent-logger.js';
import { RequestCounter } from './support/request-counter.js';
import { publishSection, runLine } from './support/results-file.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const APPLICATIONS = 10;
const UNITS = 20;
const IDLE_SECONDS = 60;
const CHANGES = 6;
const CHANGE_EVERY_S = 10;
const TOKEN = 'bench-token';
const HEADING = '## Dashboard (npm run bench:dashboard)';

const appName = (i: number) => `app-${String.fromCharCode(97 + i)}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One way of keeping a page live: its own API server (DynamoDB requests counted), dashboard server and page. */
interface Mode {
  name: 'polled' | 'pushed';
  counter: RequestCounter;
  api: ApiServer;
  dashboard: DashboardServer;
  /** API requests the dashboard's server sent so far. */
  requests: number;
  page?: Page;
}

async function main(): Promise<void> {
  const began = Date.now();
  const loadBefore = loadavg()[0]!;
  const dynamo = await startDynamoDbLocal();
  const sqsServer = await startSqsServer();
  const browser = await launchBrowser();
  const closing: Array<() => Promise<unknown>> = [];
  try {
    const table = `bench-dashboard-${randomUUID().slice(0, 8)}`;
    const storeOf = (): Store => createStore({ table, endpoint: dynamo.endpoint, region: 'local' });
    const store = storeOf();
    await ensureTable(store.client, store.table);
    await ensureModel(store);
    for (let i = 0; i < APPLICATIONS; i++) {
      const charm = parseCharm(
        `name: ${appName(i)}\nseries: [jammy]\nprovides:\n  out: {interface: link}\nrequires:\n  in: {interface: link}\n`,
      );
      await deploy(store, { charm, numUnits: UNITS });
    }
    for (let i = 0; i + 1 < APPLICATIONS; i++) await addRelation(store, [`${appName(i)}:out`, `${appName(i + 1)}:in`]);

    // The changes function as the local controller runs it, on a store of its own.
    const sqs = createSqsClient({ endpoint: sqsServer.endpoint, region: 'us-east-1' });
    const poller = createStreamPoller({
      ...pollerSettingsOf(streamConsumer('changes')),
      tableName: table,
      endpoint: dynamo.endpoint,
      region: 'local',
      startingPosition: 'TRIM_HORIZON',
      handler: createChangesHandler({ store: storeOf(), sqs, controllerId: 'bench', logger: silentLogger }),
      onFailure: async () => undefined,
      log: () => undefined,
    });
    await poller.start();
    closing.push(() => poller.stop());
    await poller.drain();

    const charms = localCharmStore(await mkdtemp(join(tmpdir(), 'drover-bench-charms-')));
    const assets = await dashboardAssets();
    const startMode = async (name: Mode['name']): Promise<Mode> => {
      const apiStore = storeOf();
      const counter = new RequestCounter(apiStore);
      const handler = createApiHandler({
        store: apiStore,
        charms,
        auth: { kind: 'token', token: TOKEN },
        agents: { kind: 'machine-keys', keys: testAgentKeys },
        controller: 'bench',
        logger: silentLogger,
      });
      // The polled page's controller lacks the revision's route, and answers it as an older one does.
      const api = await startApiServer(async (event) =>
        name === 'polled' && event.rawPath === '/v1/model-revision'
          ? errorResponse('not-found', `no route GET ${event.rawPath}; see "drover help"`)
          : handler(event),
      );
      closing.push(() => api.close());
      const client = new ApiClient(
        { name: 'bench', controller: { type: 'local', apiUrl: api.url, token: TOKEN } },
        { headers: { [MODEL_HEADER]: 'default' } },
      );
      const mode = { name, counter, api, requests: 0 } as Mode;
      const counting = {
        get: ((...args: Parameters<ApiClient['get']>) => {
          mode.requests++;
          return client.get(...args);
        }) as ApiClient['get'],
        post: ((...args: Parameters<ApiClient['post']>) => {
          mode.requests++;
          return client.post(...args);
        }) as ApiClient['post'],
        // The bench's pages show the model the dashboard started on: none of their reads names another.
        withHeaders: (): ApiClient => {
          throw new Error('the bench reads only the model the dashboard started on');
        },
      };
      mode.dashboard = await startDashboardServer({ client: counting, assets, port: 0, title: `bench ${name}` });
      closing.push(() => mode.dashboard.close());
      return mode;
    };
    const polled = await startMode('polled');
    const pushed = await startMode('pushed');
    const modes = [polled, pushed];
    const cliClient = new ApiClient(
      { name: 'bench', controller: { type: 'local', apiUrl: pushed.api.url, token: TOKEN } },
      { headers: { [MODEL_HEADER]: 'default' } },
    );

    const drawn = (page: Page) =>
      page
        .locator('g.node')
        .nth(APPLICATIONS - 1)
        .waitFor({ timeout: 60_000 });
    const loadPage = async () => {
      const page = await browser.context.newPage();
      const start = performance.now();
      await page.goto(pushed.dashboard.oneTimeUrl());
      await drawn(page);
      const seconds = (performance.now() - start) / 1000;
      await page.close();
      return seconds;
    };
    const readStatus = async () => {
      const start = performance.now();
      await readWholeStatus(cliClient);
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

    // Both pages open and drawn, then a few seconds for the pushed page's load-time re-read.
    for (const mode of modes) {
      mode.page = await browser.context.newPage();
      await mode.page.goto(mode.dashboard.oneTimeUrl());
      await drawn(mode.page);
    }
    await sleep(10_000);
    const window = async (during: () => Promise<unknown>) => {
      const before = modes.map((m) => ({ requests: m.requests, reads: m.counter.now().reads }));
      const start = performance.now();
      await during();
      const minutes = (performance.now() - start) / 60_000;
      return modes.map((m, i) => ({
        requests: (m.requests - before[i]!.requests) / minutes,
        reads: (m.counter.now().reads - before[i]!.reads) / minutes,
      }));
    };
    const idle = await window(() => sleep(IDLE_SECONDS * 1000));

    const latencies: number[][] = modes.map(() => []);
    const changing = await window(async () => {
      for (let n = 1; n <= CHANGES; n++) {
        const next = sleep(CHANGE_EVERY_S * 1000);
        const message = `change ${n} of the bench`;
        await setUnitStatus(store, `${appName(0)}/0`, { agent: { current: 'error', message } });
        const written = performance.now();
        await Promise.all(
          modes.map(async (mode, i) => {
            await mode.page!.waitForSelector(`g.node[data-application="${appName(0)}"]:has-text("${message}")`, { timeout: 30_000 });
            latencies[i]!.push((performance.now() - written) / 1000);
          }),
        );
        await next;
      }
    });
    const live = await Promise.all(modes.map((m) => m.page!.getAttribute('p.updated', 'data-live')));

    const load = median(loads);
    const read = median(reads);
    const row = (label: string, values: string[]) => `| ${label} | ${values.join(' | ')} |`;
    const perMinute = (xs: { requests: number; reads: number }[], key: 'requests' | 'reads') => xs.map((x) => `${x[key].toFixed(0)}`);
    const body = [
      runLine(
        began,
        loadBefore,
        `${APPLICATIONS} applications of ${UNITS} units (${APPLICATIONS * UNITS} units, ${APPLICATIONS * UNITS} machines), each related to the next; DynamoDB Local, the local API server, the changes function on a local stream poller, headless Chromium ${(await browser.context.browser()?.version()) ?? ''}; other sessions share the host`,
      ),
      '',
      `Page load to topology drawn against the CLI's whole status read, same API (medians of ${RUNS} runs, alternating): ${load.toFixed(2)} s against ${read.toFixed(2)} s, ${(load / read).toFixed(1)}×.`,
      '',
      `Two pages open at once on the same model, each through its own dashboard server and API server (DynamoDB requests counted per API server): one polling as every page did before (its controller answers \`model-revision\` as an older one does; the page says \`${live[0]}\`), one told by its server when the revision moved (\`${live[1]}\`). Idle for ${IDLE_SECONDS} s, then ${CHANGES} changes ${CHANGE_EVERY_S} s apart (a unit's agent status and message, written as its agent would).`,
      '',
      '| measure | polled (before) | pushed (revision + SSE) | pushed / polled |',
      '| --- | --- | --- | --- |',
      row('API requests a minute, idle', [...perMinute(idle, 'requests'), `${(idle[1]!.requests / idle[0]!.requests).toFixed(2)}`]),
      row('DynamoDB reads a minute, idle', [...perMinute(idle, 'reads'), `${(idle[1]!.reads / idle[0]!.reads).toFixed(3)}`]),
      row(`API requests a minute, a change every ${CHANGE_EVERY_S} s`, [
        ...perMinute(changing, 'requests'),
        `${(changing[1]!.requests / changing[0]!.requests).toFixed(2)}`,
      ]),
      row(`DynamoDB reads a minute, a change every ${CHANGE_EVERY_S} s`, [
        ...perMinute(changing, 'reads'),
        `${(changing[1]!.reads / changing[0]!.reads).toFixed(2)}`,
      ]),
      row('change written → shown, median (max)', [
        ...latencies.map((xs) => `${median(xs).toFixed(2)} s (${Math.max(...xs).toFixed(2)} s)`),
        `${(median(latencies[1]!) / median(latencies[0]!)).toFixed(2)}`,
      ]),
      '',
      `Measured ${new Date().toISOString().slice(0, 10)}. A read of the model is one status page (up to 1,000 entities) and one \`stuck\`: ${(idle[0]!.reads / (idle[0]!.requests / 2)).toFixed(0)} DynamoDB reads on this model (the polled page's idle minute); a read of the revision is one GetItem after the model's name, 2. The pushed page also reads the model once a minute whatever it was told, which its idle minute includes; its delay is the stream's, up to the server's 2 s poll, and one read of the model, which this host's load makes slow.`,
    ].join('\n');
    await publishSection(HEADING, body);
  } finally {
    for (const close of closing.reverse()) await close().catch(() => undefined);
    await browser.close();
    await sqsServer.stop();
    await dynamo.stop();
  }
}

await main();
