// A secret goes with its owner (docs/lifecycle-rules.md): the transaction that removes a unit or
// application that has owned a secret schedules an `ownerSecrets` cleanup, which deletes its
// secrets one at a time, each with its revisions, consumer records and labels, and leaves the
// model's other secrets alone, including those of an application deployed again under the name.
import { beforeEach, describe, expect, it } from 'vitest';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { listCleanups, runAllCleanups } from '#shared/state/operations/cleanup/run-cleanups.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { destroyApplication } from '#shared/state/operations/destroy-application.js';
import { destroyUnit } from '#shared/state/operations/destroy-unit.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { removeUnit } from '#shared/state/operations/remove-unit.js';
import { ensureUnitDead } from '#shared/state/operations/unit-dead.js';
import { addSecret, addUnitSecret, getUnitSecretContent } from '#shared/state/operations/secrets.js';
import { claimLeadership } from '#shared/state/operations/leadership.js';
import { getApplication, getUnit } from '#shared/state/engine/reads.js';
import { getSecretLabel, listSecretConsumers, listSecretRevisions, listSecrets } from '#shared/state/queries/secrets.js';
import { parseSecretUri } from '#shared/domain/secrets.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
});

const content = { password: Buffer.from('pa55word').toString('base64') };
const idOf = (uri: string) => parseSecretUri(uri)!;

/** Takes a started unit through Dying and Dead to removed, as its agents do. */
async function removeStarted(unit: string) {
  await destroyUnit(store, unit);
  await ensureUnitDead(store, unit);
  await removeUnit(store, unit);
}

describe('a secret goes with its owner', () => {
  it("a removed unit's secrets go, with their revisions, consumers and labels; others stay", async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 2 });
    for (const u of ['mysql/0', 'mysql/1']) await setUnitStatus(store, u, { agent: { current: 'idle' } });
    const { uri } = await addUnitSecret(store, 'mysql/0', { owner: 'unit', content, label: 'mine' });
    const { uri: other } = await addUnitSecret(store, 'mysql/1', { owner: 'unit', content, label: 'mine' });
    const { uri: users } = await addSecret(store, { owner: { kind: 'model' }, content, label: 'user-one' });
    expect((await getUnit(store, 'mysql/0'))?.ownsSecrets).toBe(true);

    await removeStarted('mysql/0');
    expect(await listCleanups(store)).toEqual([expect.objectContaining({ kind: 'ownerSecrets', target: 'unit-mysql/0' })]);
    await runAllCleanups(store);
    expect((await listSecrets(store)).map((s) => s.id).sort()).toEqual([idOf(other), idOf(users)].sort());
    expect(await listSecretRevisions(store, idOf(uri))).toEqual([]);
    expect(await getSecretLabel(store, 'unit-mysql/0', 'mine')).toBeUndefined();
    expect(await getSecretLabel(store, 'unit-mysql/1', 'mine')).toEqual({ id: idOf(other) });
    expect(await listCleanups(store)).toEqual([]);
  });

  it("a removed application's secrets go, consumer records included; one deployed again under the name keeps its own", async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    await deploy(store, { charm: charms.wordpress, numUnits: 1 });
    await setUnitStatus(store, 'mysql/0', { agent: { current: 'idle' } });
    expect(await claimLeadership(store, 'mysql/0', 60_000)).toMatchObject({ leader: true });
    const secrets = [];
    for (const label of ['one', 'two', 'three'])
      secrets.push((await addUnitSecret(store, 'mysql/0', { owner: 'application', content, label })).uri);
    // A consumer record (wordpress/0 read it): it goes with the secret.
    const [first] = (await listSecrets(store)).filter((s) => s.label === 'one');
    await getUnitSecretContent(store, 'wordpress/0', first!, {});
    expect(await listSecretConsumers(store, first!.id)).toHaveLength(1);

    await destroyApplication(store, 'mysql');
    await runAllCleanups(store); // the units cleanup sets mysql/0 Dying
    await ensureUnitDead(store, 'mysql/0');
    await removeUnit(store, 'mysql/0'); // the last unit: the application goes too
    expect(await getApplication(store, 'mysql')).toBeUndefined();
    expect(await listCleanups(store)).toEqual([expect.objectContaining({ kind: 'ownerSecrets', target: 'application-mysql' })]);

    // Deployed again before the cleanup runs: its own secret is not the old one's.
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    expect(await claimLeadership(store, 'mysql/1', 60_000)).toMatchObject({ leader: true });
    const { uri: fresh } = await addUnitSecret(store, 'mysql/1', { owner: 'application', content, label: 'fresh' });
    await runAllCleanups(store);
    const left = (await listSecrets(store)).map((s) => s.id);
    for (const uri of secrets) {
      expect(left).not.toContain(idOf(uri));
      expect(await listSecretConsumers(store, idOf(uri))).toEqual([]);
    }
    expect(left).toEqual([idOf(fresh)]);
  });

  it('an owner that never owned a secret schedules nothing', async () => {
    await deploy(store, { charm: charms.mysql, numUnits: 1 });
    await setUnitStatus(store, 'mysql/0', { agent: { current: 'idle' } });
    await removeStarted('mysql/0');
    expect(await listCleanups(store)).toEqual([]);
  });
});
