// The model's secrets, as Juju 3.6's add-secret, update-secret, remove-secret, secrets,
// show-secret, grant-secret and revoke-secret (https://github.com/juju/juju/tree/3.6/cmd/juju/secrets):
// the same arguments, and the same JSON and YAML, keyed by the secret's id. Content is read here
// (`key=value`, `key#base64=`, `key#file=`, or `--file` YAML/JSON), sent base64-encoded per key,
// and shown only by show-secret --reveal.
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { isDroverError, errorMessage } from '#shared/domain/errors.js';
import { secretDataFromPairs, splitSecretArg } from '#shared/domain/secrets.js';
import { parseYaml } from '#shared/domain/yaml.js';
import { commaList } from '../arguments.js';
import type { Cli } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { printData, type DataFormat } from '../output.js';
import { renderTable } from '../table.js';

interface SecretDisplay {
  revision: number;
  owner: string;
  name?: string;
  rotation?: string;
  updated: string;
}

/** Juju's words for a bad argument are its own; a domain check's error becomes a usage error. */
function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (isDroverError(e)) throw new UsageError(e.message);
    throw e;
  }
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read "${path}": ${errorMessage(e)}`);
  }
}

/** The content the arguments and `--file` give, base64-encoded per key (core/secrets/createsecret.go). */
export async function secretContent(args: string[], file: string | undefined): Promise<Record<string, string> | undefined> {
  const pairs: Record<string, string> = {};
  if (file !== undefined) {
    let doc: unknown;
    try {
      doc = parseYaml(await readText(file));
    } catch (e) {
      if (e instanceof CliError) throw e;
      throw new CliError(`cannot parse "${file}": ${errorMessage(e).split('\n')[0]}`);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new CliError(`"${file}" must be a map of keys to values`);
    for (const [k, v] of Object.entries(doc)) pairs[k] = typeof v === 'string' ? v : String(v);
  }
  for (const arg of args) {
    const [key, value] = asUsage(() => splitSecretArg(arg));
    if (key.endsWith('#file')) pairs[key.slice(0, -'#file'.length)] = await readText(value);
    else pairs[key] = value;
  }
  if (Object.keys(pairs).length === 0) return undefined;
  return asUsage(() => secretDataFromPairs(pairs));
}

/** Juju's UserFriendlyDuration (cmd/juju/common): "now", "n seconds ago", ..., or the date past a day. */
export function friendlyAge(when: Date, now: Date): string {
  const seconds = (now.getTime() - when.getTime()) / 1000;
  const ago = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  if (seconds >= 86_400) return when.toISOString().slice(0, 10);
  if (seconds >= 3600) return ago(Math.floor(seconds / 3600), 'hour');
  if (seconds >= 60) return ago(Math.floor(seconds / 60), 'minute');
  if (seconds >= 2) return ago(Math.floor(seconds), 'second');
  return 'now';
}

/** `juju secrets`'s table: by owner, then newest revision first. */
export function secretsTable(secrets: Record<string, SecretDisplay>, now: Date): string {
  const rows = Object.entries(secrets).sort(([, a], [, b]) =>
    a.owner !== b.owner ? (a.owner < b.owner ? -1 : 1) : b.revision - a.revision,
  );
  return renderTable(
    [
      ['ID', 'Name', 'Owner', 'Rotation', 'Revision', 'Last updated'],
      ...rows.map(([id, s]) => [id, s.name ?? '-', s.owner, s.rotation ?? '', String(s.revision), friendlyAge(new Date(s.updated), now)]),
    ],
    false,
    [],
    [4],
  );
}

const formatOption = (fallback: string, choices: string[]) =>
  new Option('--format <format>', 'output format').choices(choices).default(fallback);

export function registerSecrets(program: Command, cli: Cli): void {
  program
    .command('add-secret')
    .summary('Add a new secret.')
    .argument('<name>', 'the secret name')
    .argument('[content...]', 'key=value, key#base64=value or key#file=path')
    .option('--info <description>', 'the secret description')
    .option('--file <path>', 'a YAML or JSON file with the content')
    .action(async (name: string, args: string[], opts: { info?: string; file?: string }) => {
      const content = await secretContent(args, opts.file);
      if (!content) throw new UsageError('missing secret value or filename');
      const client = await cli.client();
      const { uri } = await client.post<'add-secret', { uri: string }>('add-secret', {
        name,
        content,
        ...(opts.info !== undefined ? { description: opts.info } : {}),
      });
      cli.io.stdout(`${uri}\n`);
    });

  program
    .command('update-secret')
    .summary('Update an existing secret.')
    .argument('<secret>', 'the secret URI or name')
    .argument('[content...]', 'key=value, key#base64=value or key#file=path')
    .option('--info <description>', 'the new description')
    .option('--name <name>', 'the new name')
    .option('--file <path>', 'a YAML or JSON file with the content')
    .option('--auto-prune', 'remove revisions no longer tracked by anyone')
    .action(async (secret: string, args: string[], opts: { info?: string; name?: string; file?: string; autoPrune?: boolean }) => {
      const content = await secretContent(args, opts.file);
      const client = await cli.client();
      await client.post('update-secret', {
        secret,
        ...(content ? { content } : {}),
        ...(opts.info !== undefined ? { description: opts.info } : {}),
        ...(opts.name !== undefined ? { name: opts.name } : {}),
        ...(opts.autoPrune ? { autoPrune: true } : {}),
      });
    });

  program
    .command('remove-secret')
    .summary('Remove an existing secret.')
    .argument('<secret>', 'the secret URI or name')
    .option('--revision <n>', 'remove only this revision', (v: string) => {
      if (!/^[1-9][0-9]*$/.test(v)) throw new UsageError(`invalid revision "${v}"`);
      return Number(v);
    })
    .action(async (secret: string, opts: { revision?: number }) => {
      const client = await cli.client();
      await client.post('remove-secret', { secret, ...(opts.revision !== undefined ? { revision: opts.revision } : {}) });
    });

  for (const [verb, summary] of [
    ['grant-secret', 'Grant access to a secret.'],
    ['revoke-secret', 'Revoke access to a secret.'],
  ] as const) {
    program
      .command(verb)
      .summary(summary)
      .argument('<secret>', 'the secret URI or name')
      .argument('<applications>', 'application names, comma-separated', commaList)
      .action(async (secret: string, applications: string[]) => {
        const client = await cli.client();
        await client.post(verb, { secret, applications });
      });
  }

  program
    .command('secrets')
    .alias('list-secrets')
    .summary('Lists secrets available in the model.')
    .option('--owner <owner>', 'include secrets for the specified owner (application-<name> or unit-<name>-<n>)')
    .addOption(formatOption('tabular', ['tabular', 'yaml', 'json']))
    .action(async (opts: { owner?: string; format: 'tabular' | DataFormat }) => {
      const client = await cli.client();
      const secrets = await client.get<Record<string, SecretDisplay>>('secrets', opts.owner !== undefined ? { owner: opts.owner } : {});
      if (opts.format !== 'tabular') return printData(cli.io, secrets, opts.format);
      cli.io.stdout(secretsTable(secrets, new Date()));
    });

  program
    .command('show-secret')
    .summary('Shows details for a specific secret.')
    .argument('<secret>', 'the secret URI or name')
    .option('--reveal', 'include the secret content')
    .option('--revision <n>', 'the revision to show')
    .option('--revisions', "show the secret's revisions")
    .addOption(formatOption('yaml', ['yaml', 'json']))
    .action(async (secret: string, opts: { reveal?: boolean; revision?: string; revisions?: boolean; format: DataFormat }) => {
      if (opts.revisions && (opts.reveal || opts.revision !== undefined))
        throw new UsageError('specify either --revisions or --reveal but not both');
      if (opts.revision !== undefined && !/^[1-9][0-9]*$/.test(opts.revision)) throw new UsageError(`invalid revision "${opts.revision}"`);
      const client = await cli.client();
      const shown = await client.get('show-secret', {
        secret,
        ...(opts.reveal ? { reveal: 'true' } : {}),
        ...(opts.revision !== undefined ? { revision: opts.revision } : {}),
        ...(opts.revisions ? { revisions: 'true' } : {}),
      });
      printData(cli.io, shown, opts.format);
    });
}
