// The model as bundles see it: its applications (charm, units and their machines, options set,
// constraints, exposure), machines and relations, read through the user API (status, config,
// get-constraints), which is all a bundle deploy, diff or export compares or writes.
import type { ApiClient } from '../client.js';
import { readWholeStatus } from '../status/read-pages.js';
import { baseToSeries } from '#shared/domain/bases.js';
import type { StatusBase } from '#shared/domain/status-document.js';

export interface ModelApplication {
  charmName: string;
  series: string;
  exposed: boolean;
  /** Its units in number order, with the machine each is on. */
  units: { name: string; machine?: string }[];
  /** Option values the user set (`drover config` shows them with source `user`). */
  config: Record<string, unknown>;
  constraints: string;
}

export interface ModelView {
  applications: Map<string, ModelApplication>;
  machines: Map<string, { series: string; constraints?: string }>;
  /** Relation keys (`wordpress:db mysql:db`; a peer relation's has one endpoint). */
  relations: Set<string>;
}

interface ConfigView {
  settings: Record<string, { value?: unknown; source: string }>;
}

const unitNumber = (unit: string) => Number(unit.split('/')[1]);

/** Bundles speak series; status shows Juju 3's base (always there for a series drover runs). */
const seriesOf = (base: StatusBase | undefined) => (base ? baseToSeries({ os: base.name, channel: base.channel }) : '');

/** The model, with config and constraints read for the applications named (all of them by default). */
export async function readModel(client: ApiClient, names?: string[]): Promise<ModelView> {
  const status = await readWholeStatus(client);
  const model: ModelView = {
    applications: new Map(),
    machines: new Map(
      Object.entries(status.machines).map(([id, m]) => [
        id,
        { series: seriesOf(m.base), ...(m.constraints ? { constraints: m.constraints } : {}) },
      ]),
    ),
    relations: new Set((status.relations ?? []).map((r) => r.key)),
  };
  for (const name of names ?? Object.keys(status.applications)) {
    const app = status.applications[name];
    if (!app) continue;
    const [config, constraints] = await Promise.all([
      client.post<'config', ConfigView>('config', { application: name }),
      client.post<'get-constraints', { constraints: string }>('get-constraints', { application: name }),
    ]);
    const units = Object.entries(app.units ?? {})
      .sort(([a], [b]) => unitNumber(a) - unitNumber(b))
      .map(([unit, doc]) => ({ name: unit, ...(doc.machine !== undefined ? { machine: doc.machine } : {}) }));
    model.applications.set(name, {
      charmName: app['charm-name'],
      series: seriesOf(app.base),
      exposed: app.exposed,
      units,
      config: Object.fromEntries(Object.entries(config.settings).flatMap(([k, s]) => (s.source === 'user' ? [[k, s.value]] : []))),
      constraints: constraints.constraints,
    });
  }
  return model;
}
