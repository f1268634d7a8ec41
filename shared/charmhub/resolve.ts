// Resolving a charm deployed by name, as Juju 3.6's controller does
// (https://github.com/juju/juju/blob/3.6/core/charm/repository/charmhub.go,
// ResolveWithPreferredChannel): one install action with the channel or revision and the base
// wanted; when Charmhub answers that the base is not one the charm has, the next try takes the
// base it suggests; when nothing matches, Juju's message lists what the channel does offer.
import { invalidArgument, notFound } from '../domain/errors.js';
import { fullChannel, normalizedChannel, parseChannel } from './channel.js';
import { CharmhubError, NOT_AVAILABLE, type CharmhubClient, type InstallQuery } from './client.js';
import type { ChApiError, ChBase, RefreshEntity } from './transport.js';

export interface ResolveRequest {
  name: string;
  channel?: string;
  revision?: number;
  /** `ubuntu@22.04`-style base, split. */
  base?: { name: string; channel: string };
  /** The bases to prefer when Charmhub leaves the choice to us, best first (the model's default first). */
  preferredBases?: { name: string; channel: string }[];
  architecture?: string;
}

export interface ResolvedCharm {
  entity: RefreshEntity;
  /** The channel the charm tracks from now on, with its track (`latest/stable`), as status shows it. */
  channel: string;
  /** The channel as Juju's messages print it (`stable`, `14/stable`). */
  displayChannel: string;
  /** The base the charm is deployed on. */
  base: ChBase;
}

const formatPlatform = (architecture: string, base?: { name: string; channel: string }) =>
  base ? `${architecture}/${base.name}/${base.channel}` : architecture;

/** Juju's composeSuggestions: each channel's bases for this architecture. */
function suggestions(error: ChApiError, architecture: string): string {
  const byChannel = new Map<string, string[]>();
  for (const release of error.extra?.releases ?? []) {
    if (release.base.architecture !== architecture && release.base.architecture !== 'all') continue;
    const bases = byChannel.get(release.channel) ?? [];
    const base = `${release.base.name}@${release.base.channel}`;
    if (!bases.includes(base)) bases.push(base);
    byChannel.set(release.channel, bases);
  }
  const lines = [...byChannel].map(([channel, bases]) => `channel "${channel}": available bases are: ${bases.join(', ')}`);
  return lines.length ? `\navailable releases are:\n  ${lines.join('\n  ')}` : '';
}

const sameBase = (a: { name: string; channel: string }, b: { name: string; channel: string }) =>
  a.name === b.name && a.channel.replace(/\/stable$/, '') === b.channel.replace(/\/stable$/, '');

export async function resolveCharm(client: CharmhubClient, request: ResolveRequest): Promise<ResolvedCharm> {
  const architecture = request.architecture ?? 'amd64';
  const channel = request.channel !== undefined ? parseChannel(request.channel) : undefined;
  const query: InstallQuery = {
    name: request.name,
    architecture,
    ...(channel ? { channel: normalizedChannel(channel) } : {}),
    ...(request.revision !== undefined ? { revision: request.revision } : {}),
    ...(request.base ? { base: request.base } : {}),
  };
  let result;
  try {
    result = await client.refreshInstall(query);
  } catch (e) {
    if (e instanceof CharmhubError) throw invalidArgument(`resolving with preferred channel: ${e.message}`);
    throw e;
  }
  let chosenBase = request.base;
  if (result.error && (result.error.code === 'invalid-charm-base' || result.error.code === 'invalid-charm-platform')) {
    // Charmhub wants a base: the preferred one it offers, or the first it suggests (Juju's selectNextBases).
    const offered = (result.error.extra?.['default-bases'] ?? []).filter(
      (b) => b.architecture === architecture || b.architecture === 'all',
    );
    const pick = (request.preferredBases ?? []).find((p) => offered.some((o) => sameBase(o, p))) ?? offered[0];
    if (!pick) throw invalidArgument(`no releases found for channel "${channel ? normalizedChannel(channel) : 'stable'}"`);
    chosenBase = { name: pick.name, channel: pick.channel };
    result = await client.refreshInstall({ ...query, base: chosenBase }).catch((e: unknown) => {
      throw e instanceof CharmhubError ? invalidArgument(`retrying: ${e.message}`) : e;
    });
    if (result.error) throw invalidArgument(`resolving retry error: ${result.error.message}`);
  }
  if (result.error) {
    if (result.error.code === 'revision-not-found') {
      const platform = formatPlatform(architecture, chosenBase && { name: chosenBase.name, channel: `${chosenBase.channel}/stable` });
      throw notFound(
        `selecting releases: charm or bundle not found for channel "${channel ? normalizedChannel(channel) : ''}", base "${platform}"${suggestions(result.error, architecture)}`,
      );
    }
    if (result.error.code === 'name-not-found' || result.error.code === 'not-found' || result.error.code === 'id-not-found')
      throw notFound(`resolving error: ${result.error.message}`);
    throw invalidArgument(`resolving error: ${result.error.message}`);
  }
  const entity = result.charm;
  if (!entity) throw invalidArgument(`resolving error: Charmhub answered no charm for "${request.name}"`);
  // A revision is in many channels: it tracks the channel asked for (Juju keeps the requested one).
  const tracked = parseChannel(
    request.revision !== undefined ? (request.channel ?? 'stable') : (result['effective-channel'] ?? request.channel ?? 'stable'),
  );
  const base =
    chosenBase && chosenBase.name !== NOT_AVAILABLE
      ? { architecture, ...chosenBase }
      : ((entity.bases ?? []).find((b) => (request.preferredBases ?? []).some((p) => sameBase(b, p))) ??
        entity.bases?.[entity.bases.length - 1] ?? { architecture, name: 'ubuntu', channel: '22.04' });
  return { entity, channel: fullChannel(tracked), displayChannel: normalizedChannel(tracked), base };
}
