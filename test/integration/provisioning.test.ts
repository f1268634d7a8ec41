import { beforeEach, describe, expect, it } from 'vitest';
import { parseConstraints } from '#shared/domain/constraints.js';
import { addMachines } from '#shared/state/operations/add-machine.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { markInstanceMissing } from '#shared/state/operations/machine-status.js';
import { recordInstance, recordProvisioningError, retryProvisioning } from '#shared/state/operations/provisioning.js';
import { getMachine } from '#shared/state/engine/reads.js';
import { readStatusLog } from '#shared/state/queries/status-log.js';
import { readStatus } from '#shared/state/queries/status.js';
import type { Store } from '#shared/state/engine/store.js';
import { freshStore } from '../support/table.js';

let store: Store;
let machine: string;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  [machine] = (await addMachines(store)) as [string];
});

describe('provisioning records', () => {
  it('records the instance started for the current attempt', async () => {
    expect(await recordInstance(store, machine, { instanceId: 'i-1', attempt: 0, addresses: ['10.0.0.1'] })).toBe('recorded');
    expect(await getMachine(store, machine)).toMatchObject({
      instanceId: 'i-1',
      instanceStatus: { current: 'running' },
      addresses: ['10.0.0.1'],
    });
  });

  it('recording the same instance twice is already done', async () => {
    await recordInstance(store, machine, { instanceId: 'i-1', attempt: 0 });
    expect(await recordInstance(store, machine, { instanceId: 'i-1', attempt: 0 })).toBe('already-recorded');
  });

  it('never attaches a second instance to a machine', async () => {
    const [a, b] = await Promise.all([
      recordInstance(store, machine, { instanceId: 'i-1', attempt: 0 }),
      recordInstance(store, machine, { instanceId: 'i-2', attempt: 0 }),
    ]);
    expect([a, b].filter((r) => r === 'recorded')).toHaveLength(1);
    expect([a, b].filter((r) => typeof r === 'object')).toHaveLength(1);
  });

  it('"the machine has no instance id set and ... an error status set that communicates the nature of the problem", visible in status', async () => {
    await recordProvisioningError(store, machine, {
      message: 'no instance types in us-east-1 matching constraints "cores=1000"',
      transient: false,
      attempt: 0,
    });
    const m = await getMachine(store, machine);
    expect(m?.instanceId).toBeUndefined();
    const status = await readStatus(store);
    expect(status.machines[machine]).toMatchObject({
      'instance-id': 'pending',
      'machine-status': { current: 'provisioning error', message: 'no instance types in us-east-1 matching constraints "cores=1000"' },
    });
  });

  it('retry-provisioning marks a machine in error for another attempt', async () => {
    await recordProvisioningError(store, machine, { message: 'capacity', transient: true, attempt: 0 });
    await retryProvisioning(store, machine);
    expect(await getMachine(store, machine)).toMatchObject({ provisioningAttempt: 1, instanceStatus: { current: 'pending' } });
  });

  it('"juju resolved 14 --constraints" replaces the machine\'s constraints and marks it for reprovisioning', async () => {
    await recordProvisioningError(store, machine, { message: 'no instance types', transient: false, attempt: 0 });
    await retryProvisioning(store, machine, parseConstraints('mem=2G cpu-power=400'));
    expect(await getMachine(store, machine)).toMatchObject({ provisioningAttempt: 1, constraints: { mem: 2048, 'cpu-power': 400 } });
  });

  it('retry-provisioning accepts a machine whose instance is in error (missing), whatever the message, and drops that instance', async () => {
    await recordInstance(store, machine, { instanceId: 'i-1', attempt: 0 });
    expect(await markInstanceMissing(store, machine, 'i-1')).toBe('marked');
    expect((await getMachine(store, machine))?.instanceStatus.current).toBe('error');
    await retryProvisioning(store, machine);
    const m = await getMachine(store, machine);
    expect(m).toMatchObject({ provisioningAttempt: 1, instanceStatus: { current: 'pending' } });
    expect(m?.instanceId).toBeUndefined();
    // Done once: the machine is pending now, not in error.
    await expect(retryProvisioning(store, machine)).rejects.toThrow(`machine ${machine} is not in an error state (pending)`);
  });

  it("retry-provisioning on a healthy machine is refused with Juju's message", async () => {
    await recordInstance(store, machine, { instanceId: 'i-1', attempt: 0 });
    await expect(retryProvisioning(store, machine)).rejects.toThrow(`machine ${machine} is not in an error state (running)`);
    await expect(retryProvisioning(store, machine, parseConstraints('mem=2G'))).rejects.toThrow(
      `updating machine "${machine}": cannot set constraints: machine is already provisioned`,
    );
    expect((await getMachine(store, machine))?.provisioningAttempt).toBe(0);
  });

  it('keeps the instance status history for show-status-log', async () => {
    await recordProvisioningError(store, machine, { message: 'capacity', transient: true, attempt: 0 });
    await retryProvisioning(store, machine);
    await recordInstance(store, machine, { instanceId: 'i-1', attempt: 1 });
    const history = await readStatusLog(store, machine, { type: 'machine' });
    expect(history.map((e) => [e.status, e.message])).toEqual([
      ['provisioning error', 'capacity'],
      ['pending', undefined],
      ['running', 'running'],
    ]);
  });

  it('an error from a stale attempt is ignored', async () => {
    await recordProvisioningError(store, machine, { message: 'x', transient: true, attempt: 0 });
    await retryProvisioning(store, machine);
    await recordProvisioningError(store, machine, { message: 'late', transient: true, attempt: 0 });
    expect((await getMachine(store, machine))?.instanceStatus.current).toBe('pending');
  });
});
