// `drover export-bundle`: the model written as a bundle that deploys back to the same shape
// (Juju's export-bundle). Every machine that holds a unit becomes a machine of the bundle,
// numbered from 0 in the model's order, and each unit is placed on its machine's number. Local
// charms are written as `./<charm name>`: a directory of that name beside the bundle is what
// `drover deploy` will read. Options are those the user set; a peer relation is the charm's, so
// only relations between two applications are listed.
import type { ModelView } from './model-view.js';

export interface ExportedBundle {
  applications: Record<string, Record<string, unknown>>;
  machines?: Record<string, Record<string, string>>;
  relations?: string[][];
}

const byNumber = (a: string, b: string) => Number(a) - Number(b);

export function exportBundle(model: ModelView): ExportedBundle {
  const used = [...new Set([...model.applications.values()].flatMap((app) => app.units.flatMap((u) => (u.machine ? [u.machine] : []))))];
  const numbered = new Map(used.sort(byNumber).map((machine, i) => [machine, String(i)]));
  const applications: ExportedBundle['applications'] = {};
  for (const [name, app] of [...model.applications].sort(([a], [b]) => a.localeCompare(b))) {
    const to = app.units.flatMap((u) => (u.machine ? [numbered.get(u.machine)!] : []));
    applications[name] = {
      charm: `./${app.charmName}`,
      series: app.series,
      ...(app.units.length ? { num_units: app.units.length, to } : {}),
      ...(Object.keys(app.config).length ? { options: app.config } : {}),
      ...(app.constraints ? { constraints: app.constraints } : {}),
      ...(app.exposed ? { expose: true } : {}),
    };
  }
  const machines = Object.fromEntries(
    [...numbered].map(([machine, id]) => {
      const m = model.machines.get(machine);
      return [id, { ...(m ? { series: m.series } : {}), ...(m?.constraints ? { constraints: m.constraints } : {}) }];
    }),
  );
  const relations = [...model.relations].map((key) => key.split(' ')).filter((endpoints) => endpoints.length === 2);
  return {
    applications,
    ...(numbered.size ? { machines } : {}),
    ...(relations.length ? { relations: relations.sort((a, b) => a.join(' ').localeCompare(b.join(' '))) } : {}),
  };
}
