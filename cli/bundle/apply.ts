// `drover deploy <bundle>`: read the bundle and its charms, refuse it whole with every problem
// listed, else compare it with the model, print the changes, pack and check every charm it
// deploys (refused whole again if any would be refused), and (unless --dry-run) make the changes
// through the API one by one. Each change is a request the API checks as it checks a user's; a
// deploy that stops half way (the controller gone, a change refused all the same) says what it
// applied, and is finished by running it again, since the changes are recomputed from the model
// and nothing that exists is added twice.
import type { ApiClient } from '../client.js';
import type { CharmDir } from '../charm-dir.js';
import type { Cli } from '../context.js';
import { errorMessage } from '#shared/domain/errors.js';
import { CliError } from '../errors.js';
import { IN_CALL_UNITS } from '#shared/domain/plans/background-units.js';
import { bundleChanges, type Change } from './changes.js';
import { readModel, type ModelView } from './model-view.js';
import { charmRequest, packCheckedCharm } from '../charm-request.js';
import { describeChange } from './describe.js';
import { bundleRefused, loadBundle } from './load.js';
import { charmhubFetcher } from './charmhub-charms.js';

export async function deployBundle(cli: Cli, path: string, options: { dryRun: boolean }): Promise<void> {
  const { read, charms, charmOf } = await loadBundle(path, 'deploy', charmhubFetcher(cli));
  const client = await cli.client({ timeoutMs: 300_000 });
  const model = await readModel(client, [...read.bundle.applications.keys()]);
  const { problems, changes } = bundleChanges(read.bundle, charmOf, model);
  if (problems.length) throw bundleRefused('deploy', read.path, problems);
  if (changes.length === 0) {
    cli.io.stderr('No changes to apply.\n');
    return;
  }
  const packed = options.dryRun ? undefined : await packBundleCharms(read.path, changes, charms);
  cli.io.stderr(
    `${options.dryRun ? 'Changes to deploy bundle' : 'Executing changes'}:\n${changes.map((c) => `- ${describeChange(c)}\n`).join('')}`,
  );
  if (!packed) return;
  let applied = 0;
  try {
    await applyChanges(client, changes, { charms, packed }, model, (count) => (applied = count));
  } catch (e) {
    throw new CliError(stoppedPartWay(read.path, changes, applied, e));
  }
  cli.io.stderr('Deploy of bundle completed.\n');
}

/**
 * Every charm the bundle deploys, packed and checked as the controller will check it, before any
 * change is made: one it would refuse refuses the bundle whole, every such charm listed.
 */
async function packBundleCharms(path: string, changes: Change[], charms: Map<string, CharmDir>): Promise<Map<string, Buffer>> {
  const packed = new Map<string, Buffer>();
  const problems: string[] = [];
  for (const change of changes) {
    // A Charmhub charm was checked against Charmhub's sha256 when fetched; the controller fetches and checks it again.
    if (change.kind !== 'deploy' || change.charmhub) continue;
    try {
      packed.set(change.application, await packCheckedCharm(charms.get(change.application)!));
    } catch (e) {
      problems.push(`application "${change.application}": ${errorMessage(e)}`);
    }
  }
  if (problems.length) throw bundleRefused('deploy', path, problems);
  return packed;
}

/** What a deploy that stopped part way says: why, what it applied, and that running it again completes it. */
function stoppedPartWay(path: string, changes: Change[], applied: number, e: unknown): string {
  const why = errorMessage(e);
  if (applied === 0) return `cannot deploy bundle "${path}": ${why}; nothing was deployed`;
  const done = changes.slice(0, applied).map((c) => `- ${describeChange(c)}\n`);
  return (
    `cannot deploy bundle "${path}": ${why}\n` +
    `applied ${applied} of ${changes.length} changes:\n${done.join('')}` +
    `run "drover deploy ${path}" again to apply the rest`
  );
}

async function applyChanges(
  client: ApiClient,
  changes: Change[],
  charms: { charms: Map<string, CharmDir>; packed: Map<string, Buffer> },
  model: ModelView,
  /** Called with how many changes are made so far, after each (a run of add-units counts as its changes). */
  onApplied: (count: number) => void,
): Promise<void> {
  const bundleMachines = new Map<string, string>();
  /** Each application's units' machines, by the unit's index in the bundle (existing ones first). */
  const unitMachines = new Map([...model.applications].map(([name, app]) => [name, app.units.map((u) => u.machine)]));
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    switch (change.kind) {
      case 'deploy': {
        const deployed = await client.post<'deploy', { units: string[]; machines: string[] }>('deploy', {
          charm: change.charmhub
            ? { charmhub: change.charmhub }
            : await charmRequest(client, charms.charms.get(change.application)!, charms.packed.get(change.application)),
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
    onApplied(i + 1);
  }
}
