// A controller's models, as Juju's commands: add-model, models (list-models), show-model, switch.
// Which model every other command acts on is `-m [controller:]model`, or the one `switch` (or
// add-model) chose, recorded per controller in the client config (cli/config.ts).
import { Option, type Command } from 'commander';
import { isDroverError } from '#shared/domain/errors.js';
import { checkModelName } from '#shared/domain/models.js';
import { validateModelConfig } from '#shared/domain/model-config.js';
import type { ModelSummary } from '#shared/api/model-summary.js';
import { collect, splitAssignment } from '../arguments.js';
import { readConfig, updateConfig, type ControllerEntry } from '../config.js';
import { currentModelOf, parseModelOption, type Cli } from '../context.js';
import { ApiError, CliError, UsageError } from '../errors.js';
import { printData, type DataFormat } from '../output.js';
import { cloudOf, listedModel, MODEL_OWNER, shownModel } from '../model-info.js';
import { renderTable } from '../table.js';
import { checkedConstraints } from './constraints.js';

/** Juju's checks, made before anything is sent, in Juju's words. */
function checked(check: () => void): void {
  try {
    check();
  } catch (e) {
    if (isDroverError(e)) throw new CliError(e.message);
    throw e;
  }
}

/**
 * add-model's cloud: drover adds models on its controller's own cloud only (no add-cloud, no
 * Kubernetes); any other is refused in the shape of Juju's NotSupported errors.
 */
function checkOwnCloud(cloudRegion: string, controller: ControllerEntry): void {
  const { cloud, region } = cloudOf(controller);
  const [name, wanted] = cloudRegion.split('/', 2) as [string, string | undefined];
  if (name === cloud && (wanted === undefined || wanted === region)) return;
  throw new CliError(`cloud "${cloudRegion}" not supported: drover adds models on its controller's cloud, "${cloud}/${region}"`);
}

async function setCurrentModel(cli: Cli, controller: string, model: string): Promise<string> {
  let previous = '';
  await updateConfig(cli.io.env, (config) => {
    const entry = config.controllers[controller];
    if (!entry) throw new CliError(`controller "${controller}" not found; see "drover controllers"`);
    previous = config.current ? `${config.current}:${currentModelOf(config, config.current)}` : '(none)';
    entry.model = model;
    config.current = controller;
  });
  return previous;
}

async function checkModelExists(cli: Cli, controller: string, model: string, notFound: CliError): Promise<void> {
  try {
    await (await cli.clientOf(controller)).get('show-model', { name: model });
  } catch (e) {
    if (e instanceof ApiError && (e.code === 'not-found' || e.code === 'invalid-argument')) throw notFound;
    throw e;
  }
}

