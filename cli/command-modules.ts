// Every command module, in the order of `drover help`, with the names (aliases included) of the
// commands it registers. A run that names a command loads and registers its module alone, so
// `drover status` does not load what deploy, bundles or the dashboard need (in the `drover` bin's
// bundle each module is a chunk of its own, loaded on demand: cli/launch/cli-bundle.mjs). Help, an
// unknown command or anything unusual loads them all, so a name missing here costs time, never
// behaviour; test/unit/cli/command-modules.test.ts checks the names against what each registers.
import type { Command } from 'commander';
import type { Cli } from './context.js';

export type Register = (program: Command, cli: Cli) => void;

export interface CommandModule {
  /** The heading it starts in `drover help`, if it is the first module of one. */
  group?: string;
  names: string[];
  load(): Promise<Register>;
  /**
   * Everything after the command's name is the command's own (ssh's remote command and its
   * options): drover's global options are read before the name only, so `drover ssh 0 grep -m 1 x`
   * leaves `-m` to grep.
   */
  ownsItsArguments?: true;
}

export const COMMAND_MODULES: CommandModule[] = [
  {
    group: 'Controllers:',
    names: ['bootstrap', 'register', 'register-local', 'controllers', 'list-controllers', 'kill-controller', 'unregister'],
    load: async () => (await import('./commands/controllers.js')).registerControllers,
  },
  {
    group: 'Models:',
    names: ['add-model', 'models', 'list-models', 'show-model', 'switch'],
    load: async () => (await import('./commands/models.js')).registerModels,
  },
  { names: ['destroy-model'], load: async () => (await import('./commands/destroy-model.js')).registerDestroyModel },
  { group: 'Deploying and scaling:', names: ['deploy'], load: async () => (await import('./commands/deploy.js')).registerDeploy },
  { names: ['export-bundle', 'diff-bundle'], load: async () => (await import('./commands/bundles.js')).registerBundles },
  { names: ['add-unit', 'add-machine'], load: async () => (await import('./commands/scale.js')).registerScale },
  {
    names: ['remove-unit', 'destroy-unit', 'remove-application', 'destroy-service', 'remove-service', 'remove-machine', 'destroy-machine'],
    load: async () => (await import('./commands/remove.js')).registerRemovals,
  },
  { names: ['upgrade-charm', 'refresh'], load: async () => (await import('./commands/upgrade-charm.js')).registerUpgradeCharm },
  {
    names: [
      'storage',
      'list-storage',
      'show-storage',
      'storage-pools',
      'list-storage-pools',
      'add-storage',
      'detach-storage',
      'remove-storage',
    ],
    load: async () => (await import('./commands/storage.js')).registerStorage,
  },
  {
    names: ['resources', 'list-resources', 'attach-resource'],
    load: async () => (await import('./commands/resources.js')).registerResources,
  },
  { group: 'Charmhub:', names: ['info'], load: async () => (await import('./commands/info.js')).registerInfo },
  { names: ['find'], load: async () => (await import('./commands/find.js')).registerFind },
  { names: ['download'], load: async () => (await import('./commands/download.js')).registerDownload },
  {
    group: 'Relations:',
    names: ['relate', 'add-relation', 'integrate', 'remove-relation', 'destroy-relation'],
    load: async () => (await import('./commands/relations.js')).registerRelations,
  },
  {
    names: ['offer', 'offers', 'list-offers', 'show-offer', 'find-offers', 'remove-offer'],
    load: async () => (await import('./commands/offers.js')).registerOffers,
  },
  { names: ['consume', 'remove-saas'], load: async () => (await import('./commands/consume.js')).registerConsume },
  {
    group: 'Constraints and configuration:',
    names: ['set-constraints', 'get-constraints', 'constraints', 'set-model-constraints', 'model-constraints', 'get-model-constraints'],
    load: async () => (await import('./commands/constraints.js')).registerConstraints,
  },
  { names: ['model-config'], load: async () => (await import('./commands/model-config.js')).registerModelConfig },
  { names: ['model-defaults', 'model-default'], load: async () => (await import('./commands/model-defaults.js')).registerModelDefaults },
  { names: ['config', 'expose', 'unexpose', 'trust'], load: async () => (await import('./commands/config.js')).registerConfig },
  {
    names: ['add-secret', 'update-secret', 'remove-secret', 'grant-secret', 'revoke-secret', 'secrets', 'list-secrets', 'show-secret'],
    load: async () => (await import('./commands/secrets.js')).registerSecrets,
  },
  {
    group: 'Errors and provisioning:',
    names: ['resolved', 'resolve', 'retry-provisioning'],
    load: async () => (await import('./commands/remedies.js')).registerRemedies,
  },
  {
    group: 'Actions:',
    names: ['actions', 'list-actions', 'run', 'show-task', 'cancel-task', 'operations', 'list-operations', 'show-operation'],
    load: async () => (await import('./commands/actions.js')).registerActions,
  },
  { names: ['exec'], load: async () => (await import('./commands/exec.js')).registerExec },
  {
    group: 'Machines over SSH:',
    names: ['ssh'],
    load: async () => (await import('./commands/ssh.js')).registerSsh,
    ownsItsArguments: true,
  },
  { names: ['scp'], load: async () => (await import('./commands/scp.js')).registerScp, ownsItsArguments: true },
  { names: ['add-ssh-key'], load: async () => (await import('./commands/add-ssh-key.js')).registerAddSshKey },
  { names: ['ssh-keys', 'list-ssh-keys'], load: async () => (await import('./commands/ssh-keys.js')).registerSshKeys },
  { names: ['remove-ssh-key'], load: async () => (await import('./commands/remove-ssh-key.js')).registerRemoveSshKey },
  { names: ['import-ssh-key'], load: async () => (await import('./commands/import-ssh-key.js')).registerImportSshKey },
  {
    group: 'Inspection:',
    names: ['status', 'show-status', 'show-machine'],
    load: async () => (await import('./commands/status.js')).registerStatus,
  },
  { names: ['show-unit', 'show-application'], load: async () => (await import('./commands/show-entities.js')).registerShowEntities },
  { names: ['stuck'], load: async () => (await import('./commands/stuck.js')).registerStuck },
  { names: ['debug-log', 'show-status-log'], load: async () => (await import('./commands/logs.js')).registerLogs },
  { names: ['dashboard'], load: async () => (await import('./commands/dashboard.js')).registerDashboard },
  { names: ['version'], load: async () => (await import('./commands/version.js')).registerVersion },
  {
    group: 'Not in drover:',
    names: ['add-cloud', 'update-cloud', 'add-credential', 'update-credential', 'add-k8s'],
    load: async () => (await import('./commands/unsupported.js')).registerUnsupported,
  },
];

/** The global options that take a value, as `drover -m <model> <command>` spells them. */
const VALUE_OPTIONS = new Set(['-m', '--model']);

/**
 * The modules a run needs: the named command's, or all of them (help, an unknown command, or
 * arguments this does not read the way commander would).
 */
export function modulesFor(argv: string[]): CommandModule[] {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (VALUE_OPTIONS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('--model=') || (arg.startsWith('-m') && arg.length > 2 && !arg.startsWith('--'))) continue;
    if (arg.startsWith('-')) break;
    const named = COMMAND_MODULES.find((m) => m.names.includes(arg));
    return named ? [named] : COMMAND_MODULES;
  }
  return COMMAND_MODULES;
}
