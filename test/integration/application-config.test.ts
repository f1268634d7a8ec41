import { beforeEach, describe, expect, it } from 'vitest';
import { setApplicationConfig, setExposed } from '../../shared/state/application-config.js';
import { deploy } from '../../shared/state/deploy.js';
import { ensureModel } from '../../shared/state/model.js';
import { getApplication } from '../../shared/state/reads.js';
import type { Store } from '../../shared/state/store.js';
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
