// `npm run bench:partitions`: the writes each partition takes during a bulk add-unit, for an
// application laid out as before sharding (its units in one index partition) and for one deployed
// now (its units over UNIT_SHARDS index partitions, shared/domain/shards.ts), side by side in one
// run. DynamoDB serves each partition, of the table or of an index, up to 1,000 write units a
// second: the hottest partition is what bounds how fast one application can grow.
//
// Middleware on the store's client reads every TransactWriteItems the operations send and counts
// the items each partition takes: the table's (pk) and the byCollection index's (gsi1pk of each
// item created). The legacy application is made exactly as the integration test does
// (test/integration/shard-layout.test.ts): deployed, then its layout marker removed before it
// has units.
//
// BENCH_UNITS: units added to each application (default 200; keep it small, this is DynamoDB Local).
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refs } from '#shared/domain/plan.js';
import { UNIT_SHARDS } from '#shared/domain/shards.js';
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

const UNITS = Number(process.env.BENCH_UNITS ?? 200);
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
  hottestTable: [string, number];
}

async function bulkAdd(store: Store, counter: PartitionCounter, application: string, layout: string): Promise<Row> {
  counter.reset();
  const started = performance.now();
  await addUnits(store, application, { count: UNITS });
  const seconds = (performance.now() - started) / 1000;
  const unitIndex = hottest(counter.index, `#APP#${application}#UNITS`);
  const table = [...counter.table].sort((a, b) => b[1] - a[1]);
  return {
    layout,
    seconds,
    unitPartitions: unitIndex.length,
    hottestIndex: unitIndex[0]?.[1] ?? 0,
    hottestTable: [(table[0]?.[0] ?? '').replace(`${store.model}#`, ''), table[0]?.[1] ?? 0],
  };
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
    await deploy(store, { charm: web, name: 'after', numUnits: 0 });
    // As before sharding: no layout marker, so its units go to the one legacy partition.
    await store.doc.send(
      new UpdateCommand({
        TableName: store.table,
        Key: keyOf(store.model, refs.application('before')),
        UpdateExpression: 'REMOVE unitShards',
      }),
    );
    await getItem(store, refs.application('before'), { fresh: true });

    const rows = [
      await bulkAdd(store, counter, 'before', 'one partition (before sharding)'),
      await bulkAdd(store, counter, 'after', `${UNIT_SHARDS} shards`),
    ];
    const [before, after] = rows as [Row, Row];
    const perSecond = (n: number, r: Row) => (n / r.seconds).toFixed(0);
    const body = [
      `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? 'unknown CPU'} (${availableParallelism()} cores), load ${loadavg()[0]!.toFixed(1)}; DynamoDB Local in memory.`,
      '',
      `add-unit -n ${UNITS} on each of two applications of one model, through the state operations (8 units and their machines a transaction). Items written per partition, counted from the transactions sent; per second at DynamoDB Local's pace.`,
      '',
      "| units' layout | s | index partitions of its units | hottest unit index partition: items (per s) | hottest table partition: items (per s) |",
      '|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.layout} | ${r.seconds.toFixed(1)} | ${r.unitPartitions} | ${r.hottestIndex} (${perSecond(r.hottestIndex, r)}) | \`${r.hottestTable[0]}\` ${r.hottestTable[1]} (${perSecond(r.hottestTable[1], r)}) |`,
      ),
      '',
      `The hottest unit index partition takes ${(before.hottestIndex / Math.max(1, after.hottestIndex)).toFixed(1)}× fewer writes with shards, and is no longer the hottest: that is the application item (its unit count, one write a transaction), which no sharding of the listing lifts; the unit and machine numbers are reserved by counters outside the transactions (one UpdateItem each a transaction, not counted here).`,
    ].join('\n');
    console.log(body);
    await writeSection(join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md'), HEADING, body);
  } finally {
    await store.client.send(new DeleteTableCommand({ TableName: store.table })).catch(() => undefined);
    await local.stop();
  }
}

await main();
