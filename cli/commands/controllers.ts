// Controllers: bootstrap a local one, register an AWS one, list, kill, unregister (switch: models.ts). The
// client config (cli/config.ts) records them; every other command talks to the current one.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { ApiClient, regionFromUrl } from '../client.js';
import { droverHome, readConfig, updateConfig, type ControllerEntry } from '../config.js';
import { DEFAULT_MODEL } from '#shared/domain/models.js';
import { collect, splitAssignment } from '../arguments.js';
import { currentModelOf, type Cli } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { checkModelConfigValue } from '../model-config-values.js';
import { printData, type DataFormat } from '../output.js';
import { renderTable, type Cell } from '../table.js';

const NAME = /^[a-z0-9][a-z0-9.-]*$/;

function checkName(name: string): void {
  if (!NAME.test(name)) throw new UsageError(`invalid controller name "${name}": use lowercase letters, digits, "." and "-"`);
}

async function checkUnused(cli: Cli, name: string): Promise<void> {
  if ((await readConfig(cli.io.env)).controllers[name]) throw new CliError(`controller "${name}" already exists`);
}

/** The name of the local controller recorded with `dataDir`, if any. */
function recordedWithDataDir(controllers: Record<string, ControllerEntry>, dataDir: string): string | undefined {
  return Object.entries(controllers).find(([, c]) => c.type === 'local' && c.dataDir === dataDir)?.[0];
}

async function record(cli: Cli, name: string, controller: ControllerEntry): Promise<void> {
  await updateConfig(cli.io.env, (config) => {
    config.controllers[name] = controller;
    config.current = name;
  });
}

async function forget(cli: Cli, name: string): Promise<void> {
  await updateConfig(cli.io.env, (config) => {
    delete config.controllers[name];
    if (config.current === name) delete config.current;
  });
}

/** `--model-default key=value` pairs, each checked as model-defaults checks it, before anything starts. */
function checkedModelDefaults(pairs: string[]): Record<string, string> {
  const defaults: Record<string, string> = {};
  for (const item of pairs) {
    const pair = splitAssignment(item);
    if (!pair) throw new UsageError(`expected "key=value", got "${item}"`);
    checkModelConfigValue(pair[0], pair[1]);
    defaults[pair[0]] = pair[1];
  }
  return defaults;
}

