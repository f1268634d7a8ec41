// `npm run bench:conflicts`: how many transactions concurrent add-units get cancelled, now that
// their numbers are reserved by an atomic counter before the transaction
// (shared/state/engine/number-reservations.ts) instead of asserted in it; and what that counter
// costs one add-unit, against its own transaction alone. Prints Markdown and records it in
// bench/RESULTS.md.
//
// Conflicts: 8 callers, each a store of its own (its own client and snapshot cache, as 8 API
// processes or Lambdas), add one unit each at once, round after round, to one application or
// each to its own of 8 applications of one model, in a model of a few sizes. Middleware on each
// caller's client counts the TransactWriteItems it sends and those DynamoDB cancels (with their
// cancellation reasons), and the sequence reservations (UpdateItem).
//
// Cost: one caller, add-unit after add-unit, interleaved call by call with a raw replay of the
// operation's own TransactWriteItems on fresh keys (bench/support/raw-writes.ts, as bench:state
// does); the reservations are the difference.
//
// For investigating: BENCH_ROUNDS (rounds of 8 concurrent add-units, default 25), BENCH_SIZES
// (units already in the model, default 0,200), BENCH_CALLS (timed calls for the cost, default 200).
import { DeleteTableCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { startDynamoDbLocal, type DynamoDbLocal } from '../embedded/dynamodb-local.js';
import { benchCharms } from './support/charms.js';
import { describeShape, RawWriter, writeShapes } from './support/raw-writes.js';
import { RequestLog, type SentRequest } from './support/request-log.js';
import { publishSection, runLine } from './support/results-file.js';
import { interleave, summarise } from './support/timing.js';

const CALLERS = 8;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);
const SIZES = (process.env.BENCH_SIZES ?? '0,200').split(',').filter(Boolean).map(Number);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const WARMUP = 20;
const HEADING = '## Concurrent add-units (npm run bench:conflicts)';
/** Before the counters, the same 8 concurrent add-units cancelled 16–28 transactions per 8 commits, at every model size. */
const BEFORE = '16–28 per 8 commits';

/** Transactions one client sent and how they ended. */
class TransactionCounter {
  sent = 0;
  cancelled = 0;
  reservations = 0;
  readonly reasons = new Map<string, number>();

  constructor(store: Store) {
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UpdateItemCommand') this.reservations++;
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        this.sent++;
        try {
          return await next(args);
        } catch (e) {
          if (e instanceof TransactionCanceledException) {
            this.cancelled++;
            for (const code of (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None').filter((c) => c !== 'None'))
              this.reasons.set(code, (this.reasons.get(code) ?? 0) + 1);
          }
          throw e;
        }
      },
      { step: 'initialize', name: 'transactionCounter' },
    );
  }

  reset() {
    this.sent = this.cancelled = this.reservations = 0;
    this.reasons.clear();
  }
}

/** Application names may not end in a number after a hyphen: 3 → "d". */
const nth = (prefix: string, i: number) => `${prefix}-${'abcdefgh'[i]}`;

async function newTable(local: DynamoDbLocal, name: string): Promise<Store> {
  const store = createStore({ table: `bench-${name}-${randomUUID().slice(0, 8)}`, endpoint: local.endpoint, region: 'local' });
  await ensureTable(store.client, store.table);
  await ensureModel(store);
  return store;
}

interface ConflictRow {
  scenario: string;
  size: number;
  commits: number;
  cancelled: number;
  reservations: number;
  reasons: string;
  seconds: number;
}

