// info <charm>: a Charmhub charm's details as `juju info` prints them
// (https://github.com/juju/juju/blob/3.6/cmd/juju/charmhub/info.go and infowriter.go): YAML with
// its publisher, summary, bases, relations and a table of its channels, each track's risks in
// Juju's order, a risk without a release of its own pointing up (↑) to the one above or showing
// a dash (–) when none above has one either.
import { Option, type Command } from 'commander';
import type { InfoChannelMap, InfoResponse } from '#shared/charmhub/transport.js';
import { RISKS } from '#shared/charmhub/channel.js';
import { parseYaml } from '#shared/domain/yaml.js';
import { charmhubFailure, cliCharmhub } from '../charmhub-client.js';
import type { Cli } from '../context.js';
import { CliError } from '../errors.js';
import { formatData } from '../output.js';
import { renderTable } from '../table.js';

/** Juju's sizeToStr: decimal units, rounded down. */
function sizeToStr(size: number): string {
  let rest = size;
  for (const suffix of ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB']) {
    if (rest < 1000) return `${rest}${suffix}`;
    rest = Math.floor(rest / 1000);
  }
  return '';
}

/** The channels table: each track's risks in Juju's order, as infowriter's channels(). */
function channelsTable(map: InfoChannelMap[], unicode: boolean): string {
  const tracks = [...new Set(map.map((m) => m.channel.track))];
  const rows: string[][] = [];
  for (const track of tracks) {
    let shown = false;
    for (const risk of RISKS) {
      const releases = map.filter((m) => m.channel.track === track && m.channel.risk === risk);
      const latest = releases[0];
      if (!latest) {
        rows.push([`${track}/${risk}:`, shown ? (unicode ? '↑' : '^') : unicode ? '–' : '--']);
        continue;
      }
      shown = true;
      const revision = latest.revision;
      const arches = [...new Set(releases.map((r) => r.channel.base.architecture))].join(', ');
      const bases = [...new Set(releases.map((r) => `${r.channel.base.name}@${r.channel.base.channel}`))].join(', ');
      rows.push([
        `${track}/${risk}:`,
        revision.version ?? '',
        (latest.channel['released-at'] ?? '').slice(0, 10),
        `(${revision.revision})`,
        sizeToStr(revision.download?.size ?? 0),
        arches,
        bases,
      ]);
    }
  }
  return renderTable(rows, false);
}

/** provides/requires of the default release's metadata.yaml: endpoint → interface. */
function relationsOf(metadataYaml: string | undefined): { subordinate: boolean; relations?: Record<string, Record<string, string>> } {
  if (!metadataYaml) return { subordinate: false };
  let meta: Record<string, unknown>;
  try {
    meta = (parseYaml(metadataYaml) ?? {}) as Record<string, unknown>;
  } catch {
    return { subordinate: false };
  }
  const relations: Record<string, Record<string, string>> = {};
  for (const role of ['provides', 'requires'] as const) {
    const endpoints = meta[role];
    if (typeof endpoints !== 'object' || endpoints === null) continue;
    relations[role] = Object.fromEntries(
      Object.entries(endpoints).map(([name, spec]) => [
        name,
        typeof spec === 'string' ? spec : String((spec as { interface?: unknown }).interface ?? ''),
      ]),
    );
  }
  return { subordinate: meta.subordinate === true, ...(Object.keys(relations).length ? { relations } : {}) };
}

function infoView(info: InfoResponse, unicode: boolean) {
  const release = info['default-release'];
  const { subordinate, relations } = relationsOf(release?.revision['metadata-yaml']);
  const supports = [...new Set((release?.revision.bases ?? []).map((b) => `${b.name}@${b.channel}`))];
  const channels = channelsTable(info['channel-map'], unicode);
  return {
    name: info.name,
    ...(info.result.publisher?.['display-name'] ? { publisher: info.result.publisher['display-name'] } : {}),
    ...(info.result.summary ? { summary: info.result.summary } : {}),
    ...(info.result.description ? { description: info.result.description } : {}),
    ...(info.result['store-url'] ? { 'store-url': info.result['store-url'] } : {}),
    [info.type === 'bundle' ? 'bundle-id' : 'charm-id']: info.id,
    ...(supports.length ? { supports: supports.join(', ') } : {}),
    ...(info.type === 'charm' ? { subordinate } : {}),
    ...(relations ? { relations } : {}),
    ...(channels ? { channels } : {}),
  };
}

export function registerInfo(program: Command, cli: Cli): void {
  program
    .command('info')
    .description('Displays detailed information about CharmHub charms.')
    .argument('<charm>', 'the charm or bundle on Charmhub')
    .option('--channel <channel>', 'specify a channel to use instead of the default release')
    .option('--charmhub-url <url>', "the Charmhub to query (default: the model's charmhub-url, or https://api.charmhub.io)")
    .addOption(new Option('--unicode <mode>', 'display output using unicode').choices(['auto', 'never', 'always']).default('auto'))
    .addOption(new Option('--format <format>', 'output format').choices(['tabular', 'json', 'yaml']).default('tabular'))
    .addHelpText('after', '\nExamples:\n  drover info postgresql\n  drover info postgresql --channel 14/edge')
    .action(
      async (charm: string, opts: { channel?: string; charmhubUrl?: string; unicode: string; format: 'tabular' | 'json' | 'yaml' }) => {
        if (charm.startsWith('./') || charm.startsWith('/')) throw new CliError(`"${charm}" is a path: info shows charms on Charmhub`);
        const client = await cliCharmhub(cli, opts.charmhubUrl);
        const info = await client
          .info(charm.replace(/^ch:/, ''), opts.channel !== undefined ? { channel: opts.channel } : {})
          .catch(charmhubFailure);
        const locale = `${cli.io.env.LC_ALL ?? ''}${cli.io.env.LANG ?? ''}`;
        const unicode = opts.unicode === 'always' || (opts.unicode === 'auto' && /utf-?8/i.test(locale));
        const view = infoView(info, unicode);
        // Juju's tabular info is YAML, as snap info's is.
        cli.io.stdout(formatData(view, opts.format === 'json' ? 'json' : 'yaml'));
      },
    );
}
