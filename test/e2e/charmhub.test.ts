// Charms from Charmhub through the CLI and the API against DynamoDB Local, the store being the
// local Charmhub-API server (test/support/charmhub-server.ts) that the model's charmhub-url names:
// deploy by name and channel, status's charm fields, the download cached by Charmhub's hash,
// refresh to a newer revision, and refusals (a wrong digest, a download cut off or too large,
// nothing in the channel for the base) that leave nothing deployed; info and find as Juju prints them.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { getApplication } from '#shared/state/engine/reads.js';
import { charmDir, expectError, expectOk, startCliController, type CliHarness } from '../support/cli.js';
import { packDotCharm } from '../support/dot-charm.js';
import { startCharmhubServer, type CharmhubServer } from '../support/charmhub-server.js';

let hub: CharmhubServer;
let packedV2: string;
const metadataOf = (charm: string) => readFileSync(join(charmDir(charm), 'metadata.yaml'), 'utf8');
let ctl: CliHarness;

beforeAll(async () => {
  const v1 = packDotCharm(charmDir('database'));
  const v2 = packDotCharm(charmDir('database-v2'));
  packedV2 = v2;
  const faulty = (name: string, fault: 'tamper' | 'truncate' | 'oversize') => ({
    name,
    revisions: [{ revision: 1, file: v1, bases: ['ubuntu@22.04'], channels: ['latest/stable'], fault }],
  });
  hub = await startCharmhubServer([
    {
      name: 'database',
      summary: 'A database for agent tests.\nHands out credentials.',
      publisher: 'drover tests',
      revisions: [
        { revision: 3, file: v1, bases: ['ubuntu@22.04'], channels: ['latest/stable'], version: '1.0', metadata: metadataOf('database') },
        {
          revision: 7,
          file: v2,
          bases: ['ubuntu@22.04'],
          channels: ['latest/edge', '2/stable'],
          version: '2.0',
          metadata: metadataOf('database-v2'),
        },
      ],
    },
    {
      name: 'resourceful',
      revisions: [
        {
          revision: 4,
          file: packDotCharm(charmDir('resourceful')),
          bases: ['ubuntu@22.04'],
          channels: ['latest/stable'],
          resources: [{ name: 'payload', revision: 2, filename: 'payload.txt', content: Buffer.from('from the store') }],
        },
        {
          revision: 5,
          file: packDotCharm(charmDir('resourceful')),
          bases: ['ubuntu@22.04'],
          channels: ['latest/edge'],
          resources: [{ name: 'payload', revision: 3, filename: 'payload.txt', content: Buffer.from('x'), fault: 'tamper' }],
        },
      ],
    },
    // These hold the database charm under other names: each is refused before its name is read.
    { ...faulty('database', 'tamper'), name: 'tampered' },
    {
      name: 'escaping',
      revisions: [
        {
          revision: 1,
          file: packDotCharm(charmDir('database'), [{ name: 'hooks/upgrade-charm', mode: 0o120777, data: '/etc/passwd' }]),
          bases: ['ubuntu@22.04'],
          channels: ['latest/stable'],
        },
      ],
    },
    { ...faulty('database', 'truncate'), name: 'cut-short' },
    { ...faulty('database', 'oversize'), name: 'too-long' },
  ]);
});
afterAll(async () => {
  await hub.close();
});
beforeEach(async () => {
  ctl = await startCliController();
  await expectOk(ctl, ['add-model', 'hub', '--config', `charmhub-url=${hub.url}`]);
});
afterEach(async () => {
  await ctl.close();
});

const ok = (...args: string[]) => expectOk(ctl, args);
const fails = (code: number, args: string[], message: string | RegExp) => expectError(ctl, code, args, message);
const hubStore = async () => (await import('#shared/state/queries/models.js')).storeOfModel(ctl.store, 'hub');
const charmDownloads = () => [...hub.downloads].filter(([path]) => path.startsWith('/download/')).reduce((n, [, count]) => n + count, 0);

