// upgrade-charm (Juju 3's refresh): the application takes a new revision of its charm.
//
// Juju's SetCharm refuses what would leave the model inconsistent: another charm's name, a change
// of subordinacy, a series the application runs on that the charm drops, and an endpoint an
// existing relation uses ("would break relation"). Juju allows the upgrade of a Dying application
// (a forced charm upgrade is still allowed on a Dying application: Juju 2.9's
// https://github.com/juju/juju/blob/2.9/state/application.go and application_test.go) so
// that bugs in its departed/broken/stop hooks can be fixed while it goes; drover asks for
// --force-units there.
//
// The units are not touched: the transaction stays bounded whatever the number of units. Each
// unit agent compares the application's charmUrl with the charm it deployed and upgrades itself
// (charms-in-action.txt: "The upgrade-charm hook always runs once immediately after the charm
// directory contents have been changed by an unforced charm upgrade operation").
import { charmEndpoints, configDefaults, type CharmMeta, type Endpoint } from '../charm.js';
import { unsupportedBaseMessage } from '../bases.js';
import { formatCharmUrl, parseCharmUrl } from '../charm-url.js';
import type { Application, ConfigValue, Relation } from '../entities.js';
import { alreadyExists, invalidArgument, notAlive, notFound } from '../errors.js';
import { ownValue, sameEntries } from '../own-keys.js';
import { refs, type Plan } from '../plan.js';
import type { Numbers } from '../sequences.js';
import type { CharmhubOrigin } from '../charm-origin.js';
import { nextResources, type ApplicationResource } from '../resources.js';
import { newPeerRelations } from './peer-relations.js';

export interface UpgradeCharmIntent {
  application: string;
  charm: CharmMeta;
  /** The charm store key of the new charm's archive. */
  charmArchive?: string;
  /** `--force-units`: units in an error state upgrade too; a Dying application may be upgraded. */
  forceUnits: boolean;
  /** Set when the new charm came from Charmhub: its revision is the store's; absent, a local charm's next. */
  charmOrigin?: CharmhubOrigin;
  /** Resources whose revision the new charm's channel moves on (Charmhub's), already kept in the charm store. */
  resources?: Record<string, ApplicationResource>;
  /**
   * `refresh --switch`: the new charm may be another charm (another name), as long as it keeps
   * every relation the application is in; resources the new charm does not declare go.
   */
  switch?: boolean;
  /**
   * `refresh --resource`: files already kept in the charm store, each the next revision of its
   * resource unless its content is the one in use (nextResources), as attach-resource takes them.
   */
  uploads?: Record<string, Omit<ApplicationResource, 'revision'>>;
}

export interface UpgradeCharmSnapshot {
  application?: Application;
  /** The relations named in `application.relations` that exist. */
  relations: Relation[];
  /** Where the ids of the peer relations the new charm adds come from. */
  numbers: Numbers;
}

export interface UpgradeCharmResult {
  application: string;
  /** The new charm URL, e.g. `local:jammy/wordpress-1`. */
  charmUrl: string;
}

/** Juju's Relation.ImplementedBy: the charm has an endpoint of that name, role and interface. */
const implements_ = (endpoints: Endpoint[], used: { name: string; role: string; interface: string }) =>
  endpoints.some((e) => e.name === used.name && e.role === used.role && e.interface === used.interface);

/**
 * The new charm's config: values the user set that the new charm still has (with the same type)
 * are kept; everything else takes the new charm's default; options the new charm dropped go.
 */
export function upgradedConfig(app: Application, charm: CharmMeta): Record<string, ConfigValue> {
  const oldDefaults = configDefaults(app.charm);
  const config = configDefaults(charm);
  for (const [key, option] of Object.entries(charm.config)) {
    const value = ownValue(app.config, key);
    const old = ownValue(app.charm.config, key);
    const userSet = value !== undefined && value !== ownValue(oldDefaults, key);
    if (userSet && old?.type === option.type) config[key] = value;
  }
  return config;
}

/**
 * The resources the application has after the upgrade, or undefined where they stay as they are:
 * those of the new charm's channel (intent.resources, Charmhub's) or the application's, only the
 * ones the new charm declares after a switch, then the uploads as their next revisions.
 */
function upgradedResources(app: Application, intent: UpgradeCharmIntent): Record<string, ApplicationResource> | undefined {
  const switched = intent.charm.name !== app.charm.name;
  if (!switched && !intent.uploads) return intent.resources;
  let resources = intent.resources ?? app.resources ?? {};
  if (switched)
    resources = Object.fromEntries(Object.entries(resources).filter(([name]) => Object.hasOwn(intent.charm.resources ?? {}, name)));
  return intent.uploads ? nextResources(resources, intent.uploads).resources : resources;
}

