// Charms as charmcraft packs them, through the CLI and the API against DynamoDB Local: a `.charm`
// (a zip) deploys and reaches the charm store as the tar.gz agents unpack, bases stand in for
// series (`--base`, manifest.yaml), hostile archives are refused with nothing changed, and a
// juju-info subordinate (requires `juju-info`, as nrpe and telegraf do) deploys and relates.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { receiveCharm } from '../../functions/api/charm-upload.js';
import { packEntries, type Entry } from '#shared/charmstore/charm-archive.js';
import { unpackCharmArchive } from '#shared/charmstore/charm-unpack.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import { getApplication, getMachine, getRelation } from '#shared/state/engine/reads.js';
import { charmDir, expectOk, expectError, startCliController, type CliHarness } from '../support/cli.js';
import { packDotCharm } from '../support/dot-charm.js';

let ctl: CliHarness;
beforeEach(async () => {
  ctl = await startCliController();
});
afterEach(async () => {
  await ctl.close();
});

const ok = (...args: string[]) => expectOk(ctl, args);

const fails = (code: number, args: string[], message: string | RegExp) => expectError(ctl, code, args, message);

describe('deploying a .charm', () => {
  it('deploys on the series of its manifest bases, and stores it as agents unpack it', async () => {
    const file = packDotCharm(charmDir('ops-dispatch'));
    const res = await ok('deploy', file);
    expect(res.stderr).toContain('Located local charm "ops-dispatch", revision 0\n');
    const app = await getApplication(ctl.store, 'ops-dispatch');
    expect(app).toMatchObject({ series: 'jammy', unitCount: 1 });
    // What the agents download: a tar.gz in which dispatch is still executable.
    const archive = await ctl.charms.get(app!.charmArchive!);
    expect(archive?.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const out = mkdtempSync(join(tmpdir(), 'dot-charm-out-'));
    await unpackCharmArchive(archive!, out);
    expect(statSync(join(out, 'dispatch')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(out, 'manifest.yaml'), 'utf8')).toContain("channel: '22.04'");
  });

  it('takes --base, and refuses a base the charm lacks in Juju 3 words', async () => {
    const file = packDotCharm(charmDir('ops-dispatch'));
    await fails(
      1,
      ['deploy', file, '--base', 'ubuntu@20.04'],
      'base "ubuntu@20.04" not supported by charm, the charm supported bases are: ubuntu@22.04',
    );
    await fails(2, ['deploy', file, '--base', 'ubuntu@22.04', '--series', 'jammy'], '--series and --base cannot be specified together');
    await fails(1, ['deploy', file, '--base', 'jammy'], "expected base string to contain os and channel separated by '@'");
    expect(await getApplication(ctl.store, 'ops-dispatch')).toBeUndefined();
    await ok('deploy', file, 'web', '--base', 'ubuntu@22.04');
    expect(await getApplication(ctl.store, 'web')).toMatchObject({ series: 'jammy' });
  });

  it('refuses a hostile archive and changes nothing', async () => {
    const escaping = packDotCharm(charmDir('ops-dispatch'), [{ name: 'hooks/install', mode: 0o120777, data: '/etc/passwd' }]);
    await fails(
      1,
      ['deploy', escaping],
      /ERROR cannot read charm ".*\.charm": invalid charm archive: symlink "hooks\/install" leaves the charm/,
    );
    const fifo = packDotCharm(charmDir('ops-dispatch'), [{ name: 'pipe', mode: 0o010644, data: '' }]);
    await fails(1, ['deploy', fifo], /invalid charm archive: "pipe" is a special file/);
    const notZip = join(mkdtempSync(join(tmpdir(), 'not-zip-')), 'x.charm');
    execFileSync('sh', ['-c', `echo 'name: x' > ${notZip}`]);
    await fails(1, ['deploy', notZip], /invalid charm archive: not a zip file/);
    expect(await getApplication(ctl.store, 'ops-dispatch')).toBeUndefined();
  });
});

describe('a charm source directory with charmcraft.yaml', () => {
  it("deploys on the series of charmcraft.yaml's base when metadata.yaml has none", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'charmcraft-src-'));
    writeFileSync(join(dir, 'metadata.yaml'), 'name: noble-app\nsummary: s\n');
    writeFileSync(join(dir, 'charmcraft.yaml'), 'type: charm\nbase: ubuntu@24.04\nplatforms:\n  amd64:\n');
    await ok('deploy', dir);
    expect(await getApplication(ctl.store, 'noble-app')).toMatchObject({ series: 'noble' });
    await fails(
      1,
      ['deploy', dir, 'other', '--series', 'jammy'],
      'base "ubuntu@22.04" not supported by charm, the charm supported bases are: ubuntu@24.04',
    );
  });
});