describe('deploy <name> from Charmhub', () => {
  it("deploys the channel's revision, says so as Juju does, and status shows where it came from", async () => {
    const res = await ok('deploy', 'database', '--channel', '2/stable');
    expect(res.stderr).toBe(
      'Located charm "database" in charm-hub, revision 7\n' +
        'Deploying "database" from charm-hub charm "database", revision 7 in channel 2/stable on ubuntu@22.04/stable\n',
    );
    const app = (await getApplication(await hubStore(), 'database'))!;
    expect(app).toMatchObject({
      charmUrl: 'ch:amd64/jammy/database-7',
      series: 'jammy',
      charmOrigin: { source: 'charmhub', revision: 7, channel: '2/stable', architecture: 'amd64' },
    });
    // The agents get the tar.gz the store keeps, as for an uploaded charm.
    expect((await ctl.charms.get(app.charmArchive!))?.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const status = JSON.parse((await ok('status', '--format', 'json')).stdout);
    expect(status.applications.database).toMatchObject({
      charm: 'database',
      'charm-origin': 'charmhub',
      'charm-name': 'database',
      'charm-rev': 7,
      'charm-channel': '2/stable',
    });
    const tabular = (await ok('status')).stdout;
    expect(tabular).toMatch(/database\s+waiting\s+0\/1\s+database\s+2\/stable\s+7\s+no/);
  });

  it('takes the stable channel by default, and a revision with its channel; downloads each revision once', async () => {
    const before = charmDownloads();
    const res = await ok('deploy', 'ch:database', 'db');
    expect(res.stderr).toContain('Deploying "db" from charm-hub charm "database", revision 3 in channel stable on ubuntu@22.04/stable\n');
    expect(charmDownloads()).toBe(before + 1);
    await ok('deploy', 'database', 'db2');
    // Kept by Charmhub's sha256: the same revision is not downloaded again.
    expect(charmDownloads()).toBe(before + 1);
    await ok('deploy', 'database', 'db3', '--channel', 'edge', '--revision', '7');
    expect(await getApplication(await hubStore(), 'db3')).toMatchObject({
      charmUrl: 'ch:amd64/jammy/database-7',
      charmOrigin: { channel: 'latest/edge' },
    });
    await fails(
      1,
      ['deploy', 'database', 'db4', '--revision', '7'],
      'specifying a revision requires a channel for future upgrades. Please use --channel',
    );
  });

  it("refuses, in Juju's words and changing nothing, what Charmhub lacks and downloads that fail their checks", async () => {
    const before = charmDownloads();
    await fails(
      1,
      ['deploy', 'database', '--channel', 'stable', '--base', 'ubuntu@20.04'],
      'selecting releases: charm or bundle not found for channel "stable", base "amd64/ubuntu/20.04/stable"\n' +
        'available releases are:\n' +
        '  channel "latest/edge": available bases are: ubuntu@22.04\n' +
        '  channel "2/stable": available bases are: ubuntu@22.04\n' +
        '  channel "latest/stable": available bases are: ubuntu@22.04\n',
    );
    // The default model asks https://api.charmhub.io, which tests never reach (test/support/cli.ts).
    await fails(
      1,
      ['deploy', 'database', '-m', 'default'],
      /^ERROR resolving with preferred channel: POST "https:\/\/api\.charmhub\.io\/v2\/charms\/refresh": /,
    );
    await fails(1, ['deploy', 'no-such-charm'], "resolving error: No charm or bundle with name 'no-such-charm'.\n");
    await fails(1, ['deploy', 'database', '--channel', '2/bogus'], 'risk in channel "2/bogus" not valid\n');
    expect(charmDownloads()).toBe(before);
    await fails(1, ['deploy', 'tampered'], /^ERROR downloaded charm hash "[0-9a-f]{64}" does not match expected hash "[0-9a-f]{64}"\n$/);
    await fails(1, ['deploy', 'cut-short'], /^ERROR cannot download "http:\/\/127\.0\.0\.1:\d+\/download\/cut-short_1\.charm": /);
    await fails(1, ['deploy', 'too-long'], /^ERROR cannot download ".*too-long_1\.charm": more than the \d+ bytes expected\n$/);
    await fails(1, ['deploy', 'escaping'], 'invalid charm archive: symlink "hooks/upgrade-charm" leaves the charm');
    await fails(
      1,
      ['deploy', 'resourceful', '--channel', 'edge'],
      /^ERROR resource fingerprint "[0-9a-f]{96}" does not match expected fingerprint "[0-9a-f]{96}"\n$/,
    );
    const store = await hubStore();
    for (const name of ['database', 'tampered', 'cut-short', 'too-long', 'escaping', 'resourceful'])
      expect(await getApplication(store, name)).toBeUndefined();
    expect((await ok('status', '--format', 'json')).stdout).not.toContain('"applications":{"');
  });

  it('keeps charmhub-url as the model was created with, as Juju does', async () => {
    await fails(
      1,
      ['model-config', 'charmhub-url=https://example.com'],
      `cannot change charmhub-url from "${hub.url}" to "https://example.com"\n`,
    );
    await fails(1, ['add-model', 'bad', '--config', 'charmhub-url=not a url'], 'charmhub-url: invalid URL "not a url"\n');
    expect((await ok('model-config', 'charmhub-url')).stdout).toBe(`${hub.url}\n`);
  });
});

describe('resources of a Charmhub charm', () => {
  it('come with the charm at their revision, unless deploy --resource uploads one instead', async () => {
    await ok('deploy', 'resourceful');
    const fromStore = (await getApplication(await hubStore(), 'resourceful'))!.resources!.payload!;
    expect(fromStore).toMatchObject({ origin: 'store', revision: 2, size: 'from the store'.length });
    expect((await ctl.charms.get(fromStore.sha256))?.toString()).toBe('from the store');
    const mine = join(mkdtempSync(join(tmpdir(), 'charmhub-resource-')), 'mine.txt');
    writeFileSync(mine, 'my own');
    const downloads = hub.downloads.get('/resources/resourceful/payload_2');
    await ok('deploy', 'resourceful', 'mine', '--resource', `payload=${mine}`);
    const uploaded = (await getApplication(await hubStore(), 'mine'))!.resources!.payload!;
    expect(uploaded).toMatchObject({ revision: 1, size: 'my own'.length });
    expect(uploaded.origin).toBeUndefined();
    expect(hub.downloads.get('/resources/resourceful/payload_2')).toBe(downloads);
    await fails(1, ['deploy', 'resourceful', 'other', '--resource', `nope=${mine}`], 'unrecognized resource "nope"');
    expect(await getApplication(await hubStore(), 'other')).toBeUndefined();
  });
});

describe('download', () => {
  it("writes the channel's revision, checked, where --filepath says", async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'charmhub-download-')), 'db.charm');
    const res = await ok('download', 'database', '--channel', '2/stable', '--filepath', out);
    expect(res.stderr).toBe(
      `Fetching charm "database" revision 7 using "2/stable" channel and base "amd64/ubuntu/22.04"\nInstall the "database" charm with:\n    drover deploy ${out}\n`,
    );
    expect(readFileSync(out).equals(readFileSync(packedV2))).toBe(true);
    await fails(1, ['download', 'tampered', '--filepath', out], /does not match expected hash/);
    expect(readFileSync(out).equals(readFileSync(packedV2))).toBe(true);
  });
});

