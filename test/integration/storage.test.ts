// Storage's lifecycle on DynamoDB Local: instances and attachments made with each unit, the
// agent's storage routes, and the rules "a unit is not Dead while attached" and "an instance is
// Dead only when unattached" (docs/lifecycle-rules.md, "Storage: instances, attachments, and what outlives a unit").
import { beforeEach, describe, expect, it } from 'vitest';
import { addUnits } from '#shared/state/operations/add-unit.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { forceRemoveUnit } from '#shared/state/operations/force.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { removeUnit } from '#shared/state/operations/remove-unit.js';
import { ensureUnitDead } from '#shared/state/operations/unit-dead.js';
import { addUnitStorage, storageDetached } from '#shared/state/operations/unit-storage.js';
import { getItem, getModel, getUnit } from '#shared/state/engine/reads.js';
import { destroyModel } from '#shared/state/operations/destroy-model.js';
import { refs } from '#shared/domain/plan.js';
import type { StorageAttachment, StorageInstance } from '#shared/domain/storage.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { testApiHandler } from '../support/api-handler.js';
import { agentEvent } from '../support/agent-events.js';

let store: Store;
let api: Awaited<ReturnType<typeof testApiHandler>>;

beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  api = await testApiHandler(store);
});

const instance = (id: string) => getItem<StorageInstance>(store, refs.storage(id));
const attachment = (id: string, unit: string) => getItem<StorageAttachment>(store, refs.storageAttachment(id, unit));
const agent = (machine: string) => async (op: string, body: unknown) => {
  const res = await api(await agentEvent('POST', `/v1/agent/${op}`, body, { machine }));
  return { status: res.statusCode, body: JSON.parse(String(res.body)) };
};
/** The unit's agent has started: remove-unit sets it Dying instead of removing it at once. */
const started = (unit: string) => setUnitStatus(store, unit, { agent: { current: 'idle' } });

describe('storage made with its unit', () => {
  it('deploy gives each unit its minimum count, numbered from one model-wide sequence, in the same transaction', async () => {
    const result = await deploy(store, { charm: charms.storage, numUnits: 2, storage: { data: { size: 2048, count: 2 } } });
    expect(result.units).toEqual(['storage/0', 'storage/1']);
    expect((await getUnit(store, 'storage/0'))?.storageAttachments).toEqual(['data/0', 'data/1']);
    expect((await getUnit(store, 'storage/1'))?.storageAttachments).toEqual(['data/2', 'data/3']);
    expect(await instance('data/2')).toMatchObject({
      name: 'data',
      kind: 'filesystem',
      pool: 'rootfs',
      size: 2048,
      owner: 'unit-storage-1',
      life: 'alive',
      persistent: false,
      attachments: ['storage/1'],
      location: '/srv/data',
    });
    expect(await attachment('data/2', 'storage/1')).toMatchObject({ life: 'alive', machine: '1' });
  });

  it('add-unit inherits the application directives', async () => {
    await deploy(store, { charm: charms.storage, numUnits: 1, storage: { data: { size: 500, count: 3 } } });
    await addUnits(store, 'storage', { count: 1 });
    expect((await getUnit(store, 'storage/1'))?.storageAttachments).toEqual(['data/3', 'data/4', 'data/5']);
    expect((await instance('data/5'))?.size).toBe(500);
  });

  it('bad directives change nothing', async () => {
    await expect(deploy(store, { charm: charms.storage, numUnits: 1, storage: { data: { count: 4 } } })).rejects.toThrow(
      'charm "storage" store "data": at most 3 instances supported, 4 specified',
    );
    await expect(deploy(store, { charm: charms.storage, numUnits: 1, storage: { disks: { count: 1 } } })).rejects.toThrow(
      'block storage is not supported on the local provider',
    );
    expect(await getUnit(store, 'storage/0')).toBeUndefined();
    expect(await instance('data/0')).toBeUndefined();
  });

  it('many units with many instances each still fit their transactions', async () => {
    await deploy(store, { charm: charms.storage, numUnits: 10, storage: { data: { count: 3 } } });
    expect((await getUnit(store, 'storage/9'))?.storageAttachments).toHaveLength(3);
  });
});