describe('refreshing to a .charm', () => {
  it('upgrades an application to a packed charm with --path, keeping its series', async () => {
    await ok('deploy', charmDir('ops-dispatch'), 'web');
    const before = (await getApplication(ctl.store, 'web'))!;
    const res = await ok('refresh', 'web', '--path', packDotCharm(charmDir('ops-dispatch')));
    expect(res.stderr).toBe('Added charm "local:jammy/ops-dispatch-1" to the model.\n');
    const after = (await getApplication(ctl.store, 'web'))!;
    expect(after).toMatchObject({ series: 'jammy', charmUrl: 'local:jammy/ops-dispatch-1' });
    // The zip reached the store as a tar.gz, like the directory before it.
    expect((await ctl.charms.get(after.charmArchive!))?.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(after.charmArchive).not.toBe(before.charmArchive);
  });
});

describe('the API takes a .charm archive as it is', () => {
  it('converts a zip to the stored tar.gz, and stores nothing from a hostile one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-charms-'));
    const charms = localCharmStore(dir);
    const metadata = readFileSync(join(charmDir('ops-dispatch'), 'metadata.yaml'), 'utf8');
    const manifest = readFileSync(join(charmDir('ops-dispatch'), 'manifest.yaml'), 'utf8');
    const zip = readFileSync(packDotCharm(charmDir('ops-dispatch'), [{ name: 'hooks/install', mode: 0o120777, data: '../dispatch' }]));
    const { charm, charmArchive } = await receiveCharm(charms, { metadata, manifest, archive: zip.toString('base64') });
    expect(charm.series).toEqual(['jammy']);
    const out = mkdtempSync(join(tmpdir(), 'api-charm-out-'));
    await unpackCharmArchive((await charms.get(charmArchive!))!, out);
    expect(readlinkSync(join(out, 'hooks', 'install'))).toBe('../dispatch');

    const emptyDir = mkdtempSync(join(tmpdir(), 'api-charms-empty-'));
    const empty = localCharmStore(emptyDir);
    const hostile = readFileSync(packDotCharm(charmDir('ops-dispatch'), [{ name: '../../evil', mode: 0o100644, data: 'x' }]));
    await expect(receiveCharm(empty, { metadata, manifest, archive: hostile.toString('base64') })).rejects.toThrow(/invalid charm archive/);
    expect(readdirSync(emptyDir)).toEqual([]);
  });
});

describe('the API checks a tar.gz as agents will unpack it', () => {
  it('refuses links out of the charm and entries beneath links, storing nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-tar-'));
    const charms = localCharmStore(dir);
    const metadata = 'name: t\nseries: [jammy]\n';
    const file = { path: 'metadata.yaml', type: 'file' as const, mode: 0o644, data: Buffer.from(metadata) };
    const upload = (entries: Entry[]) => receiveCharm(charms, { metadata, archive: packEntries(entries).toString('base64') });
    await expect(upload([file, { path: 'hooks', type: 'symlink', mode: 0o777, linkTarget: '/etc' }])).rejects.toThrow(
      'invalid charm archive: symlink "hooks" leaves the charm',
    );
    await expect(
      upload([
        file,
        { path: 'd', type: 'symlink', mode: 0o777, linkTarget: '.' },
        { path: 'd/up', type: 'symlink', mode: 0o777, linkTarget: '../escape' },
      ]),
    ).rejects.toThrow('invalid charm archive: "d/up" lies beneath a symlink');
    await expect(receiveCharm(charms, { metadata, archive: Buffer.from('not a tar').toString('base64') })).rejects.toThrow(
      /^invalid charm archive: /,
    );
    expect(readdirSync(dir)).toEqual([]);
    // A well-formed one is stored.
    const { charmArchive } = await upload([file, { path: 'install', type: 'symlink', mode: 0o777, linkTarget: 'metadata.yaml' }]);
    expect(readdirSync(dir)).toEqual([`${charmArchive}.tar.gz`]);
  });
});

describe('add-machine --base', () => {
  it('adds a machine on the series of the base', async () => {
    await ok('add-machine', '--base', 'ubuntu@24.04');
    expect((await getMachine(ctl.store, '0'))?.series).toBe('noble');
    await fails(1, ['add-machine', '--base', 'ubuntu@99.04'], 'unknown series for version: "99.04"');
    await fails(2, ['add-machine', '--base', 'ubuntu@22.04', '--series', 'jammy'], '--series and --base cannot be specified together');
    expect(await getMachine(ctl.store, '1')).toBeUndefined();
  });
});

describe('a juju-info subordinate', () => {
  it('deploys from a charm without series and relates through its juju-info requirer', async () => {
    await ok('deploy', packDotCharm(charmDir('ops-dispatch')), 'web');
    await ok('deploy', charmDir('info-agent'));
    expect(await getApplication(ctl.store, 'info-agent')).toMatchObject({ subordinate: true, series: 'jammy', unitCount: 0 });
    await ok('relate', 'info-agent', 'web');
    const relation = await getRelation(ctl.store, 'info-agent:juju-info web:juju-info');
    expect(relation).toMatchObject({ scope: 'container' });
    expect(relation?.endpoints.map((e) => `${e.application}:${e.name}:${e.role}`).sort()).toEqual([
      'info-agent:juju-info:requirer',
      'web:juju-info:provider',
    ]);
  });
});
