// The Charmhub client's requests and the answers it reads, against the local Charmhub server
// (test/support/charmhub-server.ts): install by name and channel, by revision, on a base; Juju's
// words when nothing matches; info and find; downloads checked against the digest and bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { charmhubClient } from '#shared/charmhub/client.js';
import { fullChannel, normalizedChannel, parseChannel } from '#shared/charmhub/channel.js';
import { downloadChecked } from '#shared/charmhub/download.js';
import { resolveCharm } from '#shared/charmhub/resolve.js';
import { charmDir } from '../../support/cli.js';
import { packDotCharm } from '../../support/dot-charm.js';
import { startCharmhubServer, type CharmhubServer } from '../../support/charmhub-server.js';

let hub: CharmhubServer;
beforeAll(async () => {
  const database = packDotCharm(charmDir('database'));
  hub = await startCharmhubServer([
    {
      name: 'database',
      summary: 'A database for tests.',
      revisions: [
        { revision: 3, file: database, bases: ['ubuntu@22.04'], channels: ['latest/stable'] },
        { revision: 7, file: database, bases: ['ubuntu@22.04', 'ubuntu@20.04'], channels: ['latest/edge', '2/stable'] },
      ],
    },
    { name: 'broken', revisions: [{ revision: 1, file: database, bases: ['ubuntu@22.04'], channels: ['latest/stable'], fault: 'tamper' }] },
    { name: 'cut', revisions: [{ revision: 1, file: database, bases: ['ubuntu@22.04'], channels: ['latest/stable'], fault: 'truncate' }] },
    { name: 'huge', revisions: [{ revision: 1, file: database, bases: ['ubuntu@22.04'], channels: ['latest/stable'], fault: 'oversize' }] },
    { name: 'slow', revisions: [{ revision: 1, file: database, bases: ['ubuntu@22.04'], channels: ['latest/stable'], fault: 'stall' }] },
  ]);
});
afterAll(async () => {
  await hub.close();
});

describe('channels', () => {
  it('are read as Juju reads them: risk, track/risk, track alone, branches; latest dropped when normalized', () => {
    expect(parseChannel('stable')).toEqual({ track: '', risk: 'stable' });
    expect(parseChannel('14/edge')).toEqual({ track: '14', risk: 'edge' });
    expect(parseChannel('14')).toEqual({ track: '14', risk: 'stable' });
    expect(parseChannel('latest/stable/fix')).toEqual({ track: 'latest', risk: 'stable', branch: 'fix' });
    expect(normalizedChannel(parseChannel('latest/stable'))).toBe('stable');
    expect(fullChannel(parseChannel('edge'))).toBe('latest/edge');
    expect(() => parseChannel('14/bogus')).toThrow('risk in channel "14/bogus" not valid');
    expect(() => parseChannel('a/stable/b/c')).toThrow('channel is malformed and has too many components "a/stable/b/c"');
  });
});

