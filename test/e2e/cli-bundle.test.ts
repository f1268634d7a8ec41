// `drover deploy <bundle>` against a real API over DynamoDB Local: a whole model from one YAML
// file (placement on the bundle's machines, beside another application's units, and on new ones),
// printed first, made idempotently, changed by a changed bundle, and refused whole, with every
// problem listed, when it is wrong.
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { StatusDoc } from '#shared/domain/status-document.js';
import { getApplication } from '#shared/state/engine/reads.js';
import { storeOfModel } from '#shared/state/queries/models.js';
import { charmDir, expectOk, startCliController, type CliHarness } from '../support/cli.js';

let ctl: CliHarness;
let dir: string;
beforeEach(async () => {
  ctl = await startCliController();
  dir = mkdtempSync(join(tmpdir(), 'drover-bundle-'));
  // Charm paths are relative to the bundle, as Juju reads them.
  for (const charm of ['database', 'client', 'cli-logging']) cpSync(charmDir(charm), join(dir, 'charms', charm), { recursive: true });
});
afterEach(async () => {
  await ctl.close();
  rmSync(dir, { recursive: true, force: true });
});

const bundle = (options: { dbName?: string; databaseUnits?: number } = {}) => `
series: jammy
applications:
  database:
    charm: ./charms/database
    num_units: ${options.databaseUnits ?? 2}
    to: ["0", new]
    options:
      db-name: ${options.dbName ?? 'appdb'}
  client:
    charm: ./charms/client
    num_units: 2
    to: [database/0, "0"]
    constraints: mem=2G
    expose: true
machines:
  "0": {}
relations:
  - [client:db, database:db]
`;

const write = (text: string, name = 'bundle.yaml') => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

async function status(): Promise<StatusDoc> {
  return JSON.parse((await expectOk(ctl, ['status', '--format', 'json'])).stdout) as StatusDoc;
}

