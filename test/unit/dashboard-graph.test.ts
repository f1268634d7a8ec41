// The dashboard's topology from a status document (cli/dashboard/ui/graph.ts): a node's status is
// its worst unit's, an agent in error counting as error; a peer relation marks its node; a
// container-scoped relation is its own kind of edge; a Dying application and relation say so.
import { describe, expect, it } from 'vitest';
import type { StatusDoc, UnitDoc } from '#shared/domain/status-document.js';
import { graphOf, shapeOf } from '../../cli/dashboard/ui/graph.js';
import { unitLevel, worst } from '../../cli/dashboard/ui/severity.js';

const unit = (workload: string, agent: string, message?: string): UnitDoc => ({
  'workload-status': { current: workload },
  'juju-status': { current: agent, ...(message ? { message } : {}) },
});

const app = (units: Record<string, UnitDoc>, extra: object = {}) => ({
  charm: 'local:x-0',
  base: { name: 'ubuntu', channel: '22.04' },
  'charm-origin': 'local',
  'charm-name': 'x',
  'charm-rev': 0,
  exposed: false,
  'application-status': { current: 'active' },
  units,
  ...extra,
});

const doc: StatusDoc = {
  model: { name: 'default', controller: 'test' },
  machines: {},
  applications: {
    wordpress: app({
      'wordpress/0': { ...unit('active', 'idle'), subordinates: { 'logging/0': unit('blocked', 'idle', 'no log dir') } },
      'wordpress/1': unit('active', 'executing'),
    }),
    mysql: app({ 'mysql/0': unit('active', 'idle'), 'mysql/1': unit('error', 'idle', 'hook failed: "install"') }, { life: 'dying' }),
    logging: app({}, { 'application-status': { current: 'waiting' } }),
    cache: app({}, { 'application-status': { current: 'unknown' } }),
  },
  relations: [
    { id: 0, key: 'wordpress:db mysql:server', interface: 'mysql', scope: 'global', life: 'dying' },
    { id: 1, key: 'logging:logging-directory wordpress:logging-dir', interface: 'logging', scope: 'container' },
    { id: 2, key: 'mysql:cluster', interface: 'mysql-ha', scope: 'global' },
  ],
};

describe('the dashboard topology', () => {
  const graph = graphOf(doc);
  const node = (name: string) => graph.nodes.find((n) => n.name === name)!;

  it("colours a node by its worst unit, with that unit's message", () => {
    expect(node('mysql')).toMatchObject({ level: 'error', message: 'hook failed: "install"', units: 2, dying: true });
    expect(node('wordpress')).toMatchObject({ level: 'busy', units: 2, dying: false });
    // A subordinate's units count for their own application, not their principal's.
    expect(node('logging')).toMatchObject({ level: 'blocked', units: 1, message: 'no log dir' });
    expect(node('cache')).toMatchObject({ level: 'unknown', units: 0 });
  });

  it('draws peers on their node, and regular and container relations as edges', () => {
    expect(node('mysql').peers).toEqual([{ key: 'mysql:cluster', endpoint: 'cluster', interface: 'mysql-ha' }]);
    expect(graph.edges).toEqual([
      {
        id: 0,
        key: 'wordpress:db mysql:server',
        from: 'wordpress',
        to: 'mysql',
        scope: 'regular',
        label: 'wordpress:db ⟷ mysql:server',
        interface: 'mysql',
        dying: true,
        stuck: [],
      },
      {
        id: 1,
        key: 'logging:logging-directory wordpress:logging-dir',
        from: 'logging',
        to: 'wordpress',
        scope: 'container',
        label: 'logging:logging-directory ⟷ wordpress:logging-dir',
        interface: 'logging',
        dying: false,
        stuck: [],
      },
    ]);
  });

  it("counts an application's units at each level, worst first", () => {
    expect(node('mysql').counts).toEqual([
      { level: 'error', units: 1 },
      { level: 'ok', units: 1 },
    ]);
    expect(node('wordpress').counts).toEqual([
      { level: 'busy', units: 1 },
      { level: 'ok', units: 1 },
    ]);
    expect(node('cache').counts).toEqual([]);
  });

  it('marks what is stuck with what holds it: an application for itself or its units, a relation for itself', () => {
    const stuck = [
      {
        entity: 'unit mysql/1',
        kind: 'unit',
        life: 'dying',
        since: '',
        ageSeconds: 60,
        reasons: ['its agent is in error: run "drover resolved mysql/1"'],
      },
      { entity: 'relation wordpress:db mysql:server', kind: 'relation', life: 'dying', since: '', ageSeconds: 60, reasons: [] },
    ];
    const held = graphOf(doc, stuck);
    expect(held.nodes.find((n) => n.name === 'mysql')!.stuck).toEqual([
      'unit mysql/1: its agent is in error: run "drover resolved mysql/1"',
    ]);
    expect(held.nodes.find((n) => n.name === 'wordpress')!.stuck).toEqual([]);
    expect(held.edges.find((e) => e.id === 0)!.stuck).toEqual(['relation wordpress:db mysql:server is dying']);
  });

  it('lays out again only when applications or relations change, not statuses', () => {
    const calmer = structuredClone(doc);
    calmer.applications.mysql!.units!['mysql/1'] = unit('active', 'idle');
    expect(shapeOf(graphOf(calmer))).toBe(shapeOf(graph));
    const fewer = structuredClone(doc);
    fewer.relations = fewer.relations!.slice(1);
    expect(shapeOf(graphOf(fewer))).not.toBe(shapeOf(graph));
  });

  it('ranks an agent in error above any workload status', () => {
    expect(unitLevel(unit('active', 'error'))).toBe('error');
    expect(unitLevel(unit('blocked', 'idle'))).toBe('blocked');
    expect(worst(['ok', 'waiting', 'blocked', 'busy'])).toBe('blocked');
  });
});