async function measureConflicts(local: DynamoDbLocal, size: number, spread: boolean): Promise<ConflictRow> {
  const setup = await newTable(local, `conflicts-${size}`);
  if (size > 0) await deploy(setup, { charm: benchCharms.db, name: 'filler', numUnits: size });
  const targets = Array.from({ length: CALLERS }, (_, i) => (spread ? nth('web', i) : 'web'));
  for (const name of new Set(targets)) await deploy(setup, { charm: benchCharms.web, name, numUnits: 0 });
  const callers = targets.map(() => createStore({ table: setup.table, endpoint: local.endpoint, region: 'local' }));
  const counters = callers.map((c) => new TransactionCounter(c));
  // One untimed round: each caller's cache learns what it plans from, as a warm process's has.
  await Promise.all(callers.map((c, i) => addUnits(c, targets[i]!)));
  counters.forEach((c) => c.reset());
  const started = Date.now();
  for (let round = 0; round < ROUNDS; round++) await Promise.all(callers.map((c, i) => addUnits(c, targets[i]!)));
  const seconds = (Date.now() - started) / 1000;
  const sum = (f: (c: TransactionCounter) => number) => counters.reduce((n, c) => n + f(c), 0);
  const reasons = new Map<string, number>();
  for (const c of counters) for (const [code, n] of c.reasons) reasons.set(code, (reasons.get(code) ?? 0) + n);
  await setup.client.send(new DeleteTableCommand({ TableName: setup.table }));
  return {
    scenario: spread ? `8 applications, one add-unit each` : 'one application, 8 add-units',
    size,
    commits: sum((c) => c.sent - c.cancelled),
    cancelled: sum((c) => c.cancelled),
    reservations: sum((c) => c.reservations),
    reasons: [...reasons].map(([code, n]) => `${n} ${code}`).join(', ') || 'none',
    seconds,
  };
}

interface CostRow {
  shape: string;
  op: ReturnType<typeof summarise>;
  raw: ReturnType<typeof summarise>;
  /** Mean milliseconds per call with a reservation outstanding, and in the transaction. */
  reservationMs: number;
  transactionMs: number;
  reservationsPerCall: number;
}

/** Milliseconds with at least one request of `command` outstanding (parallel ones count once). */
function busy(requests: SentRequest[], command: string): number {
  let total = 0;
  let until = -Infinity;
  for (const r of requests.filter((q) => q.command === command).sort((a, b) => a.start - b.start)) {
    if (r.end <= until) continue;
    total += r.end - Math.max(r.start, until);
    until = r.end;
  }
  return total;
}

async function measureCost(local: DynamoDbLocal): Promise<CostRow> {
  const store = await newTable(local, 'cost');
  const log = new RequestLog(store, createStore({ table: store.table, endpoint: local.endpoint, region: 'local' }));
  await deploy(store, { charm: benchCharms.web, numUnits: 0 });
  const call = () => addUnits(store, 'web');
  for (let i = 0; i < WARMUP - 1; i++) await call();
  // The raw side replays the transaction alone: the reservations are what the operation adds.
  const shapes = writeShapes((await log.capture(call, { snapshots: true })).requests).filter((s) => 'transaction' in s);
  const raw = new RawWriter(store, 'add-unit');
  await raw.prepare(shapes, WARMUP + CALLS);
  for (let i = 0; i < WARMUP; i++) await raw.runAll(shapes);
  let reservationMs = 0;
  let transactionMs = 0;
  let reservations = 0;
  const timings = await interleave(
    CALLS,
    1,
    async () => {
      const { requests } = await log.capture(call);
      reservationMs += busy(requests, 'UpdateItemCommand');
      transactionMs += busy(requests, 'TransactWriteItemsCommand');
      reservations += requests.filter((r) => r.command === 'UpdateItemCommand').length;
    },
    () => raw.runAll(shapes),
  );
  await store.client.send(new DeleteTableCommand({ TableName: store.table }));
  return {
    shape: describeShape(shapes),
    op: summarise(timings.op),
    raw: summarise(timings.raw),
    reservationMs: reservationMs / CALLS,
    transactionMs: transactionMs / CALLS,
    reservationsPerCall: reservations / CALLS,
  };
}

