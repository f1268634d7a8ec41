// Cross-model offers end to end against a real API over DynamoDB Local: offer in one model,
// consume in another, both sides in status (Juju 3.6's `offers` and `application-endpoints`),
// the offer commands' output, and the refusals in Juju's words; and a relation across the two
// models on the local controller, whose agents run both charms' hooks.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startController } from '../../embedded/controller.js';
import { waitFor } from '../support/wait-for.js';
import { silentLogger } from '../support/silent-logger.js';
import { charmDir, expectError, expectOk, runCli, startCliController, writeClientConfig, type CliHarness } from '../support/cli.js';

let ctl: CliHarness;
beforeEach(async () => {
  ctl = await startCliController();
  await ok('add-model', 'other', '--no-switch');
  await ok('deploy', charmDir('cli-mysql'), '-n', '0');
  await ok('-m', 'other', 'deploy', charmDir('cli-wordpress'), '-n', '0');
});
afterEach(async () => {
  await ctl.close();
});

const ok = (...args: string[]) => expectOk(ctl, args);
const json = async (...args: string[]) => JSON.parse((await ok(...args, '--format', 'json')).stdout);

describe('offers across models', () => {
  it('offer <model>.<app>:<endpoint> <name>, consume <model>.<offer> <alias>: both sides show it in status', async () => {
    expect((await ok('offer', 'default.mysql:server', 'db')).stderr).toBe(
      'Application "mysql" endpoints [server] available at "admin/default.db"\n',
    );
    expect((await ok('-m', 'other', 'consume', 'default.db', 'dbalias')).stderr).toBe('Added default.db as dbalias\n');

    const offering = await json('status');
    // Where Juju 3.6 puts it: right after the applications.
    expect(Object.keys(offering).slice(0, 4)).toEqual(['model', 'machines', 'applications', 'offers']);
    expect(offering.offers).toEqual({
      db: {
        application: 'mysql',
        charm: expect.stringMatching(/mysql/),
        'total-connected-count': 0,
        'active-connected-count': 0,
        endpoints: { server: { interface: 'mysql', role: 'provider' } },
      },
    });
    const consuming = await json('-m', 'other', 'status');
    expect(Object.keys(consuming).slice(0, 4)).toEqual(['model', 'machines', 'applications', 'application-endpoints']);
    expect(consuming.offers).toBeUndefined();
    expect(consuming['application-endpoints'].dbalias).toMatchObject({
      url: 'admin/default.db',
      endpoints: { server: { interface: 'mysql', role: 'provider' } },
      'application-status': { current: expect.any(String) },
    });

    const listed = await json('offers');
    expect(listed).toEqual({
      db: {
        application: 'mysql',
        store: 'test',
        charm: expect.stringMatching(/mysql/),
        'offer-url': 'admin/default.db',
        endpoints: { server: { interface: 'mysql', role: 'provider' } },
      },
    });
    expect((await ok('offers')).stdout).toBe('Offer  User  Relation ID  Status  Endpoint  Interface  Role  Ingress subnets\ndb     -\n');
    expect(await json('-m', 'other', 'find-offers')).toEqual({
      'admin/default.db': { access: 'admin', endpoints: { server: { interface: 'mysql', role: 'provider' } } },
    });
    expect(await json('-m', 'other', 'show-offer', 'admin/default.db')).toEqual({
      'admin/default.db': {
        access: 'admin',
        endpoints: { server: { interface: 'mysql', role: 'provider' } },
        users: { admin: { access: 'admin' } },
      },
    });
  });

  it('consume takes <owner>/<model>.<offer> and <controller>:<owner>/<model>.<offer>; the alias defaults to the offer name', async () => {
    await ok('offer', 'mysql:server');
    await ok('-m', 'other', 'consume', 'test:admin/default.mysql', 'first');
    await ok('-m', 'other', 'consume', 'admin/default.mysql');
    expect(Object.keys((await json('-m', 'other', 'status'))['application-endpoints'])).toEqual(['first', 'mysql']);
  });

  it("refuses in Juju's words and changes nothing", async () => {
    await expectError(ctl, 2, ['offer'], 'an offer must at least specify application endpoint');
    await expectError(ctl, 2, ['offer', 'mysql'], 'endpoints must conform to format "<application-name>:<endpoint-name>[,...]"');
    await expectError(ctl, 1, ['offer', 'mysql:nope'], 'cannot add application offer "mysql": application "mysql" has no "nope" relation');
    await expectError(ctl, 2, ['-m', 'other', 'consume', 'default'], 'application offer URL is missing application');
    await expectError(ctl, 1, ['-m', 'other', 'consume', 'default.nope'], 'application offer "admin/default.nope" not found');
    await expectError(ctl, 1, ['remove-offer', 'nope'], 'application offer "nope" not found');
    expect(await json('offers')).toEqual({});
  });

  it('remove-offer, remove-saas: the consumer shows the offer terminated, then the SAAS goes', async () => {
    await ok('offer', 'mysql:server', 'db');
    await ok('-m', 'other', 'consume', 'default.db', 'dbalias');
    await expectError(ctl, 1, ['remove-application', 'mysql'], /application is used by 1 offer/);
    await ok('remove-offer', 'default.db');
    expect((await json('-m', 'other', 'status'))['application-endpoints'].dbalias['application-status']).toMatchObject({
      current: 'terminated',
      message: 'offer has been removed',
    });
    expect((await ok('-m', 'other', 'remove-saas', 'dbalias')).stderr).toBe('removing SAAS application dbalias\n');
    expect((await json('-m', 'other', 'status'))['application-endpoints']).toBeUndefined();
  });
});