describe('refresh from Charmhub', () => {
  it("takes the channel's newer revision, says so as Juju does, and says when there is none", async () => {
    await ok('deploy', 'database');
    const res = await ok('refresh', 'database', '--channel', 'edge');
    expect(res.stderr).toBe('Added charm-hub charm "database", revision 7 in channel edge, to the model\n');
    const app = (await getApplication(await hubStore(), 'database'))!;
    expect(app).toMatchObject({ charmUrl: 'ch:amd64/jammy/database-7', charmOrigin: { revision: 7, channel: 'latest/edge' } });
    // database-v2 adds the db-port option: the application has the new charm's config.
    expect(app.charm.config['db-port']).toBeDefined();
    const again = await ok('refresh', 'database');
    expect(again.stderr).toBe('charm "database": already up-to-date\n');
    expect((await getApplication(await hubStore(), 'database'))!.charmUrl).toBe('ch:amd64/jammy/database-7');
    // A local charm replaces it with --path, and is then no longer Charmhub's.
    await ok('refresh', 'database', '--path', charmDir('database'));
    const local = (await getApplication(await hubStore(), 'database'))!;
    expect(local.charmUrl).toBe('local:jammy/database-8');
    expect(local.charmOrigin).toBeUndefined();
    await fails(1, ['refresh', 'database'], 'upgrading a local charm requires either --path or --switch\n');
    // --switch ch:<name> takes it back to Charmhub, in the channel given.
    const back = await ok('refresh', 'database', '--switch', 'ch:database', '--channel', '2/stable');
    expect(back.stderr).toBe('Added charm-hub charm "database", revision 7 in channel 2/stable, to the model\n');
    expect((await getApplication(await hubStore(), 'database'))!).toMatchObject({
      charmUrl: 'ch:amd64/jammy/database-7',
      charmOrigin: { revision: 7, channel: '2/stable' },
    });
  });

  it('--switch crossgrades to another charm, from Charmhub or local, and its resources come with it', async () => {
    await ok('deploy', 'database', 'db');
    const switched = await ok('refresh', 'db', '--switch', 'resourceful');
    expect(switched.stderr).toBe('Added charm-hub charm "resourceful", revision 4 in channel stable, to the model\n');
    const app = (await getApplication(await hubStore(), 'db'))!;
    expect(app).toMatchObject({ charmUrl: 'ch:amd64/jammy/resourceful-4', charm: { name: 'resourceful' } });
    expect(app.resources?.['payload']).toMatchObject({ revision: 2, origin: 'store' });
    expect((await ok('resources', 'db')).stdout).toBe(
      'Resource  Supplied by  Revision\nmissing   upload       -\npayload   store        2\n',
    );
    // A local charm of another name, by path; its undeclared resources go.
    await ok('refresh', 'db', '--switch', charmDir('database'));
    const local = (await getApplication(await hubStore(), 'db'))!;
    expect(local).toMatchObject({ charmUrl: 'local:jammy/database-0', charm: { name: 'database' } });
    expect(local.charmOrigin).toBeUndefined();
    expect(local.resources).toEqual({});
  });

  it('--resource uploads the next revision of a resource, with the new charm or to the charm already up to date', async () => {
    await ok('deploy', 'resourceful');
    const file = join(mkdtempSync(join(tmpdir(), 'refresh-resource-')), 'payload.txt');
    writeFileSync(file, 'uploaded at refresh');
    const res = await ok('refresh', 'resourceful', '--resource', `payload=${file}`);
    expect(res.stderr).toBe('charm "resourceful": already up-to-date. Attempt to update resources requested.\n');
    const app = (await getApplication(await hubStore(), 'resourceful'))!;
    expect(app.charmUrl).toBe('ch:amd64/jammy/resourceful-4');
    expect(app.resources?.['payload']).toMatchObject({ revision: 3, size: 'uploaded at refresh'.length });
    expect(app.resources?.['payload']?.origin).toBeUndefined();
    // Its units run upgrade-charm for the new content, as after attach-resource.
    expect(app.charmModifiedVersion).toBe(1);
    // The same content again is nothing new: no revision, no upgrade.
    expect((await ok('refresh', 'resourceful', '--resource', `payload=${file}`)).stderr).toBe(
      'charm "resourceful", revision 4: already up-to-date\n',
    );
    expect((await getApplication(await hubStore(), 'resourceful'))!.charmModifiedVersion).toBe(1);
  });

  it("refuses bad flags and resources in Juju's words, changing nothing", async () => {
    await ok('deploy', 'resourceful');
    const before = await getApplication(await hubStore(), 'resourceful');
    await fails(2, ['refresh', 'resourceful', '--switch', 'database', '--revision', '3'], '--switch and --revision are mutually exclusive');
    await fails(
      2,
      ['refresh', 'resourceful', '--path', charmDir('database'), '--revision', '3'],
      '--path and --revision are mutually exclusive',
    );
    await fails(
      2,
      ['refresh', 'resourceful', '--switch', 'database', '--path', charmDir('database')],
      '--switch and --path are mutually exclusive',
    );
    const file = join(mkdtempSync(join(tmpdir(), 'refresh-resource-')), 'x.txt');
    writeFileSync(file, 'x');
    // The new charm declares no "payload": refused once the controller has it, before any upload is read.
    await fails(1, ['refresh', 'resourceful', '--switch', 'database', '--resource', `payload=${file}`], 'unrecognized resource "payload"');
    await fails(1, ['refresh', 'resourceful', '--switch', 'nothing-here'], /charm or bundle not found|No charm or bundle with name/);
    expect(await getApplication(await hubStore(), 'resourceful')).toEqual(before);
  });
});

