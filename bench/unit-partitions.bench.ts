// `npm run bench:partitions`: the writes each partition takes during a bulk add-unit, for an
// application laid out as before sharding (its units in one index partition), for one laid out
// while the layout was fixed (UNIT_SHARDS index partitions from the start), and for one deployed
// now (one partition, grown to UNIT_SHARDS once it passes SHARDS_GROW_ABOVE units,
// shared/domain/shards.ts), side by side in one run. DynamoDB serves each partition, of the table
// or of an index, up to 1,000 write units a second: the hottest partition is what bounds how fast
// one application can grow. The add is made in two halves, and the second half's hottest index
// partition is shown apart: what a large application's growth goes on at.
//
// Middleware on the store's client reads every TransactWriteItems the operations send and counts
// the items each partition takes: the table's (pk) and the byCollection index's (gsi1pk of each
// item created). The legacy and fixed applications are made exactly as the integration test does
// (test/integration/shard-layout.test.ts): deployed, then their layout marker removed (set to the
// full count) before they have units.
//
// BENCH_UNITS: units added to each application (default 400, so the growing one passes the
// threshold within the first half; keep it small, this is DynamoDB Local).
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refs } from '#shared/domain/plan.js';
import { SHARDS_GROW_ABOVE, UNIT_SHARDS } from '#shared/domain/shards.js';
import { ATTR, keyOf } from '#shared/state/engine/keys.js';
import { getItem } from '#shared/state/engine/reads.js';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ensureTable } from '#shared/state/engine/table.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { startDynamoDbLocal } from '../embedded/dynamodb-local.js';
import { benchCharms } from './support/charms.js';
import { writeSection } from './support/results-file.js';

const UNITS = Number(process.env.BENCH_UNITS ?? 400);
const HEADING = '## Unit index partitions during a bulk add-unit (npm run bench:partitions)';

type Attribute = { S?: string } | string | undefined;
const text = (a: Attribute) => (typeof a === 'string' ? a : a?.S);

/** Items written per partition (table and index), from the transactions the client sends. */
class PartitionCounter {
  readonly table = new Map<string, number>();
  readonly index = new Map<string, number>();

  constructor(store: Store) {
    store.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand') this.count(args.input as { TransactItems?: Record<string, unknown>[] });
        return next(args);
      },
      { step: 'initialize', name: 'partitionCounter' },
    );
  }

  private count(input: { TransactItems?: Record<string, unknown>[] }) {
    for (const action of input.TransactItems ?? []) {
      const put = action.Put as { Item?: Record<string, Attribute> } | undefined;
      const written = (put?.Item ?? (action.Update as { Key?: Record<string, Attribute> } | undefined)?.Key) as
        Record<string, Attribute> | undefined;
      const pk = text(written?.[ATTR.pk]);
      if (pk) add(this.table, pk);
      const collection = text(put?.Item?.[ATTR.collectionPk]);
      if (collection) add(this.index, collection);
    }
  }

  reset() {
    this.table.clear();
    this.index.clear();
  }
}

const add = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
const hottest = (counts: Map<string, number>, prefix: string) =>
  [...counts].filter(([k]) => k.includes(prefix)).sort((a, b) => b[1] - a[1]);

interface Row {
  layout: string;
  seconds: number;
  unitPartitions: number;
  hottestIndex: number;
  /** The hottest unit index partition over the second half of the add. */
  hottestIndexLater: number;
  hottestTable: [string, number];
}

async function bulkAdd(store: Store, counter: PartitionCounter, application: string, layout: string): Promise<Row> {
  counter.reset();
  const started = performance.now();
  const first = Math.floor(UNITS / 2);
  await addUnits(store, application, { count: first });
  const firstHalf = new Map(counter.index);
  await addUnits(store, application, { count: UNITS - first });
  const seconds = (performance.now() - started) / 1000;
  const unitIndex = hottest(counter.index, `#APP#${application}#UNITS`);
  const later = new Map([...counter.index].map(([k, n]) => [k, n - (firstHalf.get(k) ?? 0)]));
  const table = [...counter.table].sort((a, b) => b[1] - a[1]);
  return {
    layout,
    seconds,
    unitPartitions: unitIndex.length,
    hottestIndex: unitIndex[0]?.[1] ?? 0,
    hottestIndexLater: hottest(later, `#APP#${application}#UNITS`)[0]?.[1] ?? 0,
    hottestTable: [(table[0]?.[0] ?? '').replace(`${store.model}#`, ''), table[0]?.[1] ?? 0],
  };
}

