// Cross-model offers end to end against a real API over DynamoDB Local: offer in one model,
// consume in another, both sides in status (Juju 3.6's `offers` and `application-endpoints`),
// the offer commands' output, and the refusals in Juju's words.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { charmDir, expectError, expectOk, startCliController, type CliHarness } from '../support/cli.js';

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
