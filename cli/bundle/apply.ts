// `drover deploy <bundle>`: read the bundle and its charms, refuse it whole with every problem
// listed, else compare it with the model, print the changes, and (unless --dry-run) make them
// through the API one by one. Each change is a request the API checks as it checks a user's; a
// deploy that stops half way is finished by running it again, since the changes are recomputed
// from the model and nothing that exists is added twice.
import type { ApiClient } from '../client.js';
import type { CharmDir } from '../charm-dir.js';
import type { Cli } from '../context.js';
import { CliError } from '../errors.js';
import { IN_CALL_UNITS } from '#shared/domain/plans/background-units.js';
import { bundleChanges, type Change } from './changes.js';
import { readModel, type ModelView } from './model-view.js';
import { charmRequest } from '../charm-request.js';
import { describeChange } from './describe.js';
import { bundleRefused, loadBundle } from './load.js';

export async function deployBundle(cli: Cli, path: string, options: { dryRun: boolean }): Promise<void> {
  const { read, charms, charmOf } = await loadBundle(path, 'deploy');
  const client = await cli.client({ timeoutMs: 300_000 });
  const model = await readModel(client, [...read.bundle.applications.keys()]);
  const { problems, changes } = bundleChanges(read.bundle, charmOf, model);
  if (problems.length) throw bundleRefused('deploy', read.path, problems);
  if (changes.length === 0) {
    cli.io.stderr('No changes to apply.\n');
    return;
  }
  cli.io.stderr(
    `${options.dryRun ? 'Changes to deploy bundle' : 'Executing changes'}:\n${changes.map((c) => `- ${describeChange(c)}\n`).join('')}`,
  );
  if (options.dryRun) return;
  await applyChanges(client, changes, charms, model);
  cli.io.stderr('Deploy of bundle completed.\n');
}

async function applyChanges(client: ApiClient, changes: Change[], charms: Map<string, CharmDir>, model: ModelView): Promise<void> {
  const bundleMachines = new Map<string, string>();
  /** Each application's units' machines, by the unit's index in the bundle (existing ones first). */
  const unitMachines = new Map([...model.applications].map(([name, app]) => [name, app.units.map((u) => u.machine)]));
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    switch (change.kind) {
      case 'deploy': {
        const deployed = await client.post<'deploy', { units: string[]; machines: string[] }>('deploy', {
          charm: await charmRequest(client, charms.get(change.application)!),
          name: change.application,
          series: change.series,
          numUnits: change.units,
          ...(Object.keys(change.options).length ? { config: change.options } : {}),
          ...(change.constraints !== undefined ? { constraints: change.constraints } : {}),
        });
        // Each unit deployed with it got its own new machine, in order (none while it waits for required relations).
        if (deployed.machines.length === deployed.units.length) unitMachines.set(change.application, [...deployed.machines]);
        break;
      }
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
        if (target.kind === 'new') {
          // Units of one application on new machines, one after another: one request for them all
          // (add-unit -n), as a command-by-command deploy would send.
          const run = [change];
          for (
            let next = changes[i + 1];
            next?.kind === 'add-unit' && next.application === change.application && next.target.kind === 'new';
            next = changes[i + 1]
          ) {
            run.push(next);
            i++;
          }
          // At most what one call adds itself, since later placements may name these units' machines.
          const machines = unitMachines.get(change.application) ?? [];
          for (let from = 0; from < run.length; from += IN_CALL_UNITS) {
            const part = run.slice(from, from + IN_CALL_UNITS);
            const added = await client.post<'add-unit', { units: string[]; machines: string[] }>('add-unit', {
              application: change.application,
              count: part.length,
            });
            part.forEach((unit, k) => (machines[unit.index] = added.machines[k]));
          }
          unitMachines.set(change.application, machines);
          break;
        }
        const machine =
          target.kind === 'model-machine'
            ? target.machine
            : target.kind === 'bundle-machine'
              ? bundleMachines.get(target.machine)
              : unitMachines.get(target.application)?.[target.index];
        if (machine === undefined)
          throw new CliError(
            `cannot add unit ${change.application}/${change.index}: the machine it is placed on is not known yet; run the deploy again`,
          );
        await client.post('add-unit', { application: change.application, to: [machine] });
        const machines = unitMachines.get(change.application) ?? [];
        machines[change.index] = machine;
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
