// The model's secrets end to end against a real API over DynamoDB Local, as jubilant's
// test_secrets drives them (https://github.com/canonical/jubilant/blob/main/tests/integration/test_secrets.py):
// add-secret --file, update-secret, secrets and show-secret in Juju 3.6's JSON (keyed by the
// secret's id), grant/revoke to applications, remove-secret, and refusals in Juju's words.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
const json = async (...args: string[]) =>
  JSON.parse((await ok(...args, '--format', 'json')).stdout) as Record<string, Record<string, unknown>>;

/** jubilant writes the content as YAML to a file and passes --file. */
async function contentFile(content: Record<string, string>): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'drover-secret-')), 'content.yaml');
  await writeFile(
    path,
    Object.entries(content)
      .map(([k, v]) => `${k}: ${v}\n`)
      .join(''),
  );
  return path;
}

describe('user secrets', () => {
  it('adds, updates, lists and shows secrets as jubilant parses them', async () => {
    const add = await ok(
      'add-secret',
      'sec1',
      '--info',
      'A description.',
      '--file',
      await contentFile({ username: 'usr', password: 'hunter2' }),
    );
    const uri1 = add.stdout.trim();
    expect(uri1).toMatch(/^secret:[0-9a-v]{20}$/);
    const id1 = uri1.slice('secret:'.length);

    const uri2 = (
      await ok('add-secret', 'sec2', '--info', 'A description.', '--file', await contentFile({ username: 'usr', password: 'hunter2' }))
    ).stdout.trim();
    const id2 = uri2.slice('secret:'.length);
    await ok(
      'update-secret',
      'sec2',
      '--info',
      'A new description.',
      '--file',
      await contentFile({ username: 'usr2', password: 'hunter3' }),
    );

    const shown2 = (await json('show-secret', 'sec2', '--reveal'))[id2]!;
    expect(shown2).toMatchObject({ name: 'sec2', revision: 2, owner: '<model>', description: 'A new description.' });
    expect(shown2.content).toEqual({ Data: { username: 'usr2', password: 'hunter3' } });
    expect(shown2.checksum).toMatch(/^[0-9a-f]{64}$/);

    const all = await json('secrets');
    expect(Object.keys(all).sort()).toEqual([id1, id2].sort());
    expect(all[id1]).toMatchObject({ revision: 1, owner: '<model>', name: 'sec1', description: 'A description.' });
    expect(all[id1]).not.toHaveProperty('content');
    expect(Math.abs(Date.parse(all[id2]!.created as string) - Date.now())).toBeLessThan(3_600_000);

    const shown1 = (await json('show-secret', 'sec1'))[id1]!;
    expect(shown1.created).toBe(shown1.updated);
    expect(shown1).not.toHaveProperty('content');
    expect((await json('show-secret', 'sec1', '--reveal'))[id1]!.content).toEqual({ Data: { username: 'usr', password: 'hunter2' } });
    expect((await json('show-secret', 'sec2', '--reveal', '--revision', '1'))[id2]!.content).toEqual({
      Data: { username: 'usr', password: 'hunter2' },
    });
    const revisions = (await json('show-secret', 'sec2', '--revisions'))[id2]!;
    expect(revisions).not.toHaveProperty('content');
    expect((revisions.revisions as { revision: number }[]).map((r) => r.revision)).toEqual([1, 2]);
    expect((await json('show-secret', uri2))[id2]!.name).toBe('sec2');

    // The table never shows content; YAML is show-secret's default.
    const table = (await ok('secrets')).stdout;
    expect(table.split('\n')[0]).toMatch(/^ID\s+Name\s+Owner\s+Rotation\s+Revision\s+Last updated$/);
    expect(table).not.toContain('hunter');
    expect((await ok('show-secret', 'sec1')).stdout).toContain(`${id1}:\n  revision: 1\n  owner: <model>\n`);
  });

  it('takes key=value and key#base64= arguments, and the same content makes no new revision', async () => {
    const uri = (await ok('add-secret', 'creds', 'user=admin', 'token#base64=aGk=')).stdout.trim();
    const id = uri.slice('secret:'.length);
    expect((await json('show-secret', uri, '--reveal'))[id]!.content).toEqual({ Data: { user: 'admin', token: 'hi' } });
    await ok('update-secret', 'creds', 'user=admin', 'token#base64=aGk=');
    expect((await json('show-secret', 'creds'))[id]!.revision).toBe(1);
  });

  it('grants and revokes access to applications, and removes a revision, then the secret', async () => {
    await ok('deploy', charmDir('database'), '-n', '0');
    const uri = (await ok('add-secret', 'sec', 'password=one')).stdout.trim();
    const id = uri.slice('secret:'.length);
    await ok('grant-secret', 'sec', 'database');
    expect((await json('show-secret', 'sec'))[id]!.access).toEqual([
      { target: 'application-database', scope: expect.stringMatching(/^model-/), role: 'view' },
    ]);
    await ok('revoke-secret', 'sec', 'database');
    expect((await json('show-secret', 'sec'))[id]).not.toHaveProperty('access');

    await ok('update-secret', 'sec', 'password=two');
    await ok('remove-secret', 'sec', '--revision', '1');
    expect((await json('show-secret', 'sec', '--revisions'))[id]!.revisions).toHaveLength(1);
    await ok('remove-secret', uri);
    expect(await json('secrets')).toEqual({});
  });

  it("refuses bad requests in Juju's words, naming no content, and changes nothing", async () => {
    await ok('add-secret', 'sec', 'password=s3cr3t-value');
    await expectError(ctl, 1, ['add-secret', 'sec', 'password=other'], 'secret with name "sec" already exists');
    await expectError(ctl, 2, ['add-secret', 'bad', 'Password=x'], 'key "Password" not valid');
    await expectError(ctl, 2, ['add-secret', 'empty'], 'missing secret value or filename');
    await expectError(ctl, 1, ['show-secret', 'nope'], 'secret "nope" not found');
    await expectError(ctl, 1, ['grant-secret', 'sec', 'ghost'], 'application "ghost" not found');
    await expectError(ctl, 1, ['remove-secret', 'sec', '--revision', '7'], /ERROR secret revision secret:[0-9a-v]{20}\/7 not found/);
    await expectError(ctl, 2, ['show-secret', 'sec', '--reveal', '--revisions'], 'specify either --revisions or --reveal but not both');
    const all = await json('secrets');
    expect(Object.values(all)).toHaveLength(1);
    expect(JSON.stringify(all)).not.toContain('s3cr3t');
  });
});
