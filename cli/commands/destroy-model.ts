// destroy-model: the model goes Dying and the controller destroys everything in it through the
// usual lifecycle (its applications, units, relations and machines), then the model itself. As
// Juju, the command asks first, then waits for the model to be gone, saying what is left; a unit
// in hook error holds the model until it is resolved or the model is destroyed with --force.
import type { Command } from 'commander';
import type { ModelSummary } from '#shared/api/model-summary.js';
import { allUnits, type StatusDoc } from '#shared/domain/status-document.js';
import type { ApiClient } from '../client.js';
import { checkNoWait } from '../arguments.js';
import { updateConfig } from '../config.js';
import type { Cli } from '../context.js';
import { ApiError, CliError, UsageError } from '../errors.js';
import { parseDuration, sleep } from '../output.js';
import { readWholeStatus } from '../status/read-pages.js';

const POLL_MS = 1000;

interface DestroyModelFlags {
  force?: boolean;
  wait: boolean;
  prompt: boolean;
  timeout: string;
  destroyStorage?: boolean;
  releaseStorage?: boolean;
}

const quoted = (names: string[]) => names.map((n) => `"${n}"`).join(' ');
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** Juju's warning: what the model holds, which goes with it. */
function warning(model: string, doc: StatusDoc): string {
  const machines = Object.keys(doc.machines);
  const applications = Object.keys(doc.applications);
  const lines = [`WARNING This command will destroy the "${model}" model and affect the following resources. It cannot be stopped.`, ''];
  lines.push(` - ${plural(machines.length, 'machine')} will be destroyed`);
  if (machines.length) lines.push(`  - machine list: ${quoted(machines)}`);
  lines.push(` - ${plural(applications.length, 'application')} will be removed`);
  if (applications.length) lines.push(`  - application list: ${quoted(applications)}`);
  return `${lines.join('\n')}\n\nContinue? (y/N): `;
}

/** The model's status, or undefined once it is gone. */
async function statusOf(client: ApiClient): Promise<StatusDoc | undefined> {
  try {
    return await readWholeStatus(client);
  } catch (e) {
    if (e instanceof ApiError && e.code === 'not-found') return undefined;
    throw e;
  }
}

async function waitForRemoval(cli: Cli, client: ApiClient, model: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let said = '';
  for (;;) {
    const doc = await statusOf(client);
    if (!doc) {
      cli.io.stderr('Model destroyed.\n');
      return;
    }
    const line = `Waiting for model to be removed, ${Object.keys(doc.machines).length} machine(s), ${Object.keys(doc.applications).length} application(s)...`;
    if (line !== said) cli.io.stderr(`${line}\n`);
    said = line;
    // Nothing the controller does takes a unit out of a hook error unless the model is forced.
    const inError = allUnits(doc).filter((u) => u.unit['workload-status'].current === 'error');
    if (inError.length && !(await client.get<ModelSummary>('show-model', { name: model })).forced) {
      throw new CliError(
        `model "${model}" is being destroyed, but units in error hold it: ${inError.map((u) => u.name).join(', ')}; run "drover resolved <unit>" for each, or "drover destroy-model ${model} --force"`,
      );
    }
    if (Date.now() >= deadline) {
      const heldBy = (doc.model['blocked-by'] ?? []).join('; ');
      throw new CliError(`timed out waiting for model "${model}" to be removed${heldBy ? `; it is held by: ${heldBy}` : ''}`);
    }
    if (await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), cli.io.signal)) throw new CliError('interrupted');
  }
}

export function registerDestroyModel(program: Command, cli: Cli): void {
  program
    .command('destroy-model')
    .summary('Destroy a model and everything in it.')
    .description(
      'Destroy a model: its applications, units, relations and machines are removed through their lifecycle, then the model. A unit in hook error holds it until resolved, unless --force.',
    )
    .argument('<model>', 'the model: <model> or <controller>:<model>')
    .option('--force', 'also remove units in hook error, and machines whatever their agents say')
    // Juju 3.6 makes the user choose when the model holds persistent storage (EBS volumes).
    .option('--destroy-storage', 'destroy all storage instances in the model')
    .option('--release-storage', 'release all storage instances from the model, and leave their volumes in the cloud')
    .option('--no-wait', 'with --force: return once destruction is under way, without waiting for the model to be removed')
    .option('-y, --no-prompt', 'do not ask for confirmation')
    .option('-t, --timeout <duration>', 'how long to wait for the model to be removed', '30m')
    .addHelpText('after', '\nExamples:\n  drover destroy-model staging\n  drover destroy-model local:staging -y --force')
    .action(async (target: string, opts: DestroyModelFlags) => {
      if (opts.destroyStorage && opts.releaseStorage)
        throw new UsageError('--destroy-storage and --release-storage cannot both be specified');
      checkNoWait(opts);
      const timeoutMs = parseDuration(opts.timeout);
      const { model } = await cli.target(target);
      const client = await cli.client({ model: target });
      const doc = await statusOf(client);
      if (!doc) throw new CliError(`model "${model}" not found; see "drover models"`);
      if (opts.prompt) {
        cli.io.stderr(warning(model, doc));
        const answer = (await cli.io.readLine())?.trim().toLowerCase();
        if (answer !== 'y' && answer !== 'yes') throw new CliError('model destruction aborted');
      }
      await client.post('destroy-model', {
        name: model,
        ...(opts.force ? { force: true } : {}),
        ...(opts.destroyStorage ? { storage: 'destroy' } : opts.releaseStorage ? { storage: 'release' } : {}),
      });
      cli.io.stderr('Destroying model\n');
      if (opts.wait) await waitForRemoval(cli, client, model, timeoutMs);
      // A model gone (or forced to go) is no one's to act on: the controller's commands go back to
      // `default`. One held by a unit in error stays current, for `resolved`.
      const { controller } = await cli.target(target);
      await updateConfig(cli.io.env, (config) => {
        if (config.controllers[controller]?.model === model) delete config.controllers[controller].model;
      });
    });
}
