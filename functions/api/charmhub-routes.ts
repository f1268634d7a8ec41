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

export async function refreshFromCharmhub(ctx: CharmhubContext, name: string, ref: CharmhubRef, forceUnits: boolean) {
  const app = await getApplication(ctx.store, name);
  if (!app) throw notFound(`application "${name}" not found`);
  const origin = app.charmOrigin;
  // Juju's words for a local charm refreshed without a path.
  if (!origin) throw invalidArgument('upgrading a local charm requires either --path or --switch');
  if (ref.name !== undefined && ref.name !== app.charm.name)
    throw invalidArgument(`cannot refresh "${app.charm.name}" to "${ref.name}": --switch is not supported yet`);
  const model = await requireModel(ctx.store);
  // Uploaded resources stay (Juju: "Provided (uploaded) take precedence").
  const uploaded = Object.entries(app.resources ?? {}).flatMap(([resource, used]) => (used.origin === 'store' ? [] : [resource]));
  const received = await fetchCharmhubCharm(
    ctx.charms,
    model.config,
    {
      name: app.charm.name,
      channel: refreshChannel(origin.channel, ref.channel),
      ...(ref.revision !== undefined ? { revision: ref.revision } : {}),
      series: app.series,
      defaultSeries: model.defaultSeries,
      supplied: uploaded,
      ...(app.resources ? { current: app.resources } : {}),
      now: ctx.store.now(),
      beforeDownload: (resolved) => {
        if (resolved.entity.revision !== origin.revision) return;
        throw alreadyExists(
          ref.revision !== undefined
            ? `charm "${app.charm.name}", revision ${resolved.entity.revision}: already up-to-date`
            : `charm "${app.charm.name}": already up-to-date`,
        );
      },
    },
    ctx.charmhub ?? DEFAULT_CHARMHUB_SETTINGS,
  );
  const result = await upgradeCharm(ctx.store, name, {
    charm: received.charm,
    charmArchive: received.charmArchive,
    charmOrigin: received.origin,
    ...(Object.keys(received.resources).length ? { resources: { ...app.resources, ...received.resources } } : {}),
    ...(forceUnits ? { forceUnits: true } : {}),
  });
  return { ...result, charmhub: charmhubSummary(received) };
}