function conflictTable(rows: ConflictRow[]): string {
  const lines = [
    '| scenario | units in model | rounds | commits | cancelled | cancelled per 8 commits | reasons | reservations (UpdateItem) | s |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.scenario} | ${r.size} | ${ROUNDS} | ${r.commits} | ${r.cancelled} | ${((r.cancelled / r.commits) * 8).toFixed(2)} | ${r.reasons} | ${r.reservations} | ${r.seconds.toFixed(1)} |`,
    );
  }
  return lines.join('\n');
}

function costTable(c: CostRow): string {
  const ms = (n: number) => n.toFixed(1);
  return [
    '| side | calls | ops/s | p50 ms | p99 ms | ms in reservations / transaction per call |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    `| add-unit (1 unit, snapshot cache) | ${c.op.calls} | ${c.op.opsPerSecond.toFixed(0)} | ${ms(c.op.p50)} | ${ms(c.op.p99)} | ${ms(c.reservationMs)} (${c.reservationsPerCall.toFixed(1)} UpdateItem) / ${ms(c.transactionMs)} |`,
    `| its transaction alone, raw (${c.shape}) | ${c.raw.calls} | ${c.raw.opsPerSecond.toFixed(0)} | ${ms(c.raw.p50)} | ${ms(c.raw.p99)} | – / – |`,
    '',
    `ratio ${(c.op.opsPerSecond / c.raw.opsPerSecond).toFixed(2)} (ops/s), ${(c.raw.p50 / c.op.p50).toFixed(2)} at p50.`,
  ].join('\n');
}

async function main() {
  const began = Date.now();
  const loadBefore = loadavg()[0]!;
  const local = await startDynamoDbLocal();
  try {
    const rows: ConflictRow[] = [];
    for (const size of SIZES) {
      for (const spread of [false, true]) {
        const row = await measureConflicts(local, size, spread);
        console.error(`${row.scenario}, ${size} units: ${row.cancelled} cancelled for ${row.commits} commits`);
        rows.push(row);
      }
    }
    const cost = await measureCost(local);
    console.error(`add-unit ${cost.op.opsPerSecond.toFixed(0)} ops/s, its transaction raw ${cost.raw.opsPerSecond.toFixed(0)}`);
    const body = [
      runLine(began, loadBefore, 'DynamoDB Local in memory'),
      '',
      '### Cancelled transactions of 8 concurrent add-units',
      '',
      conflictTable(rows),
      '',
      `Before the counters (each transaction asserted the machine and unit sequences' values): ${BEFORE}, at every model size.`,
      '',
      '### What the counter costs one add-unit',
      '',
      costTable(cost),
      '',
      '### Method',
      '',
      [
        `- Conflicts: ${CALLERS} callers, each its own store (client and snapshot cache), one untimed round, then ${ROUNDS} rounds of ${CALLERS} add-units sent at once; ` +
          'the next round starts when the whole round has committed. Each add-unit makes one unit on a new machine. ' +
          'Middleware on each caller counts its TransactWriteItems, those cancelled (TransactionCanceledException, by reason) and its UpdateItems (reservations). ' +
          '"units in model": units of another application deployed beforehand.',
        '- DynamoDB Local runs one transaction at a time, so a cancellation there is a condition that no longer held (ConditionalCheckFailed). ' +
          'On DynamoDB two transactions on one item at the same moment can also cancel each other (TransactionConflict): add-units of one application ' +
          "still both update the application's unit count and check the model, but only for the transaction's own few milliseconds, " +
          'where a value asserted from a read also failed for the whole read–plan–commit time of every other add-unit.',
        `- Cost: one store, ${WARMUP} warm-up calls, then ${CALLS} add-units interleaved call by call with a raw replay of the add-unit's own TransactWriteItems on fresh keys ` +
          '(bench/support/raw-writes.ts): the raw side leaves out the reads (none, with a warm cache), the planning and the reservations. ' +
          'The two reservations (the unit number and the machine id) go out at once, so they cost one round trip.',
      ].join('\n'),
    ].join('\n');
    await publishSection(HEADING, body);
  } finally {
    await local.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
