// `drover deploy <bundle>`: read the bundle and its charms, refuse it whole with every problem
// listed, else compare it with the model, print the changes, and (unless --dry-run) make them
// through the API one by one. Each change is a request the API checks as it checks a user's; a
// deploy that stops half way is finished by running it again, since the changes are recomputed
// from the model and nothing that exists is added twice.
import type { ApiClient } from '../client.js';
import { readCharmDir, type CharmDir } from '../charm-dir.js';
import type { Cli } from '../context.js';
import { CliError } from '../errors.js';
import type { StatusDoc } from '../../shared/domain/status-document.js';
import type { CharmMeta } from '../../shared/domain/charm.js';
import { readBundle } from './bundle-file.js';
import { bundleChanges, type Change, type ModelView } from './changes.js';
import { charmRequest } from '../charm-request.js';
import { describeChange } from './describe.js';
import { verifyBundle } from './verify.js';

export async function deployBundle(cli: Cli, path: string, options: { dryRun: boolean }): Promise<void> {
  const read = await readBundle(path);
  const charms = new Map<string, CharmDir>();
  const problems = [...read.problems];
  for (const [name, app] of read.bundle.applications) {
    if (app.charmPath === undefined) continue;
    try {
      charms.set(name, await readCharmDir(app.charmPath, `application "${name}" takes`));
    } catch (e) {
      problems.push(`charm path in application "${name}": ${(e as Error).message}`);
    }
  }
  const charmOf = (name: string): CharmMeta | undefined => charms.get(name)?.meta;
  problems.push(...verifyBundle(read.bundle, charmOf));
  if (problems.length) throw bundleRefused(read.path, problems);

  const client = await cli.client({ timeoutMs: 300_000 });
  const { problems: modelProblems, changes } = bundleChanges(
    read.bundle,
    charmOf,
    await readModel(client, [...read.bundle.applications.keys()]),
  );
  if (modelProblems.length) throw bundleRefused(read.path, modelProblems);
  if (changes.length === 0) {
    cli.io.stderr('No changes to apply.\n');
    return;
  }
  cli.io.stderr(
    `${options.dryRun ? 'Changes to deploy bundle' : 'Executing changes'}:\n${changes.map((c) => `- ${describeChange(c)}\n`).join('')}`,
  );
  if (options.dryRun) return;
  await applyChanges(client, changes, charms);
  cli.io.stderr('Deploy of bundle completed.\n');
}

function bundleRefused(path: string, problems: string[]): CliError {
  return new CliError(
    `cannot deploy bundle "${path}": ${problems.length} problem(s); nothing was deployed:\n${problems.map((p) => `- ${p}`).join('\n')}`,
  );
}

interface ConfigView {
  settings: Record<string, { value?: unknown; source: string }>;
}

/** The applications, units, machines and relations the bundle is compared with. */
async function readModel(client: ApiClient, names: string[]): Promise<ModelView> {
  const status = await client.get<StatusDoc>('status');
  const model: ModelView = { applications: new Map(), relations: new Set((status.relations ?? []).map((r) => r.key)) };
  for (const name of names) {
    const app = status.applications[name];
    if (!app) continue;
    const [config, constraints] = await Promise.all([
      client.post<'config', ConfigView>('config', { application: name }),
      client.post<'get-constraints', { constraints: string }>('get-constraints', { application: name }),
    ]);
    const units = Object.entries(app.units ?? {})
      .map(([unit, doc]) => ({
        name: unit,
        number: Number(unit.split('/')[1]),
        ...(doc.machine !== undefined ? { machine: doc.machine } : {}),
      }))
      .sort((a, b) => a.number - b.number)
      .map(({ number: _, ...unit }) => unit);
    model.applications.set(name, {
      charmName: app['charm-name'],
      exposed: app.exposed,
      units,
      config: Object.fromEntries(Object.entries(config.settings).flatMap(([k, s]) => (s.source === 'unset' ? [] : [[k, s.value]]))),
      constraints: constraints.constraints,
    });
  }
  return model;
}

async function applyChanges(client: ApiClient, changes: Change[], charms: Map<string, CharmDir>): Promise<void> {
  const bundleMachines = new Map<string, string>();
  /** Each application's units' machines, by the unit's index in the bundle (existing ones first). */
  const unitMachines = new Map<string, (string | undefined)[]>();
  const status = await client.get<StatusDoc>('status');
  for (const [name, app] of Object.entries(status.applications))
    unitMachines.set(
      name,
      Object.entries(app.units ?? {})
        .sort(([a], [b]) => Number(a.split('/')[1]) - Number(b.split('/')[1]))
        .map(([, unit]) => unit.machine),
    );
  for (const change of changes) {
    switch (change.kind) {
      case 'deploy':
        await client.post('deploy', {
          charm: await charmRequest(charms.get(change.application)!),
          name: change.application,
          series: change.series,
          numUnits: 0,
          ...(Object.keys(change.options).length ? { config: change.options } : {}),
          ...(change.constraints !== undefined ? { constraints: change.constraints } : {}),
        });
        break;
      case 'add-machine': {
        const { machines } = await client.post<'add-machine', { machines: string[] }>('add-machine', {
          series: change.series,
          ...(change.constraints !== undefined ? { constraints: change.constraints } : {}),
        });
        bundleMachines.set(change.machine, machines[0]!);
        break;
      }
      case 'add-unit': {
        const target = change.target;
        const machine =
          target.kind === 'model-machine'
            ? target.machine
            : target.kind === 'bundle-machine'
              ? bundleMachines.get(target.machine)
              : target.kind === 'unit'
                ? unitMachines.get(target.application)?.[target.index]
                : undefined;
        if (target.kind !== 'new' && machine === undefined)
          throw new CliError(
            `cannot add unit ${change.application}/${change.index}: the machine it is placed on is not known yet; run the deploy again`,
          );
        const added = await client.post<'add-unit', { units: string[]; machines: string[] }>('add-unit', {
          application: change.application,
          ...(machine !== undefined ? { to: [machine] } : {}),
        });
        const machines = unitMachines.get(change.application) ?? [];
        machines[change.index] = machine ?? added.machines[0];
        unitMachines.set(change.application, machines);
        break;
      }
      case 'set-options':
        await client.post('config', { application: change.application, set: change.options });
        break;
      case 'set-constraints':
        await client.post('set-constraints', { application: change.application, constraints: change.constraints });
        break;
      case 'expose':
        await client.post('expose', { application: change.application });
        break;
      case 'relate':
        await client.post('relate', { endpoints: change.endpoints });
        break;
    }
  }
}
