import { describe, expect, it } from 'vitest';
import { planHint } from '#shared/messaging/hint-plan.js';

const status = (current: string) => ({ current, since: '2024-01-01T00:00:00Z' });
const machine = { id: '3', life: 'alive', principals: ['mysql/0'], agentStatus: status('pending'), instanceStatus: status('pending') };
const unit = {
  name: 'mysql/0',
  application: 'mysql',
  life: 'alive',
  machine: '3',
  scopes: [],
  subordinates: [],
  agentStatus: status('idle'),
  workloadStatus: status('active'),
};
const app = {
  name: 'mysql',
  life: 'alive',
  unitCount: 2,
  config: {},
  configVersion: 0,
  relations: [],
  exposed: false,
  charmUrl: 'local:mysql',
};
const relation = {
  key: 'wordpress:db mysql:server',
  id: 4,
  life: 'alive',
  scope: 'global',
  unitCount: 0,
  endpoints: [{ application: 'wordpress' }, { application: 'mysql' }],
};

describe('what a stream record hints', () => {
  it('a machine hints itself, but not when removed or when only its status changed', () => {
    expect(planHint({ kind: 'machine', oldImage: machine, newImage: { ...machine, life: 'dying' } })).toEqual({
      kind: 'hint',
      hint: { kind: 'machine', id: '3' },
      lookups: [{ kind: 'machines', ids: ['3'] }],
    });
    expect(planHint({ kind: 'machine', oldImage: machine })).toMatchObject({ kind: 'none' });
    expect(planHint({ kind: 'machine', oldImage: machine, newImage: { ...machine, agentStatus: status('started') } })).toMatchObject({
      kind: 'none',
    });
  });

  it('a unit hints the machine it is on and the machine it left', () => {
    expect(planHint({ kind: 'unit', oldImage: unit, newImage: { ...unit, machine: '5' } })).toMatchObject({
      lookups: [{ kind: 'machines', ids: ['3', '5'] }],
    });
    expect(planHint({ kind: 'unit', oldImage: unit })).toMatchObject({
      hint: { kind: 'unit', id: 'mysql/0' },
      lookups: [{ kind: 'machines', ids: ['3'] }],
    });
    expect(planHint({ kind: 'unit', oldImage: unit, newImage: { ...unit, workloadStatus: status('blocked') } })).toMatchObject({
      kind: 'none',
    });
    expect(planHint({ kind: 'unit', newImage: { ...unit, machine: undefined } })).toMatchObject({ kind: 'none' });
  });

  it('an application fans out to its units on Dying, config, charm, resource or expose changes — not on its unit count', () => {
    const fanOut = {
      kind: 'hint',
      hint: { kind: 'application', id: 'mysql' },
      lookups: [{ kind: 'unitsOfApplications', applications: ['mysql'] }],
    };
    expect(planHint({ kind: 'application', oldImage: app, newImage: { ...app, life: 'dying' } })).toEqual(fanOut);
    expect(planHint({ kind: 'application', oldImage: app, newImage: { ...app, config: { a: 1 }, configVersion: 1 } })).toEqual(fanOut);
    // attach-resource: the units run upgrade-charm.
    expect(planHint({ kind: 'application', oldImage: app, newImage: { ...app, charmModifiedVersion: 1 } })).toEqual(fanOut);
    expect(planHint({ kind: 'application', oldImage: app, newImage: { ...app, unitCount: 3 } })).toMatchObject({ kind: 'none' });
    expect(planHint({ kind: 'application', newImage: app })).toMatchObject({ kind: 'none' });
  });

  it('a relation fans out to both applications when created or when its life changes — not on its unit count', () => {
    const fanOut = { lookups: [{ kind: 'unitsOfApplications', applications: ['wordpress', 'mysql'] }] };
    expect(planHint({ kind: 'relation', newImage: relation })).toMatchObject(fanOut);
    expect(planHint({ kind: 'relation', oldImage: relation, newImage: { ...relation, life: 'dying' } })).toMatchObject(fanOut);
    expect(planHint({ kind: 'relation', oldImage: relation, newImage: { ...relation, unitCount: 1 } })).toMatchObject({ kind: 'none' });
    expect(planHint({ kind: 'relation', oldImage: relation })).toMatchObject({ kind: 'none' });
  });

  it("a scope member, entering or leaving, tells the relation's units", () => {
    const member = { relation: relation.key, unit: 'mysql/0' };
    const expected = {
      hint: { kind: 'relation', id: relation.key },
      lookups: [{ kind: 'scopeChanged', relation: relation.key, unit: 'mysql/0' }],
    };
    expect(planHint({ kind: 'scope', newImage: member })).toMatchObject(expected);
    expect(planHint({ kind: 'scope', oldImage: member })).toMatchObject(expected);
  });

  it('settings tell the scope when they change, not when deleted or rewritten unchanged', () => {
    const settings = { relationId: 4, unit: 'mysql/0', settings: { host: 'a' }, version: 1 };
    expect(
      planHint({ kind: 'settings', oldImage: settings, newImage: { ...settings, settings: { host: 'b' }, version: 2 } }),
    ).toMatchObject({
      hint: { kind: 'settings', id: '4:mysql/0' },
      lookups: [{ kind: 'settingsChanged', relationId: 4, unit: 'mysql/0' }],
    });
    expect(planHint({ kind: 'settings', oldImage: settings })).toMatchObject({ kind: 'none' });
    expect(planHint({ kind: 'settings', oldImage: settings, newImage: { ...settings, version: 2 } })).toMatchObject({ kind: 'none' });
  });

  it('models, sequences and cleanups concern no agent', () => {
    for (const kind of ['model', 'sequence', 'cleanup'])
      expect(planHint({ kind, newImage: { name: 'x' } })).toMatchObject({ kind: 'none' });
  });

  it("an agent's presence concerns no agent: a heartbeat wakes nobody", () => {
    const seen = { machine: '3', seenAt: '2024-01-01T00:00:00.000Z', expiresAt: 1704153600 };
    expect(planHint({ kind: 'presence', newImage: seen })).toMatchObject({ kind: 'none' });
    expect(planHint({ kind: 'presence', oldImage: seen, newImage: { ...seen, seenAt: '2024-01-01T00:01:00.000Z' } })).toMatchObject({
      kind: 'none',
    });
    expect(planHint({ kind: 'presence', oldImage: seen })).toMatchObject({ kind: 'none' });
  });

  it('a record without a drover kind or without images is malformed', () => {
    expect(planHint({ newImage: { machine: '0' } })).toMatchObject({ kind: 'malformed' });
    expect(planHint({ kind: 'gadget', newImage: {} })).toMatchObject({ kind: 'malformed' });
    expect(planHint({ kind: 'unit' })).toMatchObject({ kind: 'malformed' });
  });
});

