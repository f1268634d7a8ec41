// A charm deployed by name: the controller, not the user's machine, resolves it on the model's
// Charmhub (`charmhub-url`) and downloads it, as Juju's controller does. The .charm is checked
// against the sha256 Charmhub announced and kept in the charm store under that hash, so a second
// deploy or refresh of the same revision downloads nothing; it is then read as an uploaded
// `.charm` is (hostile entries refused) and kept as the tar.gz the agents unpack. Its file
// resources come with it, each checked against Charmhub's SHA-384 (Juju's fingerprint), unless
// the user supplied one (`deploy --resource`). Nothing is committed until all of it is kept.
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import { MAX_CHARM_BYTES, packEntries } from '#shared/charmstore/charm-archive.js';
import { readCharmZip, rootFile } from '#shared/charmstore/charm-zip.js';
import { charmhubClient, CharmhubError } from '#shared/charmhub/client.js';
import { downloadChecked, type DownloadLimits } from '#shared/charmhub/download.js';
import { resolveCharm, type ResolvedCharm } from '#shared/charmhub/resolve.js';
import type { ChResourceRevision } from '#shared/charmhub/transport.js';
import { baseToSeries, parseBase, seriesToBase } from '#shared/domain/bases.js';
import { parseCharm, type CharmMeta } from '#shared/domain/charm.js';
import type { CharmhubOrigin } from '#shared/domain/charm-origin.js';
import { DroverError, invalidArgument } from '#shared/domain/errors.js';
import { checkCharmSize } from '#shared/domain/item-size.js';
import { charmhubUrlOf } from '#shared/domain/model-config.js';
import { MAX_RESOURCE_BYTES, type ApplicationResource } from '#shared/domain/resources.js';
import { invalidArchive } from './uploaded-charm.js';

/** How the controller talks to Charmhub: bounds, and the fetch tests may replace. */
export interface CharmhubSettings {
  /** Each Charmhub query's bound. */
  requestTimeoutMs: number;
  /** A charm's download: at most the bytes a charm may unpack to, in this time. */
  charm: DownloadLimits;
  resource: DownloadLimits;
  fetch?: typeof fetch;
}

export const DEFAULT_CHARMHUB_SETTINGS: CharmhubSettings = {
  requestTimeoutMs: 30_000,
  charm: { maxBytes: MAX_CHARM_BYTES, timeoutMs: 120_000 },
  resource: { maxBytes: MAX_RESOURCE_BYTES, timeoutMs: 300_000 },
};

export interface CharmhubCharmRequest {
  name: string;
  channel?: string;
  revision?: number;
  /** The series asked for (`--base`/`--series`), or the application's on refresh. */
  series?: string;
  /** The model's default series, the base to prefer when Charmhub leaves the choice. */
  defaultSeries: string;
  /** Resources the user uploads instead (deploy --resource): not fetched. */
  supplied?: string[];
  /** The resources the application already has: a revision it has is not fetched again. */
  current?: Record<string, ApplicationResource>;
  /** When its resources were fetched. */
  now: Date;
  /** Checked after resolving, before anything is downloaded (refresh: not the revision it runs). */
  beforeDownload?: (resolved: ResolvedCharm) => void;
}

export interface CharmhubCharm {
  charm: CharmMeta;
  charmArchive: string;
  origin: CharmhubOrigin;
  /** The series of the base Charmhub resolved. */
  series: string;
  resources: Record<string, ApplicationResource>;
  /** The channel as Juju's messages print it (`stable`, `14/stable`). */
  displayChannel: string;
}

const baseOf = (series: string) => {
  const base = seriesToBase(series);
  return { name: base.os, channel: base.channel };
};

function charmhubError(e: unknown): never {
  if (e instanceof CharmhubError) throw invalidArgument(e.message);
  throw e;
}

