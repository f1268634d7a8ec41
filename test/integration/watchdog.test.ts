import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createWatchdogHandler } from '../../functions/watchdog/handler.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { addModel, ensureModel } from '#shared/state/operations/model.js';
import { recordProvisioningError, retryProvisioning } from '#shared/state/operations/provisioning.js';
import { listStuck } from '#shared/state/queries/stuck.js';
import { storeForModel, type Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { silentLogger } from '../support/silent-logger.js';

let store: Store;
let clock: Date;
beforeEach(async () => {
  clock = new Date('2026-11-21T10:00:00Z');
  store = await freshStore({ now: () => clock });
  await ensureModel(store);
});

describe('stuck entities', () => {
  it('lists an entity Dying longer than the threshold, with what blocks it', async () => {
    await deploy(store, { charm: charms.mysql });
    await setUnitStatus(store, 'mysql/0', { agent: { current: 'idle' } });
    await destroyUnit(store, 'mysql/0');
    expect(await listStuck(store, 600)).toEqual([]);
    clock = new Date('2026-11-21T10:20:00Z');
    const stuck = await listStuck(store, 600);
    expect(stuck).toEqual([
      expect.objectContaining({
        entity: 'unit mysql/0',
        life: 'dying',
        ageSeconds: 1200,
        reasons: ['its agent, to run the stop hook and set it Dead'],
      }),
    ]);
  });

  it('lists machines in provisioning error until they are retried', async () => {
    const [id] = (await addMachines(store)) as [string];
    await recordProvisioningError(store, id, { message: 'no instance types', transient: false, attempt: 0 });
    expect((await listStuck(store))[0]).toMatchObject({ entity: `machine ${id}`, life: 'alive' });
    await retryProvisioning(store, id);
    expect(await listStuck(store)).toEqual([]);
  });

  it('the watchdog emits the counts as CloudWatch metrics (EMF)', async () => {
    await deploy(store, { charm: charms.mysql });
    await setUnitStatus(store, 'mysql/0', { agent: { current: 'idle' } });
    await destroyUnit(store, 'mysql/0');
    const [id] = (await addMachines(store)) as [string];
    await recordProvisioningError(store, id, { message: 'boom', transient: false, attempt: 0 });
    clock = new Date('2026-11-21T11:00:00Z');
    // Powertools writes EMF to stdout, where the Lambda runtime hands it to CloudWatch.
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    const metrics = new Metrics({ namespace: 'drover', serviceName: 'watchdog' });
    const report = await createWatchdogHandler({ store, thresholdSeconds: 600, metrics, logger: silentLogger })().finally(() =>
      write.mockRestore(),
    );
    expect(report).toMatchObject({ dyingTooLong: 1, provisioningErrors: 1 });
    const emf = lines
      .flatMap((l) => l.split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l._aws);
    expect(emf).toMatchObject({ DyingTooLong: 1, ProvisioningErrors: 1 });
  });

  it("names its controller in every metric's dimensions: two controllers in one account never set off each other's alarms", async () => {
    const [id] = (await addMachines(store)) as [string];
    await recordProvisioningError(store, id, { message: 'boom', transient: false, attempt: 0 });
    clock = new Date('2026-11-21T11:00:00Z');
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    await createWatchdogHandler({ store, thresholdSeconds: 600, controllerId: 'prod', logger: silentLogger })().finally(() =>
      write.mockRestore(),
    );
    const emf = lines
      .flatMap((l) => l.split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l._aws);
    expect(emf).toMatchObject({ controller: 'prod', service: 'watchdog', ProvisioningErrors: 1 });
    expect(emf._aws.CloudWatchMetrics[0].Dimensions[0]).toEqual(expect.arrayContaining(['controller', 'service']));
  });
});

describe('the watchdog of a controller of many models', () => {
  it("reports every model's stuck entities, each with its model's key", async () => {
    const other = storeForModel(store, (await addModel(store, { name: 'other' })).uuid!);
    for (const s of [store, other]) {
      const [id] = (await addMachines(s)) as [string];
      await recordProvisioningError(s, id, { message: `boom in ${s.model}`, transient: false, attempt: 0 });
    }
    clock = new Date('2026-11-21T11:00:00Z');
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const report = await createWatchdogHandler({
      store,
      thresholdSeconds: 600,
      metrics: new Metrics({ namespace: 'drover' }),
      logger: silentLogger,
    })().finally(() => out.mockRestore());
    expect(report.provisioningErrors).toBe(2);
    expect(report.stuck.map((s) => `${s.model} ${s.entity}`).sort()).toEqual([`${other.model} machine 0`, 'default machine 0'].sort());
  });
});

describe('the watchdog publishes only what is non-zero', () => {
  /** Runs the watchdog once, returning what it wrote to stdout and stderr (EMF goes to stdout). */
  async function runWatchdog(): Promise<{ report: Awaited<ReturnType<ReturnType<typeof createWatchdogHandler>>>; written: string[] }> {
    const written: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    const metrics = new Metrics({ namespace: 'drover', serviceName: 'watchdog' });
    try {
      const report = await createWatchdogHandler({ store, thresholdSeconds: 600, metrics, logger: silentLogger })();
      return { report, written };
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  }

  it('a quiet run publishes no metric and writes nothing', async () => {
    await deploy(store, { charm: charms.mysql });
    const { report, written } = await runWatchdog();
    expect(report).toMatchObject({ dyingTooLong: 0, provisioningErrors: 0 });
    expect(written).toEqual([]);
  });

  it('a non-zero count is published, and the zero beside it is not', async () => {
    const [id] = (await addMachines(store)) as [string];
    await recordProvisioningError(store, id, { message: 'boom', transient: false, attempt: 0 });
    clock = new Date('2026-11-21T11:00:00Z');
    const { report, written } = await runWatchdog();
    expect(report).toMatchObject({ dyingTooLong: 0, provisioningErrors: 1 });
    const emf = written
      .flatMap((l) => l.split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l._aws);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ ProvisioningErrors: 1 });
    expect(emf[0]).not.toHaveProperty('DyingTooLong');
  });
});
