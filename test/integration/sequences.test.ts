// Sequence numbers are reserved by an atomic counter before the transaction that uses them
// (shared/state/engine/number-reservations.ts): never one number twice, whoever asks at once, and
// a failure between reserving and committing leaves a gap, never a reuse.
import { beforeEach, describe, expect, it } from 'vitest';
import { createStore, type Store } from '#shared/state/engine/store.js';
import { ATTR } from '#shared/state/engine/keys.js';
import { getSequence } from '#shared/state/engine/reads.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { charms } from '../support/charms.js';
import { injectTransactionConflicts } from '../support/faults.js';
import { freshStore } from '../support/table.js';
import { dumpTable } from '../support/table-dump.js';
import { dynamoEndpoint } from '../support/dynamodb.js';

let store: Store;
let endpoint: string;
beforeEach(async () => {
  store = await freshStore();
  endpoint = await dynamoEndpoint();
  await ensureModel(store);
});

/** Another process on the same table: its own client and its own snapshot cache. */
const otherProcess = () => createStore({ table: store.table, endpoint, region: 'local' });

/** What the table holds: every unit's name, machine's id and relation's id, and each counter. */
async function numbersInTable() {
  const items = await dumpTable(store);
  const of = (kind: string) => items.filter((i) => i[ATTR.kind] === kind);
  return {
    units: of('unit').map((u) => String(u.name)),
    machines: of('machine').map((m) => Number(m.id)),
    relations: of('relation').map((r) => Number(r.id)),
    counters: new Map(of('sequence').map((s) => [String(s.pk).split('#SEQ#')[1]!, Number(s.value)])),
  };
}

/** Fails the next transaction of `store` with an error that is no cancellation: the process dies before committing. */
function dieBeforeNextTransaction(target: Store) {
  let armed = true;
  target.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (armed && context.commandName === 'TransactWriteItemsCommand') {
        armed = false;
        throw new Error('process killed before its transaction');
      }
      return next(args);
    },
    { step: 'initialize', name: 'dieBeforeNextTransaction' },
  );
}

describe('sequences', () => {
  it('never give one number twice to 8 processes adding units, machines and applications at once', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const callers = Array.from({ length: 8 }, otherProcess);
    // Two rounds each, so callers also meet numbers their own cache has not seen taken.
    const results = await Promise.all(
      callers.map(async (caller, i) => {
        const units: string[] = [];
        const machines: string[] = [];
        for (let round = 0; round < 2; round++) {
          if (i % 3 === 0) {
            const added = await addUnits(caller, 'mysql', { count: 2 });
            units.push(...added.units);
            machines.push(...added.machines);
          } else if (i % 3 === 1) {
            machines.push(...(await addMachines(caller)));
          } else {
            // riak has a peer relation: its id comes from the relation sequence.
            const deployed = await deploy(caller, { charm: charms.riak, name: `riak-${'abcdefgh'[i]}${'xy'[round]}` });
            units.push(...deployed.units);
            machines.push(...deployed.machines);
          }
        }
        return { units, machines };
      }),
    );
    const units = results.flatMap((r) => r.units);
    const machines = results.flatMap((r) => r.machines);
    expect(new Set(units).size).toBe(units.length);
    expect(new Set(machines).size).toBe(machines.length);
    // 3 callers × 2 rounds × 2 units, 3 × 2 single machines, 2 × 2 riak units with a machine each.
    expect(units).toHaveLength(16);
    expect(machines).toHaveLength(6 + 12 + 4);

    const table = await numbersInTable();
    expect(table.units.sort()).toEqual([...units].sort());
    expect(table.machines.sort((a, b) => a - b)).toEqual(machines.map(Number).sort((a, b) => a - b));
    expect(new Set(table.relations).size).toBe(table.relations.length);
    expect(table.relations).toHaveLength(4);
    // Every counter is past every number taken from it: nothing it will hand out was used.
    const mysqlNumbers = units.filter((u) => u.startsWith('mysql/')).map((u) => Number(u.split('/')[1]));
    expect(table.counters.get('unit#mysql')).toBeGreaterThan(Math.max(...mysqlNumbers));
    expect(table.counters.get('machine')).toBeGreaterThan(Math.max(...table.machines));
    expect(table.counters.get('relation')).toBeGreaterThan(Math.max(...table.relations));
  });

  it('keep the numbers an operation reserved across its retries: conflicts cost no number', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const faults = injectTransactionConflicts(store, 3);
    const added = await addUnits(store, 'mysql');
    expect(faults.cancelled).toBe(3);
    // Juju's numbering, as if nothing had failed.
    expect(added).toEqual({ units: ['mysql/0'], machines: ['0'], remainingUnits: 0 });
    expect(await getSequence(store, 'unit#mysql')).toBe(1);
    expect(await getSequence(store, 'machine')).toBe(1);
  });

  it('leave a gap, never a reuse, when a process dies between reserving and committing', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const dying = otherProcess();
    dieBeforeNextTransaction(dying);
    await expect(addUnits(dying, 'mysql')).rejects.toThrow('process killed before its transaction');
    // The numbers were reserved, and nothing uses them.
    expect(await getSequence(store, 'unit#mysql')).toBe(1);
    expect(await getSequence(store, 'machine')).toBe(1);
    expect((await numbersInTable()).units).toEqual([]);

    // The next add-unit (the user retrying, from a process that never saw the first) goes on past the gap.
    const again = await addUnits(otherProcess(), 'mysql');
    expect(again).toEqual({ units: ['mysql/1'], machines: ['1'], remainingUnits: 0 });
    const table = await numbersInTable();
    expect(table.units).toEqual(['mysql/1']);
    expect(table.machines).toEqual([1]);
    expect(table.counters.get('unit#mysql')).toBe(2);
  });

  it('take no number for a refused request', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    const [focal] = (await addMachines(store, { series: 'focal' }))!;
    // The message names the unit as it would have been numbered, and the counter stays.
    await expect(addUnits(otherProcess(), 'mysql', { to: [focal!] })).rejects.toThrow(
      'cannot assign unit "mysql/0" to machine 0: series does not match',
    );
    expect(await getSequence(store, 'unit#mysql')).toBe(0);
    expect((await addUnits(store, 'mysql')).units).toEqual(['mysql/0']);
  });
});