export function registerModels(program: Command, cli: Cli): void {
  program
    .command('add-model')
    .summary('Add a model to the controller, and switch to it.')
    .description('Add a model: its own machines, applications and lifecycle, beside the others on the controller.')
    .argument('<name>', 'the model name: lowercase letters, digits and hyphens')
    .argument('[cloud-region]', "the controller's own cloud (drover adds models there only)")
    .option('-c, --controller <controller>', 'the controller to add the model to (default: the current one)')
    .option('--config <key=value>', 'model configuration (repeatable)', collect)
    .option('--constraints <constraints>', 'the model\'s constraints, e.g. "mem=4G"')
    .option('--no-switch', 'do not make the new model current')
    .addHelpText('after', '\nExamples:\n  drover add-model staging\n  drover add-model prod --config update-status-hook-interval=10m')
    .action(
      async (
        name: string,
        cloud: string | undefined,
        opts: { controller?: string; config?: string[]; constraints?: string; switch: boolean },
      ) => {
        checked(() => checkModelName(name));
        const config: Record<string, string> = {};
        for (const item of opts.config ?? []) {
          const pair = splitAssignment(item);
          if (!pair) throw new UsageError(`invalid --config "${item}": expected key=value`);
          checked(() => validateModelConfig(pair[0], pair[1]));
          config[pair[0]] = pair[1];
        }
        const constraints = opts.constraints !== undefined ? checkedConstraints(opts.constraints) : undefined;
        const client = await cli.client(opts.controller !== undefined ? { model: `${opts.controller}:` } : {});
        if (cloud !== undefined) checkOwnCloud(cloud, client.selected.controller);
        await client.post('add-model', {
          name,
          ...(Object.keys(config).length ? { config } : {}),
          ...(constraints !== undefined ? { constraints } : {}),
        });
        cli.io.stderr(`Added '${name}' model on controller "${client.name}"\n`);
        if (opts.switch) await setCurrentModel(cli, client.name, name);
      },
    );

  program
    .command('models')
    .alias('list-models')
    .summary("List the controller's models.")
    .description("List the controller's models; the current one is marked with *.")
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'yaml', 'json']).default('tabular'))
    .addHelpText('after', '\nExamples:\n  drover models\n  drover models --format json')
    .action(async (opts: { format: 'tabular' | DataFormat }) => {
      const client = await cli.client();
      const { model: current } = await cli.target();
      const { models } = await client.get<{ models: ModelSummary[] }>('models');
      if (opts.format !== 'tabular') {
        const listed = models.map((m) => listedModel(m, client.name, client.selected.controller));
        return printData(cli.io, { models: listed, 'current-model': current }, opts.format);
      }
      const rows = [['Model', 'Type', 'Status'], ...models.map((m) => [m.name === current ? `${m.name}*` : m.name, m.type, m.status])];
      cli.io.stdout(`Controller: ${client.name}\n\n${renderTable(rows, false)}`);
    });

  program
    .command('show-model')
    .summary('Show a model (default: the current one).')
    .description("Show a model's name, uuid, type, life and status.")
    .argument('[model]', 'the model: <model>, <owner>/<model> or <controller>:[<owner>/]<model>')
    .addOption(new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .addHelpText(
      'after',
      '\nExamples:\n  drover show-model\n  drover show-model staging --format json\n  drover show-model local:admin/staging',
    )
    .action(async (name: string | undefined, opts: { format: DataFormat }) => {
      const { model } = await cli.target(name);
      const client = await cli.client({ model: name });
      const shown = await client.get<ModelSummary>('show-model', { name: model });
      printData(cli.io, { [shown.name]: shownModel(shown, client.name, client.selected.controller) }, opts.format);
    });

  program
    .command('switch')
    .summary('Change (or show) the current controller and model.')
    .description(
      'Make another controller or model current: a controller name, a model of the current controller, or <controller>:<model>. With no argument, show the current one.',
    )
    .argument('[target]', 'a controller, a model, or <controller>:<model>')
    .addHelpText('after', '\nExamples:\n  drover switch\n  drover switch staging\n  drover switch local:default')
    .action(async (target: string | undefined) => {
      const config = await readConfig(cli.io.env);
      if (target === undefined) {
        if (!config.current) throw new CliError('no controller selected; use "drover switch <name>" (see "drover controllers")');
        return cli.io.stdout(`${config.current}:${currentModelOf(config, config.current)}\n`);
      }
      const notFound = new CliError(`"${target}" is not the name of a model or controller`);
      const requested = parseModelOption(target);
      const [controller, model] = target.includes(':')
        ? [requested.controller ?? '', requested.model ?? '']
        : config.controllers[target]
          ? [target, '']
          : [config.current ?? '', requested.model ?? ''];
      if (!config.controllers[controller]) throw notFound;
      if (requested.owner !== undefined && requested.owner !== MODEL_OWNER) throw notFound;
      // A model named must exist on that controller: ask it. A controller alone keeps its current model.
      if (model) await checkModelExists(cli, controller, model, notFound);
      const selected = model || currentModelOf(config, controller);
      const previous = await setCurrentModel(cli, controller, selected);
      cli.io.stderr(`${previous} -> ${controller}:${selected}\n`);
    });
}