describe('what leadership records hint', () => {
  const lease = { application: 'mysql', holder: 'mysql/0', expiresAt: '2024-01-01T00:01:00Z' };
  const toApp = {
    kind: 'hint',
    hint: { kind: 'application', id: 'mysql' },
    lookups: [{ kind: 'unitsOfApplications', applications: ['mysql'] }],
  };

  it('a lease hints its application’s units when its holder changes or it is released, not when extended', () => {
    expect(planHint({ kind: 'lease', newImage: lease })).toEqual(toApp);
    expect(planHint({ kind: 'lease', oldImage: lease })).toEqual(toApp);
    expect(planHint({ kind: 'lease', oldImage: lease, newImage: { ...lease, holder: 'mysql/1' } })).toEqual(toApp);
    expect(planHint({ kind: 'lease', oldImage: lease, newImage: { ...lease, expiresAt: '2024-01-01T00:02:00Z' } }).kind).toBe('none');
  });

  it('leader settings hint the application’s units when they change', () => {
    const settings = { application: 'mysql', settings: { a: '1' }, version: 1 };
    expect(planHint({ kind: 'leaderSettings', oldImage: settings, newImage: { ...settings, settings: { a: '2' }, version: 2 } })).toEqual(
      toApp,
    );
    expect(planHint({ kind: 'leaderSettings', oldImage: settings, newImage: settings }).kind).toBe('none');
  });

  it('an application bag hints the units in the relation’s scope', () => {
    const bag = { relationId: 4, relation: relation.key, application: 'mysql', settings: { host: 'db' }, version: 1 };
    expect(planHint({ kind: 'appSettings', newImage: bag })).toEqual({
      kind: 'hint',
      hint: { kind: 'relation', id: relation.key },
      lookups: [{ kind: 'scopeChanged', relation: relation.key, unit: 'mysql' }],
    });
    expect(planHint({ kind: 'appSettings', oldImage: bag }).kind).toBe('none');
  });
});

describe('model config', () => {
  const model = { name: 'default', life: 'alive', constraints: {}, defaultSeries: 'jammy', constraintsVersion: 0 };
  it('a model-config change hints every machine; the model created or its constraints changed hint none', () => {
    const configured = { ...model, config: { 'update-status-hook-interval': '10m' }, configVersion: 1 };
    expect(planHint({ kind: 'model', oldImage: model, newImage: configured })).toEqual({
      kind: 'hint',
      hint: { kind: 'model', id: '' },
      lookups: [{ kind: 'allMachines' }],
    });
    expect(planHint({ kind: 'model', newImage: model }).kind).toBe('none');
    expect(
      planHint({ kind: 'model', oldImage: configured, newImage: { ...configured, constraints: { mem: 4096 }, constraintsVersion: 1 } })
        .kind,
    ).toBe('none');
  });
});

