// `drover status` tabular, what the e2e goldens do not show: the model's Notes column, what an
// executing agent is running, an allocating unit's agent message, a long workload version cut
// short, and integrations sorted by provider then requirer, as Juju 3.6's output_tabular.go prints
// them (https://github.com/juju/juju/blob/3.6/cmd/juju/status/output_tabular.go).
import { describe, expect, it } from 'vitest';
import type { ApplicationDoc, StatusDoc, UnitDoc } from '#shared/domain/status-document.js';
import { renderTabular } from '../../../cli/status/tabular.js';

const unit = (workload: UnitDoc['workload-status'], agent: UnitDoc['juju-status'], machine: string): UnitDoc => ({
  'workload-status': workload,
  'juju-status': agent,
  machine,
});

const app = (name: string, units: Record<string, UnitDoc>, extra: Partial<ApplicationDoc> = {}): ApplicationDoc => ({
  charm: `local:${name}-3`,
  base: { name: 'ubuntu', channel: '22.04' },
  'charm-origin': 'local',
  'charm-name': name,
  'charm-rev': 3,
  exposed: false,
  'application-status': { current: 'active' },
  units,
  ...extra,
});

const doc: StatusDoc = {
  model: {
    name: 'default',
    type: 'iaas',
    controller: 'test',
    cloud: 'drover',
    version: '3.6.12',
    'model-status': { current: 'destroying', message: 'the model is being destroyed' },
  },
  machines: {},
  applications: {
    db: app(
      'db',
      {
        'db/0': unit({ current: 'maintenance', message: 'installing' }, { current: 'executing', message: 'running install hook' }, '0'),
        'db/1': unit({ current: 'waiting' }, { current: 'allocating', message: 'waiting for machine' }, '1'),
        'db/2': unit({ current: 'active', message: 'ok' }, { current: 'executing', message: 'running action backup' }, '2'),
      },
      { version: '14.10-1ubuntu0.22.04.1' },
    ),
    web: app('web', { 'web/0': unit({ current: 'active' }, { current: 'idle' }, '3') }),
  },
  relations: [
    { id: 0, key: 'web:db db:server', interface: 'pgsql', scope: 'global' },
    { id: 1, key: 'db:cluster', interface: 'db-peers', scope: 'global' },
    { id: 2, key: 'web:cache db:cache', interface: 'redis', scope: 'global' },
  ],
  controller: { timestamp: '10:11:02Z' },
};

describe('status tabular, as Juju 3.6 prints it', () => {
  it("prints the model's notes, what the agent is running, a cut version and integrations by provider", () => {
    expect(renderTabular(doc, { relations: true, colour: false })).toBe(
      [
        'Model    Controller  Cloud/Region  Version  Timestamp  Notes',
        'default  test        drover        3.6.12   10:11:02Z  the model is being destroyed',
        '',
        'App  Version          Status  Scale  Charm  Channel  Rev  Exposed  Message',
        'db   14.10-1ubunt...  active    2/3  db                3  no',
        'web                   active      1  web               3  no',
        '',
        'Unit   Workload     Agent       Machine  Public address  Ports  Message',
        'db/0   maintenance  executing   0                               (install) installing',
        'db/1   waiting      allocating  1                               waiting for machine',
        'db/2   active       executing   2                               (backup) ok',
        'web/0  active       idle        3',
        '',
        'Integration provider  Requirer    Interface  Type     Message',
        'db:cache              web:cache   redis      regular',
        'db:cluster            db:cluster  db-peers   peer',
        'db:server             web:db      pgsql      regular',
        '',
      ].join('\n'),
    );
  });

  it('prints the SAAS section after the model and the Offer section after the machines, as printRemoteApplications and printOffers do', () => {
    const cross = {
      ...doc,
      machines: { '3': { 'juju-status': { current: 'started' }, 'machine-status': { current: 'running' }, 'instance-id': 'i-3' } },
      'application-endpoints': {
        dbalias: { url: 'admin/default.testdbx', endpoints: {}, 'application-status': { current: 'active', since: '' } },
        cache: { url: 'other:admin/prod.cache', endpoints: {}, 'application-status': { current: 'terminated', since: '' } },
      },
      offers: {
        webx: {
          application: 'web',
          charm: 'local:jammy/web-3',
          'total-connected-count': 2,
          'active-connected-count': 1,
          endpoints: { website: { interface: 'http', role: 'provider' }, db: { interface: 'pgsql', role: 'requirer' } },
        },
      },
    } as unknown as StatusDoc;
    const out = renderTabular(cross, { relations: false, colour: false }).split('\n');
    expect(out.slice(2, 6)).toEqual([
      '',
      'SAAS     Status      Store  URL',
      'cache    terminated  other  admin/prod.cache',
      'dbalias  active      local  admin/default.testdbx',
    ]);
    expect(out.slice(-4)).toEqual([
      'Offer  Application  Charm  Rev  Connected  Endpoint  Interface  Role',
      'webx   web          web    3    1/2        db        pgsql      requirer',
      '                                           website   http       provider',
      '',
    ]);
  });
});