export async function fetchCharmhubCharm(
  charms: CharmStore,
  modelConfig: Record<string, string> | undefined,
  request: CharmhubCharmRequest,
  settings: CharmhubSettings = DEFAULT_CHARMHUB_SETTINGS,
): Promise<CharmhubCharm> {
  const client = charmhubClient(charmhubUrlOf(modelConfig), {
    timeoutMs: settings.requestTimeoutMs,
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  });
  const resolved = await resolveCharm(client, {
    name: request.name,
    ...(request.channel !== undefined ? { channel: request.channel } : {}),
    ...(request.revision !== undefined ? { revision: request.revision } : {}),
    ...(request.series ? { base: baseOf(request.series) } : {}),
    preferredBases: [baseOf(request.defaultSeries)],
  });
  const { entity } = resolved;
  if (entity.type === 'bundle') throw invalidArgument(`"${request.name}" is a bundle: drover deploys bundles from a local file only`);
  request.beforeDownload?.(resolved);
  const hash = entity.download['hash-sha-256'];
  if (!hash || !/^[0-9a-f]{64}$/.test(hash))
    throw invalidArgument(`Charmhub announced no sha256 for "${entity.name}" revision ${entity.revision}`);

  // Kept under Charmhub's own hash: the same revision is never downloaded twice.
  let zip = await charms.get(hash);
  if (!zip) {
    const got = await downloadChecked(
      entity.download.url,
      { size: entity.download.size, sha256: hash },
      settings.charm,
      settings.fetch,
    ).catch(charmhubError);
    zip = got.bytes;
  }
  let entries;
  try {
    entries = await readCharmZip(zip);
  } catch (e) {
    // Its refusals already say `invalid charm archive: …`.
    throw e instanceof DroverError ? e : invalidArchive(e);
  }
  const metadata = rootFile(entries, 'metadata.yaml');
  if (metadata === undefined)
    throw invalidArgument(`invalid charm archive: "${entity.name}" revision ${entity.revision} has no metadata.yaml`);
  const optional = (file: string) => rootFile(entries, file);
  const manifest = optional('manifest.yaml');
  const charmcraft = optional('charmcraft.yaml');
  const charm = parseCharm(metadata, optional('config.yaml'), optional('actions.yaml'), {
    ...(manifest !== undefined ? { manifest } : {}),
    ...(charmcraft !== undefined ? { charmcraft } : {}),
  });
  checkCharmSize(charm);
  if (charm.name !== entity.name) throw invalidArgument(`Charmhub's "${entity.name}" holds a charm named "${charm.name}"`);
  const resources = await fetchResources(charms, entity.resources ?? [], request, settings);
  // Kept only once everything is read: a charm refused above leaves nothing behind.
  await charms.put(zip);
  const charmArchive = await charms.put(packEntries(entries));
  const series = request.series ?? baseToSeries(parseBase(`${resolved.base.name}@${resolved.base.channel.replace(/\/.*$/, '')}`));
  return {
    charm,
    charmArchive,
    series,
    resources,
    displayChannel: resolved.displayChannel,
    origin: {
      source: 'charmhub',
      id: entity.id,
      hash,
      revision: entity.revision,
      channel: resolved.channel,
      architecture: resolved.base.architecture === 'all' ? 'amd64' : resolved.base.architecture,
    },
  };
}

/** The charm's file resources at the revisions its channel gives, each checked and kept once per content. */
async function fetchResources(
  charms: CharmStore,
  revisions: ChResourceRevision[],
  request: CharmhubCharmRequest,
  settings: CharmhubSettings,
): Promise<Record<string, ApplicationResource>> {
  const out: Record<string, ApplicationResource> = {};
  for (const resource of revisions) {
    if (resource.type !== 'file' || request.supplied?.includes(resource.name)) continue;
    const current = request.current?.[resource.name];
    if (current && current.origin === 'store' && current.revision === resource.revision) continue;
    const sha384 = resource.download['hash-sha-384'];
    if (!sha384) throw invalidArgument(`Charmhub announced no SHA-384 for resource "${resource.name}" revision ${resource.revision}`);
    const got = await downloadChecked(
      resource.download.url,
      { size: resource.download.size, sha384, ...(resource.download['hash-sha-256'] ? { sha256: resource.download['hash-sha-256'] } : {}) },
      settings.resource,
      settings.fetch,
    ).catch(charmhubError);
    const sha256 = await charms.put(got.bytes);
    out[resource.name] = {
      revision: resource.revision,
      sha256,
      fingerprint: got.sha384,
      size: got.bytes.length,
      timestamp: request.now.toISOString(),
      origin: 'store',
    };
  }
  return out;
}