describe('the refresh API', () => {
  it('sends an install action as Juju does and reads the revision, its download and bases', async () => {
    const client = charmhubClient(hub.url);
    const result = await client.refreshInstall({ name: 'database', channel: 'stable', base: { name: 'ubuntu', channel: '22.04' } });
    expect(hub.refreshes.at(-1)).toMatchObject({
      context: [],
      actions: [
        {
          action: 'install',
          'instance-key': 'drover',
          name: 'database',
          channel: 'stable',
          base: { architecture: 'amd64', name: 'ubuntu', channel: '22.04' },
        },
      ],
      fields: expect.arrayContaining(['download', 'resources', 'revision', 'bases']),
    });
    expect(result.charm).toMatchObject({
      name: 'database',
      revision: 3,
      download: { 'hash-sha-256': expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(result['effective-channel']).toBe('latest/stable');
  });

  it('resolves a channel, a revision, and a base Charmhub chose among those it offers', async () => {
    const client = charmhubClient(hub.url);
    expect(await resolveCharm(client, { name: 'database', channel: '2/stable', base: { name: 'ubuntu', channel: '20.04' } })).toMatchObject(
      {
        entity: { revision: 7 },
        channel: '2/stable',
        displayChannel: '2/stable',
        base: { name: 'ubuntu', channel: '20.04' },
      },
    );
    // Two bases in the channel and none asked for: Charmhub asks for one; the preferred one is taken.
    expect(
      await resolveCharm(client, { name: 'database', channel: 'edge', preferredBases: [{ name: 'ubuntu', channel: '22.04' }] }),
    ).toMatchObject({ entity: { revision: 7 }, channel: 'latest/edge', displayChannel: 'edge', base: { channel: '22.04' } });
    // By revision, it keeps the channel asked for.
    expect(await resolveCharm(client, { name: 'database', revision: 7, channel: 'edge' })).toMatchObject({
      entity: { revision: 7 },
      channel: 'latest/edge',
    });
  });

  it("refuses in Juju's words when nothing matches the channel and base, listing what there is", async () => {
    const client = charmhubClient(hub.url);
    await expect(resolveCharm(client, { name: 'database', channel: 'stable', base: { name: 'ubuntu', channel: '20.04' } })).rejects.toThrow(
      'selecting releases: charm or bundle not found for channel "stable", base "amd64/ubuntu/20.04/stable"\n' +
        'available releases are:\n' +
        '  channel "latest/edge": available bases are: ubuntu@22.04, ubuntu@20.04\n' +
        '  channel "2/stable": available bases are: ubuntu@22.04, ubuntu@20.04\n' +
        '  channel "latest/stable": available bases are: ubuntu@22.04',
    );
    await expect(resolveCharm(client, { name: 'nothing-here' })).rejects.toThrow(
      "resolving error: No charm or bundle with name 'nothing-here'.",
    );
    await expect(resolveCharm(charmhubClient('http://127.0.0.1:1'), { name: 'database' })).rejects.toThrow(
      /^resolving with preferred channel: POST "http:\/\/127.0.0.1:1\/v2\/charms\/refresh": /,
    );
  });
});

describe('info and find', () => {
  it('read the channel map, the default release and the search results', async () => {
    const client = charmhubClient(hub.url);
    const info = await client.info('database');
    expect(info).toMatchObject({ name: 'database', type: 'charm', result: { summary: 'A database for tests.' } });
    expect(info['channel-map'].map((m) => `${m.channel.name} ${m.channel.base.channel} ${m.revision.revision}`)).toEqual([
      'latest/edge 22.04 7',
      'latest/edge 20.04 7',
      '2/stable 22.04 7',
      '2/stable 20.04 7',
      'latest/stable 22.04 3',
    ]);
    await expect(client.info('nothing-here')).rejects.toThrow("No charm or bundle with name 'nothing-here'.");
    const found = await client.find('data');
    expect(found.results?.map((r) => r.name)).toEqual(['database']);
  });
});

describe('downloads', () => {
  const limits = { maxBytes: 10 * 1024 * 1024, timeoutMs: 5_000 };
  const download = async (name: string) => (await charmhubClient(hub.url).refreshInstall({ name, channel: 'stable' })).charm!.download;

  it('are checked against the sha256 Charmhub announced', async () => {
    const good = await download('database');
    const got = await downloadChecked(good.url, { size: good.size, sha256: good['hash-sha-256']! }, limits);
    expect(got.sha256).toBe(good['hash-sha-256']);
    const bad = await download('broken');
    await expect(downloadChecked(bad.url, { size: bad.size, sha256: bad['hash-sha-256']! }, limits)).rejects.toThrow(
      `does not match expected hash "${bad['hash-sha-256']}"`,
    );
    await expect(downloadChecked(good.url, { sha384: '0'.repeat(96) }, limits)).rejects.toThrow(/resource fingerprint ".*" does not match/);
  });

  it('refuse a body cut off, one larger than announced or than allowed, and one that does not finish in time', async () => {
    const cut = await download('cut');
    await expect(downloadChecked(cut.url, { size: cut.size, sha256: cut['hash-sha-256']! }, limits)).rejects.toThrow(/cannot download/);
    const huge = await download('huge');
    await expect(downloadChecked(huge.url, { size: huge.size, sha256: huge['hash-sha-256']! }, limits)).rejects.toThrow(
      `more than the ${huge.size} bytes expected`,
    );
    await expect(downloadChecked(huge.url, {}, { ...limits, maxBytes: 1000 })).rejects.toThrow('more than the 1000 bytes expected');
    await expect(downloadChecked(huge.url, { size: 5000 }, { ...limits, maxBytes: 1000 })).rejects.toThrow(
      '5000 bytes is more than the 1000 allowed',
    );
    const slow = await download('slow');
    await expect(downloadChecked(slow.url, { size: slow.size }, { ...limits, timeoutMs: 300 })).rejects.toThrow('not done in 0.3s');
  });
});