/** Sets (or, undefined, removes) a just-deployed application's layout marker, as the integration test does, and has the cache learn it. */
async function setLayout(store: Store, application: string, shards: number | undefined): Promise<void> {
  await store.doc.send(
    new UpdateCommand({
      TableName: store.table,
      Key: keyOf(store.model, refs.application(application)),
      ...(shards === undefined
        ? { UpdateExpression: 'REMOVE unitShards' }
        : { UpdateExpression: 'SET unitShards = :shards', ExpressionAttributeValues: { ':shards': shards } }),
    }),
  );
  await getItem(store, refs.application(application), { fresh: true });
}

async function main() {
  const local = await startDynamoDbLocal();
  const store = createStore({ table: `bench-partitions-${randomUUID().slice(0, 8)}`, endpoint: local.endpoint, region: 'local' });
  try {
    await ensureTable(store.client, store.table);
    await ensureModel(store);
    const counter = new PartitionCounter(store);
    const { web } = benchCharms;
    await deploy(store, { charm: web, name: 'before', numUnits: 0 });
    await deploy(store, { charm: web, name: 'fixed', numUnits: 0 });
    await deploy(store, { charm: web, name: 'after', numUnits: 0 });
    // As before sharding: no layout marker, so its units go to the one legacy partition.
    await setLayout(store, 'before', undefined);
    // As while the layout was fixed: the full count from the start.
    await setLayout(store, 'fixed', UNIT_SHARDS);

    const rows = [
      await bulkAdd(store, counter, 'before', 'one partition (before sharding)'),
      await bulkAdd(store, counter, 'fixed', `${UNIT_SHARDS} shards from the start (fixed layout)`),
      await bulkAdd(store, counter, 'after', `1 shard, ${UNIT_SHARDS} past ${SHARDS_GROW_ABOVE} units (growing layout)`),
    ];
    const [before, fixed, after] = rows as [Row, Row, Row];
    const perSecond = (n: number, r: Row) => (n / r.seconds).toFixed(0);
    const body = [
      `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? 'unknown CPU'} (${availableParallelism()} cores), load ${loadavg()[0]!.toFixed(1)}; DynamoDB Local in memory.`,
      '',
      `add-unit -n ${UNITS} on each of three applications of one model, through the state operations (8 units and their machines a transaction). Items written per partition, counted from the transactions sent; per second at DynamoDB Local's pace.`,
      '',
      "| units' layout | s | index partitions of its units | hottest unit index partition: items (per s) | the same over the second half of the add: items | hottest table partition: items (per s) |",
      '|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.layout} | ${r.seconds.toFixed(1)} | ${r.unitPartitions} | ${r.hottestIndex} (${perSecond(r.hottestIndex, r)}) | ${r.hottestIndexLater} | \`${r.hottestTable[0]}\` ${r.hottestTable[1]} (${perSecond(r.hottestTable[1], r)}) |`,
      ),
      '',
      `Over the whole add, the hottest unit index partition takes ${(before.hottestIndex / Math.max(1, fixed.hottestIndex)).toFixed(1)}× fewer writes than the one partition with a fixed layout, ${(before.hottestIndex / Math.max(1, after.hottestIndex)).toFixed(1)}× fewer with the growing one, whose first partition keeps the ${SHARDS_GROW_ABOVE} units added before it grew; over the second half, once grown, ${after.hottestIndexLater} items against the fixed layout's ${fixed.hottestIndexLater} and one partition's ${before.hottestIndexLater}. The application item (its unit count, one write a transaction) is the hottest partition of the table whatever the layout; the unit and machine numbers are reserved by counters outside the transactions (one UpdateItem each a transaction, not counted here).`,
    ].join('\n');
    console.log(body);
    await writeSection(join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md'), HEADING, body);
  } finally {
    await store.client.send(new DeleteTableCommand({ TableName: store.table })).catch(() => undefined);
    await local.stop();
  }
}

await main();