describe('what secret records hint', () => {
  const secret = {
    id: 'cu5ff0d8kgbs73a1opb0',
    owner: { kind: 'application', name: 'mysql' },
    latestRevision: 1,
    created: '2024-01-01T00:00:00Z',
    updated: '2024-01-01T00:00:00Z',
    grants: [{ target: 'application-wordpress', scope: 'relation-wordpress:db mysql:server', role: 'view', relationId: 4 }],
  };
  const toOwnerAndGrantees = {
    kind: 'hint',
    hint: { kind: 'secret', id: secret.id },
    lookups: [{ kind: 'unitsOfApplications', applications: ['mysql', 'wordpress'] }],
  };

  it('a new revision, a schedule or a grant hints the units of its owner and grantees; its content is never in the hint', () => {
    expect(planHint({ kind: 'secret', oldImage: secret, newImage: { ...secret, latestRevision: 2 } })).toEqual(toOwnerAndGrantees);
    expect(planHint({ kind: 'secret', oldImage: secret, newImage: { ...secret, nextRotateTime: '2024-01-01T01:00:00Z' } })).toEqual(
      toOwnerAndGrantees,
    );
    expect(planHint({ kind: 'secret', newImage: secret })).toEqual(toOwnerAndGrantees);
    // Revoked: the grantee that lost it hears of it too (the old image names it).
    expect(planHint({ kind: 'secret', oldImage: secret, newImage: { ...secret, grants: [] } })).toEqual(toOwnerAndGrantees);
  });

  it('a description or a timestamp hints nobody; nor does a user secret granted to nobody, a revision or a label', () => {
    expect(planHint({ kind: 'secret', oldImage: secret, newImage: { ...secret, description: 'x', updated: 'later' } }).kind).toBe('none');
    expect(planHint({ kind: 'secret', newImage: { ...secret, owner: { kind: 'model' }, grants: [] } }).kind).toBe('none');
    expect(planHint({ kind: 'secretRevision', newImage: { id: secret.id, revision: 2, content: { a: 'Yg==' } } }).kind).toBe('none');
    expect(planHint({ kind: 'secretLabel', newImage: { id: secret.id } }).kind).toBe('none');
  });

  it("a consumer leaving a revision (a refresh, or its record going) hints its owner's units, which may now remove it", () => {
    const consumer = { unit: 'wordpress/0', currentRevision: 1, secret: secret.id, ownerApplication: 'mysql' };
    const toOwner = {
      kind: 'hint',
      hint: { kind: 'secret', id: secret.id },
      lookups: [{ kind: 'unitsOfApplications', applications: ['mysql'] }],
    };
    expect(planHint({ kind: 'secretConsumer', oldImage: consumer, newImage: { ...consumer, currentRevision: 2 } })).toEqual(toOwner);
    expect(planHint({ kind: 'secretConsumer', oldImage: consumer })).toEqual(toOwner);
    // A first read, a seen revision or a label leaves no revision behind; a record without its owner has nobody to tell.
    expect(planHint({ kind: 'secretConsumer', newImage: consumer }).kind).toBe('none');
    expect(planHint({ kind: 'secretConsumer', oldImage: consumer, newImage: { ...consumer, seenRevision: 1, label: 'db' } }).kind).toBe(
      'none',
    );
    const { ownerApplication: _owner, ...ownerless } = consumer;
    expect(planHint({ kind: 'secretConsumer', oldImage: ownerless, newImage: { ...ownerless, currentRevision: 2 } }).kind).toBe('none');
  });
});

describe('storage', () => {
  const attachment = { storage: 'data/0', unit: 'mysql/0', machine: '3', life: 'alive' };
  const instance = { id: 'data/0', name: 'data', life: 'alive', attachments: ['mysql/0'] };

  it("an attachment made, Dying or gone hints its unit's machine; the location its agent reported does not", () => {
    const hinted = { kind: 'hint', hint: { kind: 'unit', id: 'mysql/0' }, lookups: [{ kind: 'machines', ids: ['3'] }] };
    expect(planHint({ kind: 'storageAttachment', newImage: attachment })).toEqual(hinted);
    expect(planHint({ kind: 'storageAttachment', oldImage: attachment, newImage: { ...attachment, life: 'dying' } })).toEqual(hinted);
    expect(planHint({ kind: 'storageAttachment', oldImage: attachment })).toEqual(hinted);
    expect(planHint({ kind: 'storageAttachment', oldImage: attachment, newImage: { ...attachment, location: '/srv' } }).kind).toBe('none');
    const { machine: _m, ...unassigned } = attachment;
    expect(planHint({ kind: 'storageAttachment', newImage: unassigned })).toMatchObject({
      lookups: [{ kind: 'unitMachines', units: ['mysql/0'] }],
    });
  });

  it("a volume recorded on an instance hints its unit's machine; nothing else about it does", () => {
    const withVolume = { ...instance, volume: { volumeId: 'vol-1', device: '/dev/nvme1n1' } };
    expect(planHint({ kind: 'storage', oldImage: instance, newImage: withVolume })).toEqual({
      kind: 'hint',
      hint: { kind: 'unit', id: 'mysql/0' },
      lookups: [{ kind: 'unitMachines', units: ['mysql/0'] }],
    });
    expect(planHint({ kind: 'storage', newImage: instance }).kind).toBe('none');
    expect(planHint({ kind: 'storage', oldImage: instance, newImage: { ...instance, size: 2048 } }).kind).toBe('none');
  });
});
