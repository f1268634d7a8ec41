import { beforeEach, describe, expect, it } from 'vitest';
import { setApplicationConfig, setExposed } from '#shared/state/operations/application-config.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { ensureModel } from '#shared/state/operations/model.js';
import { getApplication, getUnit } from '#shared/state/engine/reads.js';
import { resolveUnit } from '#shared/state/operations/resolve-unit.js';
import { setUnitStatus } from '#shared/state/operations/agent-status.js';
import { addUnits } from '#shared/state/operations/add-unit.js';
import type { Store } from '#shared/state/engine/store.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';

let store: Store;
beforeEach(async () => {
  store = await freshStore();
  await ensureModel(store);
  await deploy(store, { charm: charms.wordpress, numUnits: 0 });
});

describe('application config', () => {
  it('a change bumps the config version, so agents run config-changed', async () => {
    expect(await setApplicationConfig(store, 'wordpress', { set: { 'blog-title': 'News' } })).toEqual({ changed: true });
    expect(await getApplication(store, 'wordpress')).toMatchObject({ config: { 'blog-title': 'News' }, configVersion: 1 });
  });

  it('a change that changes nothing bumps nothing', async () => {
    expect(await setApplicationConfig(store, 'wordpress', { set: { 'blog-title': 'My Title' } })).toEqual({ changed: false });
    expect((await getApplication(store, 'wordpress'))?.configVersion).toBe(0);
  });

  it('--reset returns a key to its default', async () => {
    await setApplicationConfig(store, 'wordpress', { set: { 'blog-title': 'News' } });
    await setApplicationConfig(store, 'wordpress', { reset: ['blog-title'] });
    expect((await getApplication(store, 'wordpress'))?.config).toEqual({ 'blog-title': 'My Title' });
  });

  it('an unknown key is refused with the valid keys, and nothing changes', async () => {
    await expect(setApplicationConfig(store, 'wordpress', { set: { colour: 'red' } })).rejects.toThrow(
      'unknown option "colour"; valid options for charm "wordpress" are: blog-title',
    );
    expect((await getApplication(store, 'wordpress'))?.configVersion).toBe(0);
  });

  it('an unknown application is refused', async () => {
    await expect(setApplicationConfig(store, 'nope', { set: {} })).rejects.toThrow('application "nope" not found');
  });
});

describe('expose', () => {
  it('expose and unexpose set the flag', async () => {
    await setExposed(store, 'wordpress', true);
    expect((await getApplication(store, 'wordpress'))?.exposed).toBe(true);
    await setExposed(store, 'wordpress', false);
    expect((await getApplication(store, 'wordpress'))?.exposed).toBe(false);
  });
});

describe('resolved (charms-in-action.txt: the agent "enters an error state and awaits resolution")', () => {
  it('marks a unit in error for retry, once', async () => {
    await addUnits(store, 'wordpress');
    await expect(resolveUnit(store, 'wordpress/0', 'retry-hooks')).rejects.toThrow('unit "wordpress/0" is not in an error state');
    await setUnitStatus(store, 'wordpress/0', { agent: { current: 'error', message: 'hook failed: "install"' } });
    await resolveUnit(store, 'wordpress/0', 'retry-hooks');
    expect((await getUnit(store, 'wordpress/0'))?.resolved).toBe('retry-hooks');
    await expect(resolveUnit(store, 'wordpress/0', 'no-hooks')).rejects.toThrow(
      'cannot set resolved mode for unit "wordpress/0": already resolved',
    );
  });
});
