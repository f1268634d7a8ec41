// What a bundle deploy changes, against a given model: pure, so each rule is shown on its own.
import { describe, expect, it } from 'vitest';
import type { Bundle, BundleApplication } from '../../../cli/bundle/bundle-file.js';
import { bundleChanges } from '../../../cli/bundle/changes.js';
import type { ModelView } from '../../../cli/bundle/model-view.js';
import { parseCharm } from '#shared/domain/charm.js';

const meta = parseCharm('name: web\nsummary: s\nseries: [jammy]\n');
const app = (rest: Partial<BundleApplication> = {}): BundleApplication => ({
  charm: './web',
  charmPath: '/charms/web',
  numUnits: 3,
  to: [],
  options: {},
  expose: false,
  ...rest,
});
const bundleOf = (applications: Record<string, BundleApplication>, machines: string[] = []): Bundle => ({
  applications: new Map(Object.entries(applications)),
  machines: new Map(machines.map((id) => [id, {}])),
  relations: [],
});
const empty: ModelView = { applications: new Map(), machines: new Map(), relations: new Set() };
const changesOf = (bundle: Bundle, model = empty) => bundleChanges(bundle, () => meta, model).changes;

describe('bundle changes', () => {
  it('deploys a new application whose units all go to new machines with its units, in one change', () => {
    expect(changesOf(bundleOf({ web: app() }))).toEqual([
      { kind: 'deploy', application: 'web', charmPath: '/charms/web', charmName: 'web', series: 'jammy', options: {}, units: 3 },
    ]);
  });

  it('deploys one placed on the bundle machines with no units, then adds each where it goes', () => {
    const changes = changesOf(bundleOf({ web: app({ numUnits: 2, to: ['0', 'new'] }) }, ['0']));
    expect(
      changes.map((c) => (c.kind === 'deploy' ? `deploy ${c.units}` : c.kind === 'add-unit' ? `unit ${c.index} ${c.target.kind}` : c.kind)),
    ).toEqual(['deploy 0', 'add-machine', 'unit 0 bundle-machine', 'unit 1 new']);
  });

  it('adds only the units an existing application lacks, on new machines, and the machine the bundle places on is the one its units use', () => {
    const model: ModelView = {
      applications: new Map([
        [
          'web',
          { charmName: 'web', series: 'jammy', exposed: false, units: [{ name: 'web/0', machine: '4' }], config: {}, constraints: '' },
        ],
      ]),
      machines: new Map([['4', { series: 'jammy' }]]),
      relations: new Set(),
    };
    expect(changesOf(bundleOf({ web: app({ numUnits: 3, to: ['0', '0', 'new'] }) }, ['0']), model)).toEqual([
      { kind: 'add-unit', application: 'web', index: 1, target: { kind: 'model-machine', machine: '4' } },
      { kind: 'add-unit', application: 'web', index: 2, target: { kind: 'new' } },
    ]);
  });

  it('refuses an application of the same name with another charm', () => {
    const model: ModelView = {
      applications: new Map([['web', { charmName: 'nginx', series: 'jammy', exposed: false, units: [], config: {}, constraints: '' }]]),
      machines: new Map(),
      relations: new Set(),
    };
    expect(bundleChanges(bundleOf({ web: app() }), () => meta, model).problems).toEqual([
      'application "web" exists with charm "nginx", not "web"; remove it, or name another application',
    ]);
  });
});
