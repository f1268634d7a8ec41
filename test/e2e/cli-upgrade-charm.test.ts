// `drover upgrade-charm` (and Juju 3's `refresh`) against a real API over DynamoDB Local.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getApplication } from '#shared/state/engine/reads.js';
import { charmDir, startCliController, type CliHarness } from '../support/cli.js';

let ctl: CliHarness;
beforeEach(async () => {
  ctl = await startCliController();
});
afterEach(async () => {
  await ctl.close();
});

describe('upgrade-charm', () => {
  it('uploads the charm directory as the next revision and says so as Juju 2.9 does; refresh is the same verb', async () => {
    expect((await ctl.run(['deploy', charmDir('database'), '--series', 'jammy'])).code).toBe(0);
    const before = (await getApplication(ctl.store, 'database'))?.charmArchive;
    const res = await ctl.run(['upgrade-charm', 'database', '--path', charmDir('database-v2')]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('Added charm "local:jammy/database-1" to the model.\n');
    const app = await getApplication(ctl.store, 'database');
    expect(app).toMatchObject({ charmUrl: 'local:jammy/database-1', config: { 'db-name': 'appdb', 'db-port': 5433 } });
    expect(app?.charmArchive).toMatch(/^[0-9a-f]{64}$/);
    expect(app?.charmArchive).not.toBe(before);

    const refreshed = await ctl.run(['refresh', 'database', '--path', charmDir('database-v2'), '--force-units']);
    expect(refreshed.stderr).toBe('Added charm "local:jammy/database-2" to the model.\n');
    expect(await getApplication(ctl.store, 'database')).toMatchObject({ charmUrl: 'local:jammy/database-2', forceUnits: true });
  });

  it("without --path refreshes from Charmhub, which a local charm's application cannot: Juju's words", async () => {
    expect((await ctl.run(['upgrade-charm', 'database'])).stderr).toBe('ERROR application "database" not found\n');
    expect((await ctl.run(['deploy', charmDir('database'), '--series', 'jammy'])).code).toBe(0);
    const res = await ctl.run(['upgrade-charm', 'database']);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('ERROR upgrading a local charm requires either --path or --switch\n');
    expect(await getApplication(ctl.store, 'database')).toMatchObject({ charmUrl: 'local:jammy/database-0' });
  });

  it('another charm is refused, and the application keeps its charm', async () => {
    await ctl.run(['deploy', charmDir('database'), '--series', 'jammy']);
    const res = await ctl.run(['upgrade-charm', 'database', '--path', charmDir('cli-mysql')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      'ERROR cannot upgrade "database" from charm "database" to "mysql": an upgrade keeps the charm\'s name; deploy "mysql" as a new application instead\n',
    );
    expect((await getApplication(ctl.store, 'database'))?.charmUrl).toBe('local:jammy/database-0');
  });
});