describe('deploy <bundle>', () => {
  it('prints its changes with --dry-run and makes none', async () => {
    const res = await expectOk(ctl, ['deploy', write(bundle()), '--dry-run']);
    expect(res.stderr).toBe(
      [
        'Changes to deploy bundle:',
        '- deploy application database from local charm database on jammy with its options',
        '- deploy application client from local charm client on jammy',
        '- add new machine 0',
        '- add unit database/0 to new machine 0',
        '- add unit database/1 to new machine',
        '- add unit client/0 to database/0',
        '- add unit client/1 to new machine 0',
        '- expose all endpoints of client and allow access from CIDRs 0.0.0.0/0 and ::/0',
        '- add relation client:db - database:db',
        '',
      ].join('\n'),
    );
    expect(Object.keys((await status()).applications)).toEqual([]);
  });

  it('deploys the whole model: units on the bundle machine, beside another unit, and on a new machine; related and exposed', async () => {
    write(bundle());
    const res = await expectOk(ctl, ['deploy', dir]); // a directory holding bundle.yaml
    expect(res.stderr).toMatch(/^Executing changes:\n/);
    expect(res.stderr).toMatch(/Deploy of bundle completed\.\n$/);
    const doc = await status();
    const machineOf = (unit: string) => doc.applications[unit.split('/')[0]!]!.units![unit]!.machine;
    const zero = machineOf('database/0');
    expect(machineOf('database/1')).not.toBe(zero);
    expect(machineOf('client/0')).toBe(zero);
    expect(machineOf('client/1')).toBe(zero);
    expect(Object.keys(doc.machines)).toHaveLength(2);
    expect(doc.applications.client!.exposed).toBe(true);
    expect((doc.relations ?? []).map((r) => r.key)).toEqual(['client:db database:db']);
    expect(await getApplication(ctl.store, 'database')).toMatchObject({ config: { 'db-name': 'appdb' } });
    expect((await expectOk(ctl, ['get-constraints', 'client'])).stdout).toContain('mem=2048M');
  });

  it('deployed twice changes nothing; a changed bundle adds what is missing and sets what differs', async () => {
    const path = write(bundle());
    await expectOk(ctl, ['deploy', path]);
    const before = await status();
    expect((await expectOk(ctl, ['deploy', path])).stderr).toBe('No changes to apply.\n');
    expect(Object.keys((await status()).machines)).toEqual(Object.keys(before.machines));

    write(bundle({ dbName: 'orders', databaseUnits: 4 }));
    const res = await expectOk(ctl, ['deploy', path]);
    expect(res.stderr).toBe(
      [
        'Executing changes:',
        '- set application options for database: db-name',
        '- add unit database/2 to new machine',
        '- add unit database/3 to new machine',
        'Deploy of bundle completed.',
        '',
      ].join('\n'),
    );
    const after = await status();
    const added = ['database/2', 'database/3'].map((unit) => after.applications.database!.units![unit]!.machine);
    expect(new Set([...added, ...Object.keys(before.machines)]).size).toBe(Object.keys(before.machines).length + 2);
    expect(await getApplication(ctl.store, 'database')).toMatchObject({ config: { 'db-name': 'orders' } });
  });

  it('is refused whole, every problem listed, and nothing is deployed', async () => {
    const path = write(`
applications:
  database:
    charm: ./charms/database
    num_units: 1
    to: ["7"]
  client:
    charm: ./charms/missing
  logging:
    charm: ./charms/cli-logging
    num_units: 1
  mysql:
    charm: cs:mysql
relations:
  - [database:nope, logging]
`);
    const res = await ctl.run(['deploy', path]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`ERROR cannot deploy bundle "${path}": `);
    expect(res.stderr).toContain('nothing was deployed');
    for (const problem of [
      'placement "7" refers to a machine not defined in this bundle',
      'charm path in application "client": charm directory',
      'application "logging" is subordinate but has non-zero num_units',
      'application "mysql": charm "cs:mysql" is neither a local path ("./x") nor a Charmhub charm name',
      'cannot relate database:nope and logging: application "database" has no "nope" relation',
    ])
      expect(res.stderr).toContain(`- ${problem}`);
    expect(Object.keys((await status()).applications)).toEqual([]);
  });

  it('whose second application the controller would refuse (a 300 KB option, a charm with a link out) deploys nothing', async () => {
    symlinkSync('../../../..', join(dir, 'charms', 'client', 'escape'));
    const path = write(`
applications:
  database:
    charm: ./charms/database
    num_units: 1
  client:
    charm: ./charms/client
    num_units: 1
  other:
    charm: ./charms/database
    num_units: 1
    options:
      db-name: ${'x'.repeat(300_000)}
`);
    const res = await ctl.run(['deploy', path]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`ERROR cannot deploy bundle "${path}": `);
    expect(res.stderr).toMatch(
      /- cannot deploy application "other": max allowed size \(163840\) of the config of application "other" exceeded/,
    );
    expect(res.stderr).not.toContain('Executing changes');
    expect(Object.keys((await status()).applications)).toEqual([]);
    // The option fixed, the charm with a link out is still refused before any change.
    const fixed = write(readFileSync(path, 'utf8').replace(/db-name: x+/, 'db-name: small'));
    const again = await ctl.run(['deploy', fixed]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `- application "client": charm "${join(dir, 'charms', 'client')}": invalid charm archive: symlink "escape" leaves the charm`,
    );
    expect(again.stderr).toContain('nothing was deployed');
    expect(again.stderr).not.toContain('Executing changes');
    expect(Object.keys((await status()).applications)).toEqual([]);
  });

  it('a file that is not valid YAML, or repeats an application, is refused with each error and its line', async () => {
    const path = write('applications:\n  database:\n    charm: ./charms/database\n  database:\n    charm: ./charms/database\n');
    const res = await ctl.run(['deploy', path]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('- invalid YAML: Map keys must be unique at line 4, column 3');
    const flags = await ctl.run(['deploy', path, '-n', '2']);
    expect(flags.stderr).toBe('ERROR options provided but not supported when deploying a bundle: --num-units\n');
  });
});

/** The model's shape, whatever its machine numbers: each application's units grouped by machine. */
function shape(doc: StatusDoc) {
  const byMachine = new Map<string, string[]>();
  for (const a of Object.values(doc.applications))
    for (const [unit, u] of Object.entries(a.units ?? {})) byMachine.set(u.machine!, [...(byMachine.get(u.machine!) ?? []), unit].sort());
  return {
    applications: Object.fromEntries(
      Object.entries(doc.applications).map(([app, a]) => [app, { units: Object.keys(a.units ?? {}).length, exposed: a.exposed }]),
    ),
    colocated: [...byMachine.values()].map((units) => units.join(' ')).sort(),
    relations: (doc.relations ?? []).map((r) => r.key).sort(),
  };
}

describe('export-bundle and diff-bundle', () => {
  it('exports the model as a bundle that deploys back to the same shape in a fresh model', async () => {
    await expectOk(ctl, ['deploy', write(bundle({ dbName: 'orders' }))]);
    await expectOk(ctl, ['export-bundle', '--filename', join(dir, 'exported.yaml')]);
    const exported = parse(readFileSync(join(dir, 'exported.yaml'), 'utf8')) as { applications: Record<string, Record<string, unknown>> };
    expect(exported.applications.database).toMatchObject({ charm: './database', num_units: 2, options: { 'db-name': 'orders' } });
    expect(exported.applications.client).toMatchObject({ charm: './client', num_units: 2, expose: true });
    // The charms where the exported bundle names them, and a fresh model beside the first to deploy it in.
    for (const charm of ['database', 'client']) cpSync(charmDir(charm), join(dir, charm), { recursive: true });
    await expectOk(ctl, ['add-model', 'copy', '--no-switch']);
    await expectOk(ctl, ['-m', 'copy', 'deploy', join(dir, 'exported.yaml')]);
    const again = JSON.parse((await expectOk(ctl, ['-m', 'copy', 'status', '--format', 'json'])).stdout) as StatusDoc;
    expect(again.model.name).toBe('copy');
    expect(shape(again)).toEqual(shape(await status()));
    expect(await getApplication(await storeOfModel(ctl.store, 'copy'), 'database')).toMatchObject({ config: { 'db-name': 'orders' } });
    // Exported again, the copy is the same bundle.
    await expectOk(ctl, ['-m', 'copy', 'export-bundle', '--filename', join(dir, 'copy.yaml')]);
    expect(readFileSync(join(dir, 'copy.yaml'), 'utf8')).toBe(readFileSync(join(dir, 'exported.yaml'), 'utf8'));
  });

  it('diff-bundle shows what differs on each side, and an empty mapping when nothing does', async () => {
    const path = write(bundle());
    await expectOk(ctl, ['deploy', path]);
    expect((await expectOk(ctl, ['diff-bundle', path])).stdout).toBe('{}\n');
    write(bundle({ dbName: 'orders', databaseUnits: 3 }));
    await expectOk(ctl, ['deploy', charmDir('cli-logging')]);
    expect(parse((await expectOk(ctl, ['diff-bundle', path])).stdout)).toEqual({
      applications: {
        database: { options: { 'db-name': { bundle: 'orders', model: 'appdb' } }, num_units: { bundle: 3, model: 2 } },
        logging: { missing: 'bundle' },
      },
    });
  });
});