describe('a bundle of Charmhub charms', () => {
  it('deploys each at its channel and revision, fetched and verified before anything changes; again, it changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'charmhub-bundle-'));
    const bundle = join(dir, 'bundle.yaml');
    writeFileSync(
      bundle,
      'applications:\n  db:\n    charm: database\n    channel: 2/stable\n    num_units: 0\n  files:\n    charm: ch:resourceful\n    channel: stable\n    revision: 4\n',
    );
    const dry = await ok('deploy', bundle, '--dry-run');
    expect(dry.stderr).toBe(
      'Changes to deploy bundle:\n- deploy application db from charm-hub charm database in channel 2/stable on jammy\n- deploy application files from charm-hub charm resourceful in channel stable on jammy\n',
    );
    expect(await getApplication(await hubStore(), 'db')).toBeUndefined();
    await ok('deploy', bundle);
    expect(await getApplication(await hubStore(), 'db')).toMatchObject({
      charmUrl: 'ch:amd64/jammy/database-7',
      charmOrigin: { revision: 7, channel: '2/stable' },
    });
    const files = (await getApplication(await hubStore(), 'files'))!;
    expect(files).toMatchObject({ charmUrl: 'ch:amd64/jammy/resourceful-4' });
    expect(files.resources?.['payload']).toMatchObject({ revision: 2, origin: 'store' });
    expect((await ok('deploy', bundle)).stderr).toBe('No changes to apply.\n');
  });

  it('is refused whole when a charm is not on Charmhub or a revision lacks its channel, and nothing is deployed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'charmhub-bundle-'));
    const bundle = join(dir, 'bundle.yaml');
    writeFileSync(
      bundle,
      'applications:\n  db:\n    charm: database\n  gone:\n    charm: nothing-here\n  pinned:\n    charm: database\n    revision: 3\n',
    );
    const res = await fails(1, ['deploy', bundle], `cannot deploy bundle "${bundle}": `);
    expect(res.stderr).toContain('nothing was deployed');
    expect(res.stderr).toMatch(/- charm "nothing-here" in application "gone": .*nothing-here/);
    expect(res.stderr).toContain('- application "pinned": specifying a revision requires a channel for future upgrades');
    expect(await getApplication(await hubStore(), 'db')).toBeUndefined();
  });
});

