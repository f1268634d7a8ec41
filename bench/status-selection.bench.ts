// `npm run bench:status`: `drover status <selector>` read on the server
// (shared/state/queries/status-selection.ts) against the whole model's status the CLI used to
// fetch and cut down, side by side in one run, on one model: APPLICATIONS applications of UNITS
// units each, one machine per unit (built through the state operations, no agents). For each
// selector kind: the median time of the read, the DynamoDB read requests it sent and the size of
// the JSON document. Then the whole model read a page at a time (what `drover status` reads) against
// the one-shot read: the first page's time, the whole read's, and the pages' sizes. Prints Markdown
// tables and records them in bench/RESULTS.md.
//
// BENCH_RUNS (default 5): timed runs of each read, alternating, after one untimed run of each.
// BENCH_UNITS (default 100): units per application.
import { randomUUID } from 'node:crypto';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { selectStatus, statusQuery } from '../cli/status/select.js';
import { startDynamoDbLocal } from '../embedded/dynamodb-local.js';
import { parseCharm } from '#shared/domain/charm.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { readStatus } from '#shared/state/queries/status.js';
import { readStatusPageDoc } from '#shared/state/queries/status-pages.js';
import { allUnits, type StatusDoc } from '#shared/domain/status-document.js';
import { assembleStatus, type StatusPage } from '#shared/domain/status-page.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { RequestLog, reads, tally } from './support/request-log.js';
import { writeSection } from './support/results-file.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const APPLICATIONS = 20;
const UNITS = Number(process.env.BENCH_UNITS ?? 100);
const HEADING = '## Status selectors (npm run bench:status)';

const appName = (i: number) => `app-${String.fromCharCode(97 + i)}`;

/** The selectors measured: one of each kind the server reads on its own. */
const SELECTORS: [string, string[]][] = [
  ['application', [appName(0)]],
  ['unit', [`${appName(1)}/7`]],
  ['machine', ['42']],
];

interface Measure {
  seconds: number;
  reads: number;
  bytes: number;
}