export function registerControllers(program: Command, cli: Cli): void {
  program
    .command('bootstrap')
    .summary('Start a local controller and make it current.')
    .description(
      'Start a local controller in the background, under a supervisor that restarts it after a crash, and make it the ' +
        'current controller. Given the data directory of a stopped controller, start it again on its data.',
    )
    .argument('<cloud>', '"local" (AWS controllers are deployed with CDK and added with "drover register")')
    .argument('[controller-name]', 'the name to record it under (default: the one its --data-dir is recorded under, or "local")')
    .option('--data-dir <dir>', "the controller's state, log and agents (default: $DROVER_HOME/controllers/<name>)")
    .option(
      '--model-default <key=value>',
      'a default for every model, bootstrap\'s "default" included (repeatable; see model-defaults)',
      collect,
    )
    .addHelpText(
      'after',
      '\nExamples:\n  drover bootstrap local\n  drover bootstrap local dev --data-dir /var/tmp/drover-dev\n' +
        '  drover bootstrap local --data-dir /var/tmp/drover-dev   # a stopped controller, started again\n' +
        '  drover bootstrap local --model-default charmhub-url=http://10.0.0.5:8080',
    )
    .action(async (cloud: string, givenName: string | undefined, opts: { dataDir?: string; modelDefault?: string[] }) => {
      if (cloud !== 'local') {
        throw new CliError(
          `unknown cloud "${cloud}": drover bootstraps "local"; deploy an AWS controller with CDK (infra/) and add it with "drover register <api-url>"`,
        );
      }
      const config = await readConfig(cli.io.env);
      const givenDir = opts.dataDir === undefined ? undefined : resolve(opts.dataDir);
      const name = givenName ?? (givenDir && recordedWithDataDir(config.controllers, givenDir)) ?? 'local';
      checkName(name);
      const modelDefaults = checkedModelDefaults(opts.modelDefault ?? []);
      const dataDir = givenDir ?? join(droverHome(cli.io.env), 'controllers', name);
      const recorded = config.controllers[name];
      const { localControllerState, startLocalController } = await import('../local-controller.js');
      // Juju refuses a name it knows; a local controller recorded on this very directory that has
      // stopped is started again instead, since that is what its connection error tells the user to run.
      if (recorded && (recorded.type !== 'local' || recorded.dataDir !== dataDir))
        throw new CliError(`controller "${name}" already exists`);
      const state = await localControllerState(dataDir);
      if (recorded && state.kind === 'running')
        throw new CliError(`controller "${name}" already exists and is running from ${dataDir} (pid ${state.pid})`);
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      const started = await startLocalController(cli.io, dataDir, modelDefaults);
      await record(cli, name, { type: 'local', apiUrl: started.apiUrl, token: started.token, dataDir, pid: started.pid });
      if (state.kind === 'stopped') {
        cli.io.stderr(
          `Controller "${name}" (${started.controllerId}) started again on its data in ${dataDir}; it is available at ${started.apiUrl}\n`,
        );
        cli.io.stderr('Its models carry on, and its machine agents resume\n');
        return;
      }
      cli.io.stderr(`Bootstrap complete, controller "${name}" is now available at ${started.apiUrl}\n`);
      cli.io.stderr(`Model "${DEFAULT_MODEL}" is ready; its data and log are in ${dataDir}\n`);
      for (const warning of started.warnings ?? []) cli.io.stderr(`WARNING ${warning}\n`);
    });

  program
    .command('register')
    .summary('Add an AWS controller by its API URL.')
    .description('Add an AWS controller by its API URL; requests are signed with your AWS credentials (SigV4).')
    .argument('<api-url>', 'the API URL printed by "cdk deploy"')
    .argument('[controller-name]', 'the name to record it under', 'aws')
    .option('--region <region>', 'the AWS region (default: from the URL, or AWS_REGION)')
    .addHelpText(
      'after',
      '\nExamples:\n  drover register https://abc123.execute-api.eu-west-1.amazonaws.com\n  drover register https://api.example.com prod --region us-east-1',
    )
    .action(async (apiUrl: string, name: string, opts: { region?: string }) => {
      let url: URL;
      try {
        url = new URL(apiUrl);
      } catch {
        throw new UsageError(`invalid API URL "${apiUrl}"`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`invalid API URL "${apiUrl}": use https://`);
      checkName(name);
      await checkUnused(cli, name);
      const region = opts.region ?? regionFromUrl(apiUrl) ?? cli.io.env.AWS_REGION ?? cli.io.env.AWS_DEFAULT_REGION;
      if (!region) throw new CliError(`cannot tell the region of ${apiUrl}; give it with --region`);
      const controller: ControllerEntry = { type: 'aws', apiUrl: url.href.replace(/\/+$/, ''), region };
      // Registering a controller that does not answer, or refuses these credentials, helps nobody.
      await new ApiClient({ name, controller }, { signal: cli.io.signal }).get('models');
      await record(cli, name, controller);
      cli.io.stderr(`Registered controller "${name}" (${region}); it is now the current controller\n`);
    });

  program
    .command('register-local')
    .summary('Add a local controller started with "npm start".')
    .description('Add a local controller that is already running (e.g. started with "npm start"), by its data directory.')
    .argument('<data-dir>', "the controller's data directory (it holds controller.json)")
    .argument('[controller-name]', 'the name to record it under', 'local')
    .addHelpText('after', '\nExamples:\n  drover register-local .drover/controller')
    .action(async (dir: string, name: string) => {
      checkName(name);
      await checkUnused(cli, name);
      const dataDir = resolve(dir);
      const { readControllerFile } = await import('../local-controller.js');
      const file = await readControllerFile(dataDir);
      if (!file)
        throw new CliError(
          `no running controller in ${dataDir} (no controller.json); start one with "npm start" or "drover bootstrap local"`,
        );
      const controller: ControllerEntry = { type: 'local', apiUrl: file.apiUrl, token: file.token, dataDir, pid: file.pid };
      await new ApiClient({ name, controller }, { signal: cli.io.signal }).get('models');
      await record(cli, name, controller);
      cli.io.stderr(`Registered controller "${name}" at ${file.apiUrl}; it is now the current controller\n`);
    });

  program
    .command('controllers')
    .alias('list-controllers')
    .summary('List controllers; * marks the current one.')
    .description('List the controllers this client knows; * marks the current one.')
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'json', 'yaml']).default('tabular'))
    .addHelpText('after', '\nExamples:\n  drover controllers\n  drover controllers --format json')
    .action(async (opts: { format: 'tabular' | DataFormat }) => {
      const config = await readConfig(cli.io.env);
      const names = Object.keys(config.controllers).sort();
      if (opts.format !== 'tabular') {
        const controllers = Object.fromEntries(
          names.map((n) => {
            const c = config.controllers[n]!;
            // Tokens stay in the config file; they are not output.
            return [
              n,
              {
                type: c.type,
                'api-url': c.apiUrl,
                ...(c.region ? { region: c.region } : {}),
                ...(c.dataDir ? { 'data-dir': c.dataDir } : {}),
              },
            ];
          }),
        );
        return printData(cli.io, { controllers, ...(config.current ? { 'current-controller': config.current } : {}) }, opts.format);
      }
      if (!names.length) {
        return cli.io.stderr(
          'No controllers registered.\n\nCreate one with "drover bootstrap local", or add an AWS controller with "drover register <api-url>".\n',
        );
      }
      const rows: Cell[][] = [['Controller', 'Model', 'Type', 'Region', 'API URL']];
      for (const n of names) {
        const c = config.controllers[n]!;
        rows.push([n === config.current ? `${n}*` : n, currentModelOf(config, n), c.type, c.region ?? '', c.apiUrl]);
      }
      cli.io.stdout(renderTable(rows, cli.colour));
    });

  program
    .command('kill-controller')
    .summary('Stop a local controller and forget it.')
    .description('Stop a local controller and forget it (its data directory is kept).')
    .argument('<controller>', 'the controller')
    .option('-y, --no-prompt', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  drover kill-controller local\n  drover kill-controller local -y')
    .action(async (name: string, opts: { prompt: boolean }) => {
      const controller = (await readConfig(cli.io.env)).controllers[name];
      if (!controller) throw new CliError(`controller "${name}" not found; see "drover controllers"`);
      if (controller.type !== 'local' || !controller.dataDir) {
        throw new CliError(
          `controller "${name}" runs on AWS: destroy it with "cdk destroy" (infra/), then forget it with "drover unregister ${name}"`,
        );
      }
      if (opts.prompt) {
        cli.io.stderr(
          `WARNING This stops the local controller "${name}" and its agents; its data stays in ${controller.dataDir}.\n\nContinue? (y/N): `,
        );
        const answer = (await cli.io.readLine())?.trim().toLowerCase();
        if (answer !== 'y' && answer !== 'yes') throw new CliError('controller destruction aborted');
      }
      const { stopLocalController } = await import('../local-controller.js');
      const stopped = await stopLocalController(controller.dataDir, controller.pid, cli.io.signal);
      await forget(cli, name);
      cli.io.stderr(stopped ? `Stopped controller "${name}"\n` : `Controller "${name}" was not running; forgot it\n`);
    });

  program
    .command('unregister')
    .description('Forget a controller without stopping it.')
    .argument('<controller>', 'the controller')
    // Juju 3.6 asks first unless --no-prompt; forgetting a controller here loses nothing it cannot register again.
    .option('--no-prompt', 'do not ask for confirmation (drover does not ask)')
    .addHelpText('after', '\nExamples:\n  drover unregister aws --no-prompt')
    .action(async (name: string) => {
      if (!(await readConfig(cli.io.env)).controllers[name]) throw new CliError(`controller "${name}" not found; see "drover controllers"`);
      await forget(cli, name);
      cli.io.stderr(`Removed details of controller "${name}"\n`);
    });
}
