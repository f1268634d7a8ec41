import { beforeEach, describe, expect, it } from 'vitest';
import { parseConstraints } from '#shared/domain/constraints.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel, setModelConstraints } from '#shared/state/operations/model.js';
import { getApplication, getMachine, getRelation, getUnit } from '#shared/state/engine/reads.js';
import { setApplicationConstraints } from '#shared/state/operations/application-constraints.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

describe('deploy', () => {
  it('creates an Alive application with its units, each on a new machine', async () => {
    const result = await deploy(store, { charm: charms.mysql, numUnits: 2 });
    expect(result.units).toEqual(['mysql/0', 'mysql/1']);
    expect(result.machines).toEqual(['0', '1']);
    const app = await getApplication(store, 'mysql');
    expect(app).toMatchObject({ life: 'alive', series: 'jammy', unitCount: 2 });
    expect(await getUnit(store, 'mysql/1')).toMatchObject({ machine: '1', life: 'alive', agentStatus: { current: 'allocating' } });
    expect(await getMachine(store, '1')).toMatchObject({ principals: ['mysql/1'], series: 'jammy', life: 'alive' });
  });

  it('refuses a duplicate name: "Services with duplicate names are not allowed"', async () => {
    await deploy(store, { charm: charms.mysql });
    await expect(deploy(store, { charm: charms.mysql })).rejects.toThrow('cannot add application "mysql": application already exists');
    expect((await getApplication(store, 'mysql'))?.unitCount).toBe(1);
  });

  it('refuses an invalid name and changes nothing', async () => {
    await expect(deploy(store, { charm: charms.mysql, name: 'haha/borken' })).rejects.toThrow(
      'cannot add application "haha/borken": invalid name',
    );
    expect(await getApplication(store, 'haha/borken')).toBeUndefined();
  });

  it('creates peer relations at deploy', async () => {
    await deploy(store, { charm: charms.riak, numUnits: 0 });
    expect(await getRelation(store, 'riak:ring')).toMatchObject({ life: 'alive', id: 0, unitCount: 0 });
    expect((await getApplication(store, 'riak'))?.relations).toEqual(['riak:ring']);
  });

  it('gives a subordinate no units', async () => {
    const result = await deploy(store, { charm: charms.logging });
    expect(result.units).toEqual([]);
    expect((await getApplication(store, 'logging'))?.unitCount).toBe(0);
    await expect(deploy(store, { charm: charms.logging, name: 'logging2', numUnits: 1 })).rejects.toThrow(
      'subordinate application must be deployed without units',
    );
  });

  it('"Subordinate units cannot have constraints"', async () => {
    await expect(deploy(store, { charm: charms.logging, constraints: parseConstraints('mem=2G') })).rejects.toThrow(
      'constraints do not apply to subordinate applications',
    );
    expect(await getApplication(store, 'logging')).toBeUndefined();
  });

  it('takes config defaults and validates config values', async () => {
    await deploy(store, { charm: charms.wordpress, numUnits: 0, config: { 'blog-title': 'Hello' } });
    expect((await getApplication(store, 'wordpress'))?.config).toEqual({ 'blog-title': 'Hello' });
    await expect(deploy(store, { charm: charms.wordpress, name: 'wp2', numUnits: 0, config: { nope: 'x' } })).rejects.toThrow(/nope/);
    expect(await getApplication(store, 'wp2')).toBeUndefined();
  });

  it('deploys -n beyond one transaction in bounded chunks', async () => {
    const result = await deploy(store, { charm: charms.mysql, numUnits: 20 });
    expect(result.units).toHaveLength(20);
    expect(new Set(result.machines).size).toBe(20);
    expect((await getApplication(store, 'mysql'))?.unitCount).toBe(20);
  });
});

describe('series', () => {
  it('"Units take their series from their service, and can only be assigned to machines with matching series"', async () => {
    const [focal] = await addMachines(store, { series: 'focal' });
    await deploy(store, { charm: charms.mysql, numUnits: 0 });
    await expect(addUnits(store, 'mysql', { to: [focal!] })).rejects.toThrow(
      'cannot assign unit "mysql/0" to machine 0: series does not match',
    );
    expect((await getApplication(store, 'mysql'))?.unitCount).toBe(0);
    const placed = await deploy(store, { charm: charms.mysql, name: 'db-focal', series: 'focal', to: [focal!] });
    expect(placed.machines).toEqual([]);
    expect(await getUnit(store, 'db-focal/0')).toMatchObject({ series: 'focal', machine: focal });
  });

  it('refuses a series the charm does not support', async () => {
    await expect(deploy(store, { charm: charms.mysql, series: 'quantal' })).rejects.toThrow(
      'base "ubuntu@12.10" not supported by charm, the charm supported bases are: ubuntu@22.04, ubuntu@20.04',
    );
  });
});

describe('constraints', () => {
  it('seed example: deploy mem=2G, set-constraints mem=3G, add-unit -n 2 → one machine with 2G, two with 3G', async () => {
    const first = await deploy(store, { charm: charms.wordpress, constraints: parseConstraints('mem=2G') });
    await setApplicationConstraints(store, 'wordpress', parseConstraints('mem=3G'));
    const more = await addUnits(store, 'wordpress', { count: 2 });
    const mem = async (id: string) => (await getMachine(store, id))?.constraints.mem;
    expect(await Promise.all(first.machines.map(mem))).toEqual([2048]);
    expect(await Promise.all(more.machines.map(mem))).toEqual([3072, 3072]);
  });

  it('"every constraint not set on the service is taken from the environment"', async () => {
    await setModelConstraints(store, parseConstraints('cores=4 mem=8G'));
    const { units } = await deploy(store, { charm: charms.mysql, constraints: parseConstraints('mem=2G') });
    expect((await getUnit(store, units[0]!))?.constraints).toMatchObject({ cores: 4, mem: 2048, arch: 'amd64' });
  });

  it('add-machine copies the model constraints', async () => {
    await setModelConstraints(store, parseConstraints('cores=2'));
    const [id] = await addMachines(store);
    expect((await getMachine(store, id!))?.constraints).toEqual({ cores: 2 });
  });

  it('a unit number is never reused, not even after redeploying under the same name', async () => {
    // Sequences outlive the application (Juju's
    // https://github.com/juju/juju/blob/2.9/state/application_test.go
    // TestSequenceUnitIdsAfterDestroy).
    const a = await deploy(store, { charm: charms.mysql, numUnits: 2 });
    expect(a.units).toEqual(['mysql/0', 'mysql/1']);
    const b = await addUnits(store, 'mysql');
    expect(b.units).toEqual(['mysql/2']);
  });
});
