// add-ssh-key and remove-ssh-key as plans (shared/domain/plans/ssh-keys.ts): one update of the
// model's config asserting the version it read, nothing when nothing changes.
import { describe, expect, it } from 'vitest';
import type { Model } from '#shared/domain/entities.js';
import { planAddSshKeys, planRemoveSshKeys } from '#shared/domain/plans/ssh-keys.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFXGHBWQxZAJ8gEVQqJLpDkpdIgyz6iBm9HZxi2D0Y48 fuzz@host';
const model = (config?: Record<string, string>, configVersion?: number): Model => ({
  name: 'default',
  life: 'alive',
  constraints: {},
  defaultSeries: 'jammy',
  constraintsVersion: 0,
  ...(config ? { config } : {}),
  ...(configVersion !== undefined ? { configVersion } : {}),
});

describe('ssh key plans', () => {
  it("add the key to the model's authorized-keys, asserting the config version read, and keep the other settings", () => {
    expect(planAddSshKeys(model({ 'logging-config': '<root>=DEBUG' }, 3), [KEY])).toEqual({
      changes: [
        {
          op: 'update',
          ref: { kind: 'model' },
          set: { config: { 'logging-config': '<root>=DEBUG', 'authorized-keys': KEY }, configVersion: 4 },
          expect: { equals: { configVersion: 3 } },
        },
      ],
      result: { errors: [null] },
    });
    // A model never configured: its version must still be absent.
    expect(planAddSshKeys(model(), [KEY]).changes[0]).toMatchObject({ expect: { absent: ['configVersion'] } });
  });

  it('change nothing when every key is refused or not found, and drop the setting with the last key', () => {
    expect(planAddSshKeys(model({ 'authorized-keys': KEY }, 1), [KEY])).toEqual({
      changes: [],
      result: { errors: [`duplicate ssh key: ${KEY}`] },
    });
    expect(planRemoveSshKeys(model({ 'authorized-keys': KEY }, 1), ['nobody']).changes).toEqual([]);
    expect(planRemoveSshKeys(model({ 'authorized-keys': KEY }, 1), ['fuzz@host']).changes).toEqual([
      { op: 'update', ref: { kind: 'model' }, set: { config: {}, configVersion: 2 }, expect: { equals: { configVersion: 1 } } },
    ]);
  });
});
