// deploy: a new Alive application with its peer relations and its first units.
//
// lifecycles.txt: "Services with duplicate names are not allowed"; death-and-destruction.txt:
// a user "may not create new services with the same name ... until those entities have finally
// been removed" — the create asserts that no item (Alive or Dying) holds the name.
import { checkConfigSize } from '../item-size.js';
import { chooseSeries, configDefaults, parseConfigValues, type CharmMeta } from '../charm.js';
import { formatCharmUrl } from '../charm-url.js';
import { isEmptyConstraints, type Constraints } from '../constraints.js';
import type { Application, Machine, Model } from '../entities.js';
import { alreadyExists, invalidArgument, notAlive } from '../errors.js';
import { isValidApplicationName } from '../names.js';
import { refs, type Change, type Plan } from '../plan.js';
import { describePending, pendingRequirements } from '../required-relations.js';
import type { Numbers } from '../sequences.js';
import { planNewUnits } from './new-units.js';
import { instancesPerUnit } from './unit-storage.js';
import { storageDirectives, type StorageConstraints, type StorageProvider } from '../storage.js';
import { newPeerRelations } from './peer-relations.js';
import { FIRST_SHARDS, unitShardsAfter } from '../shards.js';
import { checkUploadable, type ApplicationResource } from '../resources.js';
import type { CharmhubOrigin } from '../charm-origin.js';

/** Units created in deploy's own transaction; the rest are added by add-unit in chunks. */
export const UNITS_PER_TRANSACTION = 8;

/**
 * Units one transaction adds for this application: UNITS_PER_TRANSACTION, fewer when each brings
 * storage (an instance and its attachment per unit and store), so a transaction stays within
 * DynamoDB's 100 items.
 */
export const unitsPerTransaction = (application: Pick<Application, 'storage'>) =>
  Math.max(1, Math.min(UNITS_PER_TRANSACTION, Math.floor(88 / (3 + 2 * instancesPerUnit(application)))));

export interface DeployIntent {
  charm: CharmMeta;
  name?: string;
  series?: string;
  constraints?: Constraints;
  config?: Record<string, string>;
  numUnits: number;
  /** Existing machines for the first units (`--to`). */
  placements?: (Machine | undefined)[];
  /** The charm store key of the charm's archive, for the agents to download. */
  charmArchive?: string;
  /** deploy --trust. */
  trust?: boolean;
  /** Set when the charm came from Charmhub: its URL is `ch:` with the store's revision. */
  charmOrigin?: CharmhubOrigin;
  /** `--resource`: the first revision of each resource given, already kept in the charm store. */
  resources?: Record<string, ApplicationResource>;
  /** `--storage <store>=<constraints>`, parsed (shared/domain/storage.ts). */
  storage?: Record<string, StorageConstraints>;
  /** Which pools the model has (rootfs; ebs on AWS). Default: the local provider's. */
  storageProvider?: StorageProvider;
}

export interface DeploySnapshot {
  model: Model;
  existing?: Application;
  /** Where the peer relations' ids, the unit numbers and the new machines' ids come from. */
  numbers: Numbers;
}

export interface DeployResult {
  application: string;
  series: string;
  units: string[];
  machines: string[];
  /** Units still to add: beyond this transaction, and once deploy returns, in the background. */
  remainingUnits: number;
  /** Set when required relations hold the deployment back. */
  pending?: string;
}