const sameConfig = (a: Record<string, ConfigValue>, b: Record<string, ConfigValue>) => sameEntries(a, b);

export function planUpgradeCharm(snapshot: UpgradeCharmSnapshot, intent: UpgradeCharmIntent, now: string): Plan<UpgradeCharmResult> {
  const { application: name, charm } = intent;
  const app = snapshot.application;
  if (!app) throw notFound(`application "${name}" not found`);
  if (app.life === 'dead') throw notAlive(`cannot upgrade application "${name}": application is dead`);
  if (app.life !== 'alive' && !intent.forceUnits) {
    throw notAlive(`cannot upgrade application "${name}": application is not alive; use --force-units to upgrade a dying application`);
  }
  const current = parseCharmUrl(app.charmUrl);
  if (charm.name !== app.charm.name && !intent.switch) {
    throw invalidArgument(
      `cannot upgrade "${name}" from charm "${app.charm.name}" to "${charm.name}": an upgrade keeps the charm's name; deploy "${charm.name}" as a new application instead`,
    );
  }
  const origin = intent.charmOrigin;
  const charmUrl = origin
    ? formatCharmUrl({ schema: 'ch', architecture: origin.architecture, series: app.series, name: charm.name, revision: origin.revision })
    : formatCharmUrl({ series: app.series, name: charm.name, revision: charm.name === current.name ? current.revision + 1 : 0 });
  // Juju's refresher: the revision the application already runs is no upgrade, unless the refresh
  // uploads resources of other content (Juju's refresh then uploads them to the charm it runs).
  const uploaded = intent.uploads ? nextResources(app.resources, intent.uploads).changed : [];
  if (charmUrl === app.charmUrl && uploaded.length === 0)
    throw alreadyExists(`charm "${charm.name}", revision ${current.revision}: already up-to-date`);
  const cannot = `cannot upgrade application "${name}" to charm "${charmUrl}"`;
  if (charm.subordinate !== app.subordinate) throw invalidArgument(`${cannot}: cannot change an application's subordinacy`);
  if (charm.series.length && !charm.series.includes(app.series)) {
    throw invalidArgument(`${cannot}: ${unsupportedBaseMessage(app.series, charm.series)}`);
  }
  const endpoints = charmEndpoints(charm);
  for (const relation of [...snapshot.relations].sort((a, b) => a.id - b.id)) {
    const used = relation.endpoints.find((e) => e.application === name);
    if (used && !implements_(endpoints, used)) {
      throw invalidArgument(`${cannot}: would break relation "${relation.key}"; remove the relation first`);
    }
  }

  const resources = upgradedResources(app, intent);
  const config = upgradedConfig(app, charm);
  const configChanged = !sameConfig(config, app.config);
  // Juju creates the peer relations a new revision adds; a Dying application gets no new relations.
  const peers = app.life === 'alive' ? newPeerRelations(name, charm, app.relations, snapshot.numbers, now) : { relations: [], changes: [] };
  return {
    changes: [
      ...peers.changes,
      {
        op: 'update',
        ref: refs.application(name),
        set: {
          charm,
          charmUrl,
          charmArchive: intent.charmArchive,
          forceUnits: intent.forceUnits,
          ...(origin ? { charmOrigin: origin } : {}),
          ...(resources ? { resources } : {}),
          // New resource content runs upgrade-charm on every unit, as attach-resource does.
          ...(uploaded.length ? { charmModifiedVersion: (app.charmModifiedVersion ?? 0) + 1 } : {}),
          ...(configChanged ? { config, configVersion: app.configVersion + 1 } : {}),
        },
        // A local charm replacing a Charmhub one is no longer the store's.
        ...(!origin && app.charmOrigin ? { unset: ['charmOrigin'] } : {}),
        ...(peers.relations.length ? { addToSet: { relations: peers.relations.map((r) => r.key) } } : {}),
        // Every fact the plan relied on: the charm it upgrades from (a concurrent upgrade plans
        // again, for the revision after), the config it merged, and the relations it checked
        // (a relation added meanwhile could use an endpoint the new charm drops).
        expect: {
          life: intent.forceUnits ? ['alive', 'dying'] : 'alive',
          equals: {
            charmUrl: app.charmUrl,
            configVersion: app.configVersion,
            // The resources it sets were merged with those it read: an attach-resource meanwhile
            // (which moves charmModifiedVersion) is not overwritten.
            ...(resources && app.charmModifiedVersion !== undefined ? { charmModifiedVersion: app.charmModifiedVersion } : {}),
          },
          ...(resources && app.charmModifiedVersion === undefined ? { absent: ['charmModifiedVersion'] } : {}),
          setSize: { relations: app.relations.length },
          ...(app.relations.length ? { contains: { relations: app.relations } } : {}),
        },
      },
    ],
    result: { application: name, charmUrl },
  };
}