async function measure(log: RequestLog, read: () => Promise<unknown>): Promise<Measure> {
  const start = performance.now();
  const { value, requests } = await log.capture(read);
  return { seconds: (performance.now() - start) / 1000, reads: reads(tally(requests)), bytes: Buffer.byteLength(JSON.stringify(value)) };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The whole model's status read a page at a time, against the one-shot read, alternating. */
async function measurePaged(store: Store, log: RequestLog, oneShot: () => Promise<StatusDoc>) {
  const readAll = async () => {
    const start = performance.now();
    let first = 0;
    const pages: StatusPage[] = [];
    let cursor: string | undefined;
    do {
      const page = await readStatusPageDoc(store, cursor ? { cursor } : {});
      if (!pages.length) first = (performance.now() - start) / 1000;
      pages.push(page);
      cursor = page.cursor;
    } while (cursor);
    return { first, whole: (performance.now() - start) / 1000, pages };
  };
  const doc = await oneShot();
  const { pages } = await readAll();
  if (JSON.stringify(assembleStatus(pages)) !== JSON.stringify(doc))
    throw new Error('the pages put together differ from the one-shot document');
  const pagedRuns: { first: number; whole: number }[] = [];
  const oneShotRuns: Measure[] = [];
  for (let run = 0; run < RUNS; run++) {
    if (run % 2 === 0) oneShotRuns.push(await measure(log, oneShot));
    pagedRuns.push(await readAll());
    if (run % 2 === 1) oneShotRuns.push(await measure(log, oneShot));
  }
  const { requests } = await log.capture(readAll);
  const sizes = pages.map((p) => Buffer.byteLength(JSON.stringify(p)));
  const entities = (d: StatusDoc) =>
    Object.keys(d.applications).length + allUnits(d).length + Object.keys(d.machines).length + (d.relations?.length ?? 0);
  return {
    first: median(pagedRuns.map((r) => r.first)),
    whole: median(pagedRuns.map((r) => r.whole)),
    reads: reads(tally(requests)),
    pages: pages.length,
    largest: Math.max(...sizes),
    bytesPerEntity: sizes.reduce((a, b) => a + b, 0) / entities(doc),
    oneShot: { seconds: median(oneShotRuns.map((m) => m.seconds)), reads: oneShotRuns[0]!.reads, bytes: oneShotRuns[0]!.bytes },
    oneShotBytesPerEntity: oneShotRuns[0]!.bytes / entities(doc),
  };
}

async function buildModel(store: Store): Promise<void> {
  for (let i = 0; i < APPLICATIONS; i++) {
    const charm = parseCharm(`name: ${appName(i)}\nseries: [jammy]\nprovides:\n  srv: {interface: if-${appName(i)}}\n`);
    await deploy(store, { charm, numUnits: UNITS });
  }
}

async function main() {
  const dynamo = await startDynamoDbLocal();
  try {
    const store = createStore({ table: `bench-status-${randomUUID().slice(0, 8)}`, endpoint: dynamo.endpoint, region: 'local' });
    await ensureTable(store.client, store.table);
    await ensureModel(store);
    const built = performance.now();
    await buildModel(store);
    console.error(`built ${APPLICATIONS * UNITS} units in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    const log = new RequestLog(store, createStore({ table: store.table, endpoint: dynamo.endpoint, region: 'local' }));
    const whole = () => readStatus(store);
    const selected = (selectors: string[]) => {
      const q = statusQuery(selectors);
      return readStatus(store, { select: { applications: q.application ?? [], units: q.unit ?? [], machines: q.machine ?? [] } });
    };
    const rows: string[] = [];
    for (const [kind, selectors] of SELECTORS) {
      // The same document either way (test/integration/status-selection.test.ts checks it too).
      const same =
        JSON.stringify(selectStatus(await whole(), selectors)) === JSON.stringify(selectStatus(await selected(selectors), selectors));
      if (!same) throw new Error(`status ${selectors.join(' ')}: the selected read differs from the whole model's`);
      const wholeRuns: Measure[] = [];
      const selectedRuns: Measure[] = [];
      for (let run = 0; run < RUNS; run++) {
        const first = run % 2 === 0;
        if (first) wholeRuns.push(await measure(log, whole));
        selectedRuns.push(await measure(log, () => selected(selectors)));
        if (!first) wholeRuns.push(await measure(log, whole));
      }
      const w = { seconds: median(wholeRuns.map((m) => m.seconds)), reads: wholeRuns[0]!.reads, bytes: wholeRuns[0]!.bytes };
      const s = { seconds: median(selectedRuns.map((m) => m.seconds)), reads: selectedRuns[0]!.reads, bytes: selectedRuns[0]!.bytes };
      rows.push(
        `| \`status ${selectors.join(' ')}\` (${kind}) | ${w.seconds.toFixed(3)} | ${s.seconds.toFixed(3)} | ×${(s.seconds / w.seconds).toFixed(3)} | ${w.reads} | ${s.reads} | ${(w.bytes / 1024).toFixed(0)} | ${(s.bytes / 1024).toFixed(0)} |`,
      );
    }
    const paged = await measurePaged(store, log, whole);
    const body = [
      `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? 'unknown CPU'} (${availableParallelism()} cores), load ${loadavg()[0]!.toFixed(1)}; DynamoDB Local in memory.`,
      '',
      `A model of ${APPLICATIONS} applications × ${UNITS} units (${APPLICATIONS * UNITS} units, one machine each), built through the state operations. For each selector: the whole model's status (what the CLI fetched before and cut down) against the read of only what the selector can show; median of ${RUNS} runs each, alternating. Reads: DynamoDB read requests (GetItem, BatchGetItem, Query). The two documents, cut down by the CLI, are checked equal before timing.`,
      '',
      '| read | whole model s | selected s | time | whole reads | selected reads | whole KiB | selected KiB |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
      '',
      `The whole model a page at a time (shared/state/queries/status-pages.ts, what \`drover status\` reads now) against the one-shot read (what older clients get), on the same model; median of ${RUNS} runs each, alternating. First page: until the CLI can print; per unit: the whole read's time over the units. Bytes per entity: the pages' JSON over the applications, units, machines and relations in them.`,
      '',
      '| read | first page s | whole s | ms per unit | reads | pages | largest page KiB | bytes per entity |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| one-shot | ${paged.oneShot.seconds.toFixed(3)} | ${paged.oneShot.seconds.toFixed(3)} | ${((paged.oneShot.seconds * 1000) / (APPLICATIONS * UNITS)).toFixed(3)} | ${paged.oneShot.reads} | 1 | ${(paged.oneShot.bytes / 1024).toFixed(0)} | ${paged.oneShotBytesPerEntity.toFixed(0)} |`,
      `| paged | ${paged.first.toFixed(3)} | ${paged.whole.toFixed(3)} | ${((paged.whole * 1000) / (APPLICATIONS * UNITS)).toFixed(3)} | ${paged.reads} | ${paged.pages} | ${(paged.largest / 1024).toFixed(0)} | ${paged.bytesPerEntity.toFixed(0)} |`,
    ].join('\n');
    console.log(body);
    await writeSection(join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md'), HEADING, body);
  } finally {
    await dynamo.stop();
  }
}

await main();
