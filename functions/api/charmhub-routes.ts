// deploy and upgrade-charm (refresh) of a charm from Charmhub: what the request names, resolved
// with the model's settings and the application's origin (Juju's refresher,
// https://github.com/juju/juju/blob/3.6/cmd/juju/application/refresher/refresher.go), then fetched
// by ./charmhub-charm.ts and committed by the same operations local charms go through.
import { parseChannel, normalizedChannel } from '#shared/charmhub/channel.js';
import { displayBaseOfSeries } from '#shared/domain/bases.js';
import { alreadyExists, invalidArgument, notFound } from '#shared/domain/errors.js';
import { getApplication } from '#shared/state/engine/reads.js';
import { upgradeCharm } from '#shared/state/operations/upgrade-charm.js';
import { requireModel } from '#shared/state/queries/model.js';
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import type { Store } from '#shared/state/engine/store.js';
import { receiveResourceUploads } from './resource-routes.js';
import { DEFAULT_CHARMHUB_SETTINGS, fetchCharmhubCharm, type CharmhubCharm, type CharmhubSettings } from './charmhub-charm.js';

interface CharmhubContext {
  store: Store;
  charms: CharmStore;
  charmhub?: CharmhubSettings;
}

interface CharmhubRef {
  name?: string | undefined;
  channel?: string | undefined;
  revision?: number | undefined;
}

/** What the CLI prints of a charm fetched from Charmhub: Juju's "Located …" and "Deploying …" lines. */
export interface CharmhubSummary {
  name: string;
  revision: number;
  /** As Juju prints it: `stable`, `14/stable`. */
  channel: string;
  base?: string;
}

export const charmhubSummary = (received: CharmhubCharm): CharmhubSummary => {
  const base = displayBaseOfSeries(received.series);
  return {
    name: received.charm.name,
    revision: received.origin.revision,
    channel: received.displayChannel,
    ...(base ? { base } : {}),
  };
};

export async function charmFromCharmhub(
  ctx: CharmhubContext,
  ref: CharmhubRef,
  series: string | undefined,
  uploads: Record<string, string> | undefined,
): Promise<CharmhubCharm> {
  if (!ref.name) throw invalidArgument('deploy from Charmhub needs the charm name');
  const model = await requireModel(ctx.store);
  return fetchCharmhubCharm(
    ctx.charms,
    model.config,
    {
      name: ref.name,
      ...(ref.channel !== undefined ? { channel: ref.channel } : {}),
      ...(ref.revision !== undefined ? { revision: ref.revision } : {}),
      ...(series ? { series } : {}),
      defaultSeries: model.defaultSeries,
      supplied: Object.keys(uploads ?? {}),
      now: ctx.store.now(),
    },
    ctx.charmhub ?? DEFAULT_CHARMHUB_SETTINGS,
  );
}

/** Juju's charmHubOriginResolver: a channel without a track keeps the track the application follows. */
function refreshChannel(current: string, requested: string | undefined): string {
  if (requested === undefined) return current;
  const channel = parseChannel(requested);
  if (channel.track !== '') return normalizedChannel(channel);
  return normalizedChannel({ ...parseChannel(current), risk: channel.risk, ...(channel.branch ? { branch: channel.branch } : {}) });
}

/**
 * refresh from Charmhub: the newest revision of the channel the application tracks (or `ref`'s),
 * or with `ref.name` another charm (`--switch <name>`), in the channel given or the one the
 * application tracks, as Juju's refresher resolves a switch. `uploads` (`--resource`) are checked
 * against the new charm, and its store resources of the same names are not fetched.
 */
export async function refreshFromCharmhub(
  ctx: CharmhubContext,
  name: string,
  ref: CharmhubRef,
  options: { forceUnits: boolean; uploads?: Record<string, string> },
) {
  const app = await getApplication(ctx.store, name);
  if (!app) throw notFound(`application "${name}" not found`);
  const origin = app.charmOrigin;
  // A name is given only by --switch, which may name the charm the application runs (local → Charmhub).
  const switching = ref.name !== undefined;
  // Juju's words for a local charm refreshed without a path.
  if (!origin && !switching) throw invalidArgument('upgrading a local charm requires either --path or --switch');
  const model = await requireModel(ctx.store);
  const uploadNames = Object.keys(options.uploads ?? {});
  // Uploaded resources stay (Juju: "Provided (uploaded) take precedence"), unless the new charm drops them.
  const uploaded = [
    ...Object.entries(app.resources ?? {}).flatMap(([resource, used]) => (used.origin === 'store' ? [] : [resource])),
    ...uploadNames,
  ];
  let alreadyUpToDate: string | undefined;
  const received = await fetchCharmhubCharm(
    ctx.charms,
    model.config,
    {
      name: switching ? ref.name! : app.charm.name,
      channel: origin ? refreshChannel(origin.channel, ref.channel) : normalizedChannel(parseChannel(ref.channel ?? 'stable')),
      ...(ref.revision !== undefined ? { revision: ref.revision } : {}),
      series: app.series,
      defaultSeries: model.defaultSeries,
      supplied: uploaded,
      ...(app.resources && !switching ? { current: app.resources } : {}),
      now: ctx.store.now(),
      beforeDownload: (resolved) => {
        if (switching || resolved.entity.revision !== origin?.revision) return;
        const upToDate =
          ref.revision !== undefined
            ? `charm "${app.charm.name}", revision ${resolved.entity.revision}: already up-to-date`
            : `charm "${app.charm.name}": already up-to-date`;
        // With --resource, Juju's refresh goes on to upload the resources to the charm it runs.
        if (uploadNames.length > 0) alreadyUpToDate = upToDate;
        else throw alreadyExists(upToDate);
      },
    },
    ctx.charmhub ?? DEFAULT_CHARMHUB_SETTINGS,
  );
  const uploads = options.uploads ? await receiveResourceUploads(ctx, received.charm, options.uploads) : undefined;
  const result = await upgradeCharm(ctx.store, name, {
    charm: received.charm,
    charmArchive: received.charmArchive,
    charmOrigin: received.origin,
    ...(Object.keys(received.resources).length ? { resources: { ...app.resources, ...received.resources } } : {}),
    ...(options.forceUnits ? { forceUnits: true } : {}),
    ...(switching ? { switch: true } : {}),
    ...(uploads ? { uploads } : {}),
  });
  return { ...result, charmhub: charmhubSummary(received), ...(alreadyUpToDate ? { alreadyUpToDate } : {}) };
}
