// The storage commands end to end against a real API over DynamoDB Local: deploy --storage,
// `storage` in Juju 3.6's tabular columns and JSON keys, storage-pools, add-storage, and refusals
// in Juju's words that change nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { charmDir, expectError, expectOk, startCliController, type CliHarness } from '../support/cli.js';

let ctl: CliHarness;
beforeEach(async () => {
  ctl = await startCliController();
});
afterEach(async () => {
  await ctl.close();
});

const ok = (...args: string[]) => expectOk(ctl, args);

describe('storage commands', () => {
  it('deploy --storage gives each unit its storage; storage lists it as Juju 3.6 does', async () => {
    await ok('deploy', charmDir('filestore'), '-n', '2', '--storage', 'files=rootfs,1G,2');
    const table = (await ok('storage')).stdout;
    expect(table.split('\n')[0]).toMatch(/^Unit +Storage ID +Type +Pool +Size +Status +Message$/);
    expect(table).toMatch(/filestore\/0 +files\/0 +filesystem +rootfs +1\.0 GiB +pending/);
    expect(table).toMatch(/filestore\/1 +files\/3 +filesystem +rootfs +1\.0 GiB +pending/);
    const doc = JSON.parse((await ok('storage', '--format', 'json')).stdout) as {
      storage: Record<string, { kind: string; attachments: { units: Record<string, { life: string }> } }>;
      filesystems: Record<string, { storage: string; pool: string; size: number }>;
    };
    expect(Object.keys(doc.storage).sort()).toEqual(['files/0', 'files/1', 'files/2', 'files/3']);
    expect(doc.storage['files/2']).toMatchObject({ kind: 'filesystem', attachments: { units: { 'filestore/1': { life: 'alive' } } } });
    expect(doc.filesystems['2']).toMatchObject({ storage: 'files/2', pool: 'rootfs', size: 1024 });
    // --filesystem: that section alone; --volume: none here (rootfs has no volumes).
    expect(Object.keys(JSON.parse((await ok('storage', '--filesystem', '--format', 'json')).stdout).filesystems)).toHaveLength(4);
    expect(JSON.parse((await ok('storage', '--volume', '--format', 'json')).stdout)).toEqual({ volumes: {} });
  });

  it('status --storage adds the storage section (tabular) and the storage key (JSON), as Juju 3.6', async () => {
    await ok('deploy', charmDir('filestore'));
    const tabular = (await ok('status', '--storage')).stdout;
    expect(tabular).toMatch(
      /\nStorage Unit +Storage ID +Type +Pool +Mountpoint +Size +Status +Message\nfilestore\/0 +files\/0 +filesystem +rootfs +100 MiB +pending/,
    );
    const doc = JSON.parse((await ok('status', '--storage', '--format', 'json')).stdout) as {
      storage: { storage: Record<string, unknown> };
    };
    expect(Object.keys(doc.storage.storage)).toEqual(['files/0']);
    // Without --storage the key is there, empty, as drover's status always has it.
    expect(JSON.parse((await ok('status', '--format', 'json')).stdout).storage).toEqual({});
  });

  it('storage-pools lists rootfs on the local provider', async () => {
    expect((await ok('storage-pools')).stdout).toMatch(/^Name +Provider +Attributes\nrootfs +rootfs/);
    expect(JSON.parse((await ok('storage-pools', '--format', 'json')).stdout)).toEqual({ rootfs: { provider: 'rootfs' } });
  });

  it('add-storage adds within the charm range; beyond it, and rootfs detach, are refused', async () => {
    await ok('deploy', charmDir('filestore'));
    const added = await ok('add-storage', 'filestore/0', 'files=2');
    expect(added.stderr).toBe('added storage files/1 to filestore/0\nadded storage files/2 to filestore/0\n');
    await expectError(ctl, 1, ['add-storage', 'filestore/0', 'files=2'], /exceeding the maximum of 4/);
    await expectError(ctl, 1, ['detach-storage', 'files/0'], /is not detachable/);
    await expectError(ctl, 1, ['remove-storage', 'files/0'], /storage is attached/);
    expect(Object.keys(JSON.parse((await ok('storage', '--format', 'json')).stdout).storage)).toHaveLength(3);
  });

  it('bad --storage is refused in Juju words, and nothing is deployed', async () => {
    await expectError(ctl, 2, ['deploy', charmDir('filestore'), '--storage', 'files'], /expected <store>=<constraints>/);
    await expectError(
      ctl,
      1,
      ['deploy', charmDir('filestore'), '--storage', 'files=10M'],
      /minimum storage size is 100 MB, 10 MB specified/,
    );
    await expectError(ctl, 1, ['deploy', charmDir('filestore'), '--storage', 'logs=1G'], /charm "filestore" has no store called "logs"/);
    expect((await ok('storage')).stderr).toBe('No storage to display.\n');
  });
});
