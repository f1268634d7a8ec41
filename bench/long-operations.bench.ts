// `npm run bench:long-ops`: how long the API's call takes for the operations that grow with their
// argument, against API Gateway's 29 s: `add-unit -n 10000` with every unit added in the call (as
// the API did before) and with the units beyond the first ones left to the background
// (shared/domain/plans/background-units.ts), side by side on one table; then how long the
// background takes to add the rest, and remove-application of the resulting application (its call,
// then its units' removal in bounded batches by the cleanup runner). Prints Markdown and records
// it in bench/RESULTS.md.
//
// The background is run here by one runner, batch after batch, as the `changes` function runs a
// document: one bounded batch per stream record of it (functions/changes/cleanups.ts).
//
// For investigating: BENCH_UNITS (units per add-unit, default 10000, the API's most).
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { IN_CALL_UNITS } from '#shared/domain/plans/background-units.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { ADD_UNITS_BATCH } from '#shared/state/operations/cleanup/add-units.js';
import { runAllCleanups } from '#shared/state/operations/cleanup/run-cleanups.js';
import { UNITS_BATCH } from '#shared/state/operations/cleanup/units.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { startDynamoDbLocal } from '../embedded/dynamodb-local.js';
import { benchCharms } from './support/charms.js';
import { publishSection, runLine } from './support/results-file.js';

const UNITS = Number(process.env.BENCH_UNITS ?? 10_000);
const HEADING = '## Long operations (npm run bench:long-ops)';
/** API Gateway's integration timeout (https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html). */
const API_LIMIT_S = 29;

const seconds = async (work: () => Promise<unknown>) => {
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
};

interface Row {
  operation: string;
  callS: number;
  /** The background's share, after the call returned. */
  backgroundS?: number;
  /** Units the operation adds or removes: all of them, and those left to the background. */
  units: number;
  backgroundUnits: number;
}

async function measure(store: Store): Promise<Row[]> {
  await deploy(store, { charm: benchCharms.web, name: 'in-call', numUnits: 0 });
  await deploy(store, { charm: benchCharms.web, name: 'background', numUnits: 0 });
  const rows: Row[] = [];

  const inCall = await seconds(() => addUnits(store, 'in-call', { count: UNITS }));
  rows.push({ operation: `add-unit -n ${UNITS}, every unit in the call (before)`, callS: inCall, units: UNITS, backgroundUnits: 0 });
  console.error(`in the call: ${inCall.toFixed(1)} s`);

  const call = await seconds(() => addUnits(store, 'background', { count: UNITS, background: true }));
  const rest = await seconds(() => runAllCleanups(store, Number.MAX_SAFE_INTEGER));
  rows.push({
    operation: `add-unit -n ${UNITS}, the rest in the background`,
    callS: call,
    backgroundS: rest,
    units: UNITS,
    backgroundUnits: UNITS - IN_CALL_UNITS,
  });
  console.error(`background: call ${call.toFixed(2)} s, the rest ${rest.toFixed(1)} s`);

  const destroy = await seconds(() => destroyApplication(store, 'background'));
  const removal = await seconds(() => runAllCleanups(store, Number.MAX_SAFE_INTEGER));
  rows.push({
    operation: `remove-application of ${UNITS} units`,
    callS: destroy,
    backgroundS: removal,
    units: UNITS,
    backgroundUnits: UNITS,
  });
  console.error(`remove-application: call ${destroy.toFixed(2)} s, the units' removal ${removal.toFixed(1)} s`);
  return rows;
}

function table(rows: Row[]): string {
  const f = (n: number | undefined, digits = 2) => (n === undefined ? '–' : n.toFixed(digits));
  const lines = [
    `| operation | the call s | ratio to API Gateway's ${API_LIMIT_S} s | after the call, in the background s | units/s in the background | at 100k units: the call / the background (this host's rate) |`,
    '| --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of rows) {
    const rate = r.backgroundS ? r.backgroundUnits / r.backgroundS : undefined;
    const at100k =
      r.backgroundS === undefined
        ? `${f((r.callS * 100_000) / r.units, 0)} s in the call`
        : `${f(r.callS)} s (flat) / ${f(100_000 / rate! / 60, 0)} min`;
    lines.push(`| ${r.operation} | ${f(r.callS)} | ${f(r.callS / API_LIMIT_S)} | ${f(r.backgroundS, 1)} | ${f(rate, 0)} | ${at100k} |`);
  }
  return lines.join('\n');
}

async function main() {
  const began = Date.now();
  const loadBefore = loadavg()[0]!;
  const local = await startDynamoDbLocal();
  try {
    const store = createStore({ table: `bench-long-${randomUUID().slice(0, 8)}`, endpoint: local.endpoint, region: 'local' });
    await ensureTable(store.client, store.table);
    await ensureModel(store);
    const rows = await measure(store);
    const body = [
      runLine(began, loadBefore, 'DynamoDB Local in memory'),
      '',
      table(rows),
      '',
      '### Method',
      '',
      [
        `- The state operations the API calls, on one table of DynamoDB Local: two applications of the bench charm with no units; ${UNITS} units added to the first with every unit in the call, ` +
          `then to the second with the first ${IN_CALL_UNITS} in the call and the rest left to an \`addUnits\` document (what the API asks since units are added in the background); ` +
          `the document run to the end by one runner, ${ADD_UNITS_BATCH} units a batch, as the changes function runs it one batch per stream record of it. ` +
          `Then remove-application of the second: the call, and its units' removal by the cleanup runner, ${UNITS_BATCH} units a batch (the units' agents never started, so each goes at once).`,
        '- Each unit on a new machine, 8 units a transaction. The background column leaves out the stream delivery between batches (100 ms locally, well under a second on AWS).',
        '- At 100k units: the call adds the same units whatever -n is; the background at the rate measured here (DynamoDB is faster per transaction than DynamoDB Local on 2 cores).',
      ].join('\n'),
    ].join('\n');
    await publishSection(HEADING, body);
  } finally {
    await local.stop();
  }
}

await main();
