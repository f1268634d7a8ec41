// download <charm> [--channel] [--revision] [--base] [--filepath]: a charm's .charm from Charmhub
// to this machine, as `juju download` fetches it
// (https://github.com/juju/juju/blob/3.6/cmd/juju/charmhub/download.go): resolved as deploy
// resolves it, checked against the sha256 Charmhub announced, written to
// `<name>_r<revision>.charm` unless --filepath says where.
import { rename, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { MAX_CHARM_BYTES } from '#shared/charmstore/charm-archive.js';
import { downloadChecked } from '#shared/charmhub/download.js';
import { resolveCharm } from '#shared/charmhub/resolve.js';
import { parseBase } from '#shared/domain/bases.js';
import { isDroverError } from '#shared/domain/errors.js';
import { nonNegativeInteger } from '../arguments.js';
import { charmhubFailure, cliCharmhub } from '../charmhub-client.js';
import { checkRevisionFlags } from '../charmhub-ref.js';
import type { Cli } from '../context.js';
import { CliError } from '../errors.js';

interface DownloadFlags {
  channel?: string;
  revision?: number;
  base?: string;
  filepath?: string;
  charmhubUrl?: string;
}

export function registerDownload(program: Command, cli: Cli): void {
  program
    .command('download')
    .description('Locates and then downloads a CharmHub charm.')
    .argument('<charm>', 'the charm on Charmhub')
    .option('--channel <channel>', 'specify a channel to use instead of the default release')
    .option('--revision <n>', 'specify a revision of the charm to download', nonNegativeInteger('--revision'))
    .option('--base <base>', 'specify a base, e.g. ubuntu@22.04')
    .option('--filepath <path>', 'filepath location of the charm to download to')
    .option('--charmhub-url <url>', "the Charmhub to query (default: the model's charmhub-url, or https://api.charmhub.io)")
    .addHelpText(
      'after',
      '\nExamples:\n  drover download postgresql --channel 14/stable\n  drover download postgresql --filepath ./pg.charm',
    )
    .action(async (charm: string, opts: DownloadFlags) => {
      checkRevisionFlags(opts);
      const name = charm.replace(/^ch:/, '');
      let base;
      try {
        base = opts.base !== undefined ? parseBase(opts.base) : undefined;
      } catch (e) {
        if (isDroverError(e)) throw new CliError(e.message);
        throw e;
      }
      const client = await cliCharmhub(cli, opts.charmhubUrl);
      const resolved = await resolveCharm(client, {
        name,
        ...(opts.channel !== undefined ? { channel: opts.channel } : {}),
        ...(opts.revision !== undefined ? { revision: opts.revision } : {}),
        ...(base ? { base: { name: base.os, channel: base.channel } } : {}),
        preferredBases: [{ name: 'ubuntu', channel: '22.04' }],
      }).catch((e: unknown) => {
        if (isDroverError(e)) throw new CliError(e.message);
        throw e;
      });
      const { entity } = resolved;
      const got = await downloadChecked(
        entity.download.url,
        { size: entity.download.size, ...(entity.download['hash-sha-256'] ? { sha256: entity.download['hash-sha-256'] } : {}) },
        { maxBytes: MAX_CHARM_BYTES, timeoutMs: 600_000 },
      ).catch(charmhubFailure);
      const path = opts.filepath ?? `./${entity.name}_r${entity.revision}.charm`;
      cli.io.stderr(
        `Fetching charm "${entity.name}" revision ${entity.revision} using "${resolved.displayChannel}" channel and base "${resolved.base.architecture}/${resolved.base.name}/${resolved.base.channel}"\n`,
      );
      // Written whole, then renamed: an interrupted download leaves no half charm under the name.
      const temporary = `${path}.${process.pid}.part`;
      await writeFile(temporary, got.bytes);
      await rename(temporary, path);
      cli.io.stderr(`Install the "${entity.name}" charm with:\n    drover deploy ${path}\n`);
    });
}