describe('storage lifecycle', () => {
  it('a Dying unit makes its attachments Dying; it is not Dead until the agent detached them; rootfs goes', async () => {
    await deploy(store, { charm: charms.storage, numUnits: 1 });
    await started('storage/0');
    await destroyUnit(store, 'storage/0');
    expect((await attachment('data/0', 'storage/0'))?.life).toBe('dying');
    await expect(ensureUnitDead(store, 'storage/0')).rejects.toThrow('unit "storage/0" still has storage attached: "data/0"');
    expect(await storageDetached(store, 'storage/0', 'data/0')).toEqual({ result: 'detached' });
    expect(await attachment('data/0', 'storage/0')).toBeUndefined();
    expect(await instance('data/0')).toBeUndefined();
    // Sent again (its answer lost), it changes nothing.
    expect(await storageDetached(store, 'storage/0', 'data/0')).toEqual({ result: 'already-detached' });
    expect(await ensureUnitDead(store, 'storage/0')).toBe('dead');
    await removeUnit(store, 'storage/0');
    expect(await getUnit(store, 'storage/0')).toBeUndefined();
  });

  it('the agent detaching twice at once (a retry racing the first): one detaches, the other finds it done', async () => {
    await deploy(store, { charm: charms.storage, numUnits: 1 });
    await started('storage/0');
    await destroyUnit(store, 'storage/0');
    const results = await Promise.all([storageDetached(store, 'storage/0', 'data/0'), storageDetached(store, 'storage/0', 'data/0')]);
    expect(results.map((r) => r.result).sort()).toEqual(['already-detached', 'detached']);
    expect((await getUnit(store, 'storage/0'))?.storageAttachments).toEqual([]);
    expect(await instance('data/0')).toBeUndefined();
  });

  it('an Alive attachment is not detached', async () => {
    await deploy(store, { charm: charms.storage, numUnits: 1 });
    await expect(storageDetached(store, 'storage/0', 'data/0')).rejects.toThrow('must be Dying to be detached');
    expect((await attachment('data/0', 'storage/0'))?.life).toBe('alive');
  });

  it('a unit whose agent never started goes at once, and its storage with it', async () => {
    await deploy(store, { charm: charms.storage, numUnits: 1 });
    expect(await destroyUnit(store, 'storage/0')).toBe('removed');
    expect(await attachment('data/0', 'storage/0')).toBeUndefined();
    expect(await instance('data/0')).toBeUndefined();
  });

  it('remove-unit --force takes its storage along', async () => {
    await deploy(store, { charm: charms.storage, numUnits: 1, storage: { data: { count: 2 } } });
    await started('storage/0');
    await forceRemoveUnit(store, 'storage/0');
    expect(await getUnit(store, 'storage/0')).toBeUndefined();
    expect(await instance('data/0')).toBeUndefined();
    expect(await instance('data/1')).toBeUndefined();
  });

  it('add-storage and remove-unit at once: one of them re-plans, and no attachment is left behind', async () => {
    await deploy(store, { charm: charms.storage, numUnits: 1 });
    await started('storage/0');
    const [added, destroyed] = await Promise.allSettled([
      addUnitStorage(store, 'storage/0', 'data', { count: 1 }, 'local'),
      destroyUnit(store, 'storage/0'),
    ]);
    expect(destroyed.status).toBe('fulfilled');
    const unit = await getUnit(store, 'storage/0');
    expect(unit?.life).toBe('dying');
    // Whatever order they committed in, every attachment of the Dying unit is Dying.
    for (const id of unit?.storageAttachments ?? []) expect((await attachment(id, 'storage/0'))?.life).toBe('dying');
    expect(unit?.storageAttachments).toHaveLength(added.status === 'fulfilled' ? 2 : 1);
  });
});

describe('the agent storage routes', () => {
  it('storage-attached records the location (again: 200); the view shows the attachment; storage-add adds within range', async () => {
    await deploy(store, { charm: charms.storage, numUnits: 1 });
    await setAgentCredentialHash(store, '0', hashAgentCredential('secret-0'), 0);
    const call = agent('0');
    const attached = { unit: 'storage/0', storage: 'data/0', location: '/var/lib/juju/storage/data-0' };
    expect((await call('storage-attached', attached)).status).toBe(200);
    expect(await call('storage-attached', attached)).toMatchObject({ status: 200, body: { result: 'already-attached' } });
    const added = await call('storage-add', { unit: 'storage/0', name: 'data', count: 2 });
    expect(added).toMatchObject({ status: 200, body: { storage: ['data/1', 'data/2'] } });
    const tooMany = await call('storage-add', { unit: 'storage/0', name: 'data', count: 1 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toContain('brings the total to 4, exceeding the maximum of 3');
    const view = await call('view', {});
    expect(view.body.units[0].storage).toEqual([
      { id: 'data/0', name: 'data', kind: 'filesystem', pool: 'rootfs', size: 100, life: 'alive', location: attached.location },
      { id: 'data/1', name: 'data', kind: 'filesystem', pool: 'rootfs', size: 100, life: 'alive' },
      { id: 'data/2', name: 'data', kind: 'filesystem', pool: 'rootfs', size: 100, life: 'alive' },
    ]);
  });
});

describe('persistent (ebs) storage', () => {
  const ebs = { charm: charms.storage, numUnits: 2, storage: { data: { pool: 'ebs', count: 1 } }, storageProvider: 'ec2' as const };

  it('stays, detached, after its unit; with remove-unit --destroy-storage it goes Dead for its volume to be deleted', async () => {
    await deploy(store, ebs);
    for (const u of ['storage/0', 'storage/1']) await started(u);
    await destroyUnit(store, 'storage/0');
    await destroyUnit(store, 'storage/1', { destroyStorage: true });
    expect((await instance('data/1'))?.life).toBe('dying');
    await storageDetached(store, 'storage/0', 'data/0');
    await storageDetached(store, 'storage/1', 'data/1');
    expect(await instance('data/0')).toMatchObject({ life: 'alive', persistent: true, attachments: [] });
    expect(await instance('data/1')).toMatchObject({ life: 'dead', attachments: [] });
  });

  it('destroy-model refuses without --destroy-storage or --release-storage, in Juju words, and changes nothing', async () => {
    await deploy(store, ebs);
    await expect(destroyModel(store)).rejects.toThrow(
      'cannot destroy model "default"\n\nThe model has persistent storage remaining:\n\t2 volumes and 2 filesystems\n\nTo destroy the storage, run the destroy-model\ncommand again with the "--destroy-storage" option.',
    );
    expect((await getModel(store))?.life).toBe('alive');
    expect(await destroyModel(store, { storage: 'destroy' })).toBe('dying');
    expect((await getModel(store))?.storageDisposal).toBe('destroy');
  });

  it('destroy-model --release-storage: detached, it goes Dead marked released (its record to go, its volume to stay)', async () => {
    await deploy(store, { ...ebs, numUnits: 1 });
    await started('storage/0');
    expect(await destroyModel(store, { storage: 'release' })).toBe('dying');
    await destroyUnit(store, 'storage/0');
    await storageDetached(store, 'storage/0', 'data/0');
    expect(await instance('data/0')).toMatchObject({ life: 'dead', release: true, attachments: [] });
  });
});