/** What a unit's hooks logged (test/charms/database/lib/common.sh), wherever its model's machine directory is. */
function hookLog(dataDir: string, unit: string): string {
  const file = (readdirSync(dataDir, { recursive: true }) as string[]).find((f) =>
    f.endsWith(join('units', unit.replace('/', '-'), 'hook-log')),
  );
  return file ? readFileSync(join(dataDir, file), 'utf8') : '';
}

describe('a relation across models, on the local controller', () => {
  it(
    "integrate <app> <saas>: each model's hooks read the other's units and data; remove-relation ends it on both sides",
    { timeout: 240_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-xmodel-'));
      const controller = await startController({ dataDir, logger: silentLogger, timers: { reconcileMs: 2_000 } });
      const home = mkdtempSync(join(tmpdir(), 'drover-e2e-xmodel-home-'));
      await writeClientConfig(home, 'local', { local: { type: 'local', apiUrl: controller.apiUrl, token: controller.token } });
      const drover = async (...args: string[]) => {
        const res = await runCli(args, { DROVER_HOME: home });
        expect(res.code, `drover ${args.join(' ')}: ${res.stderr}`).toBe(0);
        return res;
      };
      try {
        await drover('deploy', charmDir('database'));
        await drover('offer', 'database:db', 'dbx');
        await drover('add-model', 'other');
        await drover('deploy', charmDir('client'));
        await drover('consume', 'default.dbx', 'dbalias');
        await drover('integrate', 'dbalias', 'client');

        // The client reads the database's settings under the SAAS's name; the database reads the
        // client's under the name its model gives the consumer, `remote-<hex>`.
        const clientSaw = await waitFor(
          "client/0's db-relation-changed with the database's credentials",
          () => hookLog(dataDir, 'client/0'),
          (log) =>
            /hook=db-relation-changed unit=client\/0 rel=db:\d+ remote=dbalias\/0 database=\S+ host=\S* password=pw-database-0 app=dbalias/.test(
              log,
            ),
          180_000,
        );
        expect(clientSaw).toMatch(/hook=db-relation-joined unit=client\/0 rel=db:\d+ remote=dbalias\/0/);
        const databaseSaw = await waitFor(
          "database/0's db-relation-changed with the client's name",
          () => hookLog(dataDir, 'database/0'),
          (log) => /hook=db-relation-changed unit=database\/0 rel=db:\d+ remote=remote-[0-9a-f]{32}\/0 client-name=client\/0 /.test(log),
          120_000,
        );
        expect(databaseSaw).toMatch(/members=remote-[0-9a-f]{32}\/0,/);

        const consuming = JSON.parse((await drover('status', '--format', 'json')).stdout);
        expect(consuming.applications.client.relations.db[0]['related-application']).toBe('dbalias');
        expect(consuming['application-endpoints'].dbalias.relations).toEqual({ db: ['client'] });
        const offering = JSON.parse((await drover('-m', 'default', 'status', '--format', 'json')).stdout);
        expect(offering.offers.dbx).toMatchObject({ 'active-connected-count': 1, 'total-connected-count': 1 });
        expect((await drover('status')).stdout).toMatch(/\nSAAS +Status +Store +URL\ndbalias +\S+ +local +admin\/default\.dbx\n/);
        expect((await drover('-m', 'default', 'status')).stdout).toMatch(
          /\nOffer +Application +Charm +Rev +Connected +Endpoint +Interface +Role\ndbx +database +database +\d+ +1\/1 +db +dbtest +provider\n/,
        );

        await drover('remove-relation', 'client', 'dbalias');
        await waitFor(
          'both sides to run db-relation-broken',
          () => [hookLog(dataDir, 'client/0'), hookLog(dataDir, 'database/0')],
          (logs) => logs.every((log) => log.includes('hook=db-relation-broken')),
          120_000,
        );
        await waitFor(
          'the offer to have no connection',
          async () => JSON.parse((await drover('-m', 'default', 'status', '--format', 'json')).stdout).offers.dbx['total-connected-count'],
          (count) => count === 0,
          60_000,
        );
      } finally {
        await controller.stop();
      }
    },
  );
});