describe('info and find', () => {
  it('print what Charmhub has, as Juju prints it', async () => {
    const info = await ok('info', 'database', '--unicode', 'never');
    expect(info.stdout.split('\n')).toEqual([
      'name: database',
      'publisher: drover tests',
      'summary: |-',
      '  A database for agent tests.',
      '  Hands out credentials.',
      `store-url: ${hub.url}/database`,
      expect.stringMatching(/^charm-id: [0-9a-f]{32}$/),
      'supports: ubuntu@22.04',
      'subordinate: false',
      'relations:',
      '  provides:',
      '    db: dbtest',
      'channels: |',
      expect.stringMatching(/^ {2}latest\/stable: {5}1\.0 {2}2025-01-01 {2}\(3\) {2}\d+kB {2}amd64 {2}ubuntu@22\.04$/),
      '  latest/candidate:  ^',
      '  latest/beta:       ^',
      expect.stringMatching(/^ {2}latest\/edge: {7}2\.0 {2}2025-01-01 {2}\(7\) {2}\d+kB {2}amd64 {2}ubuntu@22\.04$/),
      expect.stringMatching(/^ {2}2\/stable: {10}2\.0 {2}2025-01-01 {2}\(7\) {2}\d+kB {2}amd64 {2}ubuntu@22\.04$/),
      '  2/candidate:       ^',
      '  2/beta:            ^',
      '  2/edge:            ^',
      '',
    ]);
    const find = await ok('find', 'data');
    expect(find.stdout).toBe(
      'Name      Bundle  Version  Publisher     Summary\ndatabase  -       1.0      drover tests  A database for agent tests.\n\n',
    );
    const all = await ok('find');
    expect(all.stdout).toMatch(
      /^No search term specified\. Here are some interesting charms:\n\nName +Bundle[^]*\nProvide a search term for more specific results\.\n$/,
    );
    const none = await ok('find', 'zzz');
    expect(none.stderr).toBe('No matching charms or bundles\n');
    await fails(1, ['info', 'no-such-charm'], "No charm or bundle with name 'no-such-charm'.\n");
  });
});
