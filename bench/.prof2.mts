import { performance } from 'node:perf_hooks';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal } from '../shared/state/dynamodb-local.js';
import { createStore } from '../shared/state/store.js';
import { ensureTable } from '../shared/state/table.js';
import { ensureModel } from '../shared/state/model.js';
import { deploy } from '../shared/state/deploy.js';
import { setUnitStatus } from '../shared/state/agent-status.js';
import { destroyUnit } from '../shared/state/destroy-unit.js';
import { benchCharms } from './support/charms.js';

const local = await startDynamoDbLocal();
const store = createStore({ table: 'prof-table', endpoint: local.endpoint, region: 'local' });
await ensureTable(store.client, store.table);
await ensureModel(store);
const { units } = await deploy(store, { charm: benchCharms.web, numUnits: 400 });
for (const u of units) await setUnitStatus(store, u, { agent: { current: 'idle', message: '' } });
const T = store.table;
const get = (u: string) =>
  store.doc.send(new GetCommand({ TableName: T, Key: { pk: `default#UNIT#${u}`, sk: 'ITEM' }, ConsistentRead: true }));
let n = 0;
const tx1 = () =>
  store.doc.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: T, Item: { pk: `x${n++}`, sk: 'ITEM', a: 1 } } }] }));
const t = async (f: () => Promise<unknown>) => {
  const s = performance.now();
  await f();
  return performance.now() - s;
};
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(2);
for (let round = 0; round < 3; round++) {
  const g: number[] = [],
    g2: number[] = [],
    x: number[] = [],
    d: number[] = [],
    gg: number[] = [];
  for (let i = 0; i < 100; i++) {
    g.push(await t(() => get(units[i]!)));
    gg.push(await t(() => get(units[i]!)));
  }
  for (let i = 0; i < 100; i++) {
    x.push(await t(tx1));
    g2.push(await t(() => get(units[i]!)));
  }
  for (let i = 0; i < 100; i++) {
    d.push(await t(() => destroyUnit(store, units[round * 100 + i]!)));
  }
  console.log('round', round, 'get', med(g), 'get again', med(gg), 'tx1', med(x), 'get after tx', med(g2), 'destroyUnit', med(d));
}
await local.stop();
