// show-unit's entry as Juju 3.6 writes it, from status and the API's unit details: a subordinate
// placed by its principal, and --endpoint, --related-unit and --app filtering the relations.
import { describe, expect, it } from 'vitest';
import type { UnitDetails } from '#shared/api/unit-details.js';
import type { ApplicationDoc, UnitDoc } from '#shared/domain/status-document.js';
import { unitInfo } from '../../../cli/unit-info.js';

const status = { current: 'idle' };
const principal: UnitDoc = { 'workload-status': status, 'juju-status': status, machine: '3', 'public-address': '10.0.0.3' };
const subordinate: UnitDoc = { 'workload-status': status, 'juju-status': { ...status, life: 'dying' } };
const logging = { charm: 'local:logging-0' } as ApplicationDoc;

const details: UnitDetails = {
  'relation-info': [
    {
      'relation-id': 1,
      endpoint: 'juju-info',
      'related-endpoint': 'juju-info',
      'application-data': {},
      'local-unit': { 'in-scope': true, data: {} },
      'related-units': {},
    },
    {
      'relation-id': 2,
      endpoint: 'logs',
      'related-endpoint': 'logging',
      'application-data': { sink: 'x' },
      'local-unit': { 'in-scope': true, data: { a: '1' } },
      'related-units': {
        'mysql/10': { 'in-scope': true, data: {} },
        'mysql/2': { 'in-scope': true, data: { b: '2' } },
      },
    },
  ],
};

describe('show-unit entries', () => {
  it('places a subordinate by its principal, leaves out a relation with nothing to show, and orders related units by number', () => {
    const info = unitInfo(subordinate, logging, details, principal);
    expect(info).toMatchObject({ machine: '3', 'public-address': '10.0.0.3', 'opened-ports': [], leader: false, life: 'dying' });
    const relations = info['relation-info'] as { endpoint: string; 'related-units': Record<string, unknown> }[];
    expect(relations.map((r) => r.endpoint)).toEqual(['logs']);
    expect(Object.keys(relations[0]!['related-units'])).toEqual(['mysql/2', 'mysql/10']);
  });

  it('filters as --endpoint, --related-unit and --app do', () => {
    const byEndpoint = unitInfo(subordinate, logging, details, principal, { endpoint: 'juju-info' })['relation-info'] as unknown[];
    expect(byEndpoint).toEqual([expect.objectContaining({ 'relation-id': 1 })]);
    const byUnit = unitInfo(subordinate, logging, details, principal, { relatedUnit: 'mysql/2' })['relation-info'] as {
      'related-units': Record<string, unknown>;
    }[];
    expect(Object.keys(byUnit[0]!['related-units'])).toEqual(['mysql/2']);
    const appOnly = unitInfo(subordinate, logging, details, principal, { appOnly: true })['relation-info'] as Record<string, unknown>[];
    expect(appOnly.map((r) => Object.keys(r))).toEqual([
      ['relation-id', 'endpoint', 'related-endpoint', 'application-data'],
      ['relation-id', 'endpoint', 'related-endpoint', 'application-data'],
    ]);
  });
});