export function planDeploy(snapshot: DeploySnapshot, intent: DeployIntent, now: string): Plan<DeployResult> {
  const { model } = snapshot;
  const name = intent.name ?? intent.charm.name;
  const cannot = `cannot add application "${name}"`;
  if (!isValidApplicationName(name)) throw invalidArgument(`${cannot}: invalid name`);
  if (snapshot.existing) throw alreadyExists(`${cannot}: application already exists`);
  if (model.life !== 'alive') throw notAlive(`${cannot}: model "${model.name}" is ${model.life}`);
  if (!Number.isInteger(intent.numUnits) || intent.numUnits < 0) throw invalidArgument('--num-units must be a non-negative integer');
  const { subordinate } = intent.charm;
  if (subordinate && (intent.numUnits > 0 || intent.placements?.length)) {
    throw invalidArgument('subordinate application must be deployed without units');
  }
  if (subordinate && intent.constraints && !isEmptyConstraints(intent.constraints)) {
    throw invalidArgument('constraints do not apply to subordinate applications');
  }
  if (intent.resources) checkUploadable(intent.charm.resources, Object.keys(intent.resources));
  const series = chooseSeries(intent.charm, intent.series, model.defaultSeries);
  const requestedStorage = intent.storage ?? {};
  const storage =
    intent.charm.storage || Object.keys(requestedStorage).length
      ? storageDirectives(intent.charm, requestedStorage, intent.storageProvider ?? 'local')
      : undefined;
  const config = { ...configDefaults(intent.charm), ...parseConfigValues(intent.charm, intent.config ?? {}) };
  checkConfigSize(config, name);
  // Juju records an arch at deploy: the model's, or amd64.
  const constraints: Constraints = subordinate ? {} : { ...intent.constraints };
  if (!subordinate && constraints.arch === undefined) constraints.arch = model.constraints.arch || 'amd64';

  const peers = newPeerRelations(name, intent.charm, [], snapshot.numbers, now);
  const peerRelations = peers.relations;

  const application: Application = {
    name,
    life: 'alive',
    series,
    subordinate,
    charmUrl: intent.charmOrigin
      ? formatCharmUrl({
          schema: 'ch',
          architecture: intent.charmOrigin.architecture,
          series,
          name: intent.charm.name,
          revision: intent.charmOrigin.revision,
        })
      : formatCharmUrl({ series, name: intent.charm.name, revision: 0 }),
    ...(intent.charmArchive ? { charmArchive: intent.charmArchive } : {}),
    ...(intent.charmOrigin ? { charmOrigin: intent.charmOrigin } : {}),
    ...(intent.resources && Object.keys(intent.resources).length ? { resources: intent.resources } : {}),
    charm: intent.charm,
    constraints,
    constraintsVersion: 0,
    config,
    configVersion: 0,
    exposed: false,
    ...(intent.trust ? { trust: true } : {}),
    ...(storage && Object.keys(storage).length ? { storage } : {}),
    unitCount: 0,
    relations: peerRelations.map((r) => r.key),
    // Its units start in one index partition and spread as it grows (shared/domain/shards.ts).
    unitShards: FIRST_SHARDS,
    createdAt: now,
  };
  const changes: Change[] = [
    { op: 'create', ref: refs.application(name), value: { ...application } },
    // The model's constraints (its arch) went into the application's.
    { op: 'check', ref: refs.model(), expect: { life: 'alive', equals: { constraintsVersion: model.constraintsVersion } } },
  ];
  changes.push(...peers.changes);

  const pending = pendingRequirements(application, peerRelations);
  const count = Math.min(intent.numUnits, unitsPerTransaction(application));
  let units: string[] = [];
  let machines: string[] = [];
  if (count > 0) {
    const planned = planNewUnits({
      model,
      application,
      numbers: snapshot.numbers,
      count,
      placements: intent.placements ?? [],
      pending,
      now,
    });
    // The application is created in this very transaction: its counter starts at `count`.
    application.unitCount = count;
    application.unitShards = unitShardsAfter(application, count) ?? application.unitShards;
    changes[0] = { op: 'create', ref: refs.application(name), value: { ...application } };
    changes.push(...planned.changes.filter((c) => !(c.ref.kind === 'application' && c.op === 'update')));
    units = planned.units;
    machines = planned.machines;
  }
  const result: DeployResult = { application: name, series, units, machines, remainingUnits: intent.numUnits - count };
  if (pending.length) result.pending = describePending(name, pending);
  return { changes, result };
}
