// Dropping references. lifecycles.txt "References": all units reference their services, all
// relations reference the services they are part of; "the Dying service's document is finally
// removed in the same transaction that removes the last entity referencing that service".
import { crossModelKey, type Offer, type RemoteApplication } from '../cross-model.js';
import type { Application, Machine, Relation, Unit } from '../entities.js';
import { inModel, refs, type Change, type Expect } from '../plan.js';
import { scheduleCleanup } from './cleanups.js';

/**
 * The change to an application when one of its units, or one of its relations, is removed.
 *
 * death-and-destruction.txt, removing a unit: "If its service is Alive, or has at least two
 * units, or is in at least one relation, decrement the service's unit count; otherwise remove
 * the service." Removing a relation: "If the counterpart service ... is Alive, or has at least
 * one unit, or is in at least two relations, decrement its relation count; otherwise remove the
 * counterpart service."
 *
 * Whenever the application is not Alive, the change asserts what its decision rests on, so two
 * removals racing to drop the last two references cannot both decrement and leave it behind.
 * While a unit stays after this one (the count read less this unit is at least one), it rests on
 * that alone: the change asserts the count is still at least what keeps one, so the removals of
 * many units of a Dying application decrement together, and only the one that would leave none
 * behind is cancelled and plans again, from the count the others left. Otherwise it asserts the
 * counts it read.
 */
export function releaseApplication(app: Application, release: { unit?: boolean; relation?: string }): Change {
  const released = release.unit ? 1 : 0;
  const units = app.unitCount - released;
  const relations = app.relations.filter((r) => r !== release.relation);
  const expect: Expect =
    app.life === 'alive'
      ? { life: 'alive' }
      : units > 0
        ? { life: app.life, atLeast: { unitCount: 1 + released } }
        : { life: app.life, equals: { unitCount: app.unitCount }, setSize: { relations: app.relations.length } };
  if (release.relation !== undefined) expect.contains = { relations: release.relation };
  if (app.life !== 'alive' && units === 0 && relations.length === 0) {
    return { op: 'remove', ref: refs.application(app.name), expect };
  }
  return {
    op: 'update',
    ref: refs.application(app.name),
    ...(release.unit ? { add: { unitCount: -1 } } : {}),
    ...(release.relation !== undefined ? { removeFromSet: { relations: [release.relation] } } : {}),
    expect,
  };
}

/** True when the change removes the application. */
export const removesApplication = (change: Change) => change.op === 'remove' && change.ref.kind === 'application';

/**
 * A secret goes with its owner (Juju deletes a removed unit's or application's secrets): the
 * transaction that removes an owner that has owned a secret schedules their deletion, which the
 * cleanup does a secret at a time (shared/state/operations/cleanup/owner-secrets.ts).
 */
export function ownerSecretsCleanup(owner: Application | Unit, now: string): Change[] {
  if (!owner.ownsSecrets) return [];
  if ('application' in owner) return [scheduleCleanup('ownerSecrets', `unit-${owner.name}`, now)];
  return [scheduleCleanup('ownerSecrets', `application-${owner.name}`, now, { incarnation: owner.createdAt })];
}

/**
 * Removing a relation: delete it, release both its applications (except `skip`, which the caller
 * handles), and leave a document for the cleanup to delete its unit settings in batches
 * (death-and-destruction.txt: "Mark the relation's unit settings documents for future cleanup").
 */
export function removeRelation(
  relation: Relation,
  apps: Application[],
  now: string,
  options: { skip?: string; unitsInScope?: number; crossModel?: CrossModelReferences } = {},
): Change[] {
  const changes: Change[] = [
    // `unitsInScope`: the last unit leaving scope removes the relation in its own transaction.
    { op: 'remove', ref: refs.relation(relation.key), expect: { life: relation.life, equals: { unitCount: options.unitsInScope ?? 0 } } },
    scheduleCleanup('settings', String(relation.id), now),
  ];
  const seen = new Set<string>();
  for (const ep of relation.endpoints) {
    if (ep.application === options.skip || seen.has(ep.application)) continue;
    seen.add(ep.application);
    const app = apps.find((a) => a.name === ep.application);
    if (!app) continue;
    const release = releaseApplication(app, { relation: relation.key });
    changes.push(release, ...(removesApplication(release) ? ownerSecretsCleanup(app, now) : []));
  }
  // Read by every operation that may remove such a record (shared/state/queries/cross-model-reads.ts).
  if (relation.crossModel) {
    if (!options.crossModel) throw new Error(`removing relation "${relation.key}" across models without its references`);
    changes.push(...releaseCrossModelReferences(relation, options.crossModel));
  }
  return changes;
}

/**
 * What refers to one model's record of a relation across models besides its application: in the
 * consuming model its SAAS (and, for a SAAS being removed, the offer it consumes); in the
 * offering model the offer, whose connection it is. Absent: gone.
 */
export interface CrossModelReferences {
  /** The key of the model the record is in. */
  modelKey: string;
  saas?: RemoteApplication;
  /** The offer: the offering model's own, or the one the SAAS consumes. */
  offer?: Offer;
}

/**
 * Removing a model's record of a relation across models drops its references: the offering
 * model's offer connection, or the consuming model's SAAS's relation, and a Dying SAAS whose last
 * relation it was goes with it, off its offer's consumers (remove-saas).
 */
function releaseCrossModelReferences(relation: Relation, found: CrossModelReferences): Change[] {
  const side = relation.crossModel!;
  const { saas, offer } = found;
  if (side.offering) {
    // The connection is named by the consuming model's key and relation (shared/domain/cross-model.ts).
    const connection = crossModelKey(side.model, side.relation);
    if (!offer?.connections.includes(connection)) return [];
    return [
      {
        op: 'update',
        ref: refs.offer(found.modelKey, side.offer),
        removeFromSet: { connections: [connection] },
        expect: { contains: { connections: connection } },
      },
    ];
  }
  if (!saas?.relations.includes(relation.key)) return [];
  const last = saas.life !== 'alive' && saas.relations.length === 1;
  if (!last)
    return [
      {
        op: 'update',
        ref: refs.remoteApplication(saas.name),
        removeFromSet: { relations: [relation.key] },
        expect: { contains: { relations: relation.key } },
      },
    ];
  const changes: Change[] = [
    { op: 'remove', ref: refs.remoteApplication(saas.name), expect: { life: saas.life, setSize: { relations: 1 } } },
  ];
  changes.push(...leaveOfferConsumers(saas, found.modelKey, offer));
  return changes;
}

/**
 * Unassigning a principal from its machine. When it is the machine's last principal, the machine
 * is set Dying in the same transaction, so removing an application's units also removes the
 * machines made for them: Juju 2.x's "host fast-forward"
 * (https://github.com/juju/juju/blob/2.9/state/unit.go destroyHostOps). Juju 1 left such machines
 * behind for a separate destroy-machine; users of today's Juju expect `remove-unit` and
 * `remove-application` to take the machine along.
 */
export function unassignFromMachine(machine: Machine, unit: string): Change {
  const last = machine.life === 'alive' && machine.principals.length === 1 && machine.principals[0] === unit;
  if (!last)
    return {
      op: 'update',
      ref: refs.machine(machine.id),
      removeFromSet: { principals: [unit] },
      expect: { contains: { principals: unit } },
    };
  return {
    op: 'update',
    ref: refs.machine(machine.id),
    removeFromSet: { principals: [unit] },
    set: { life: 'dying' },
    expect: { life: 'alive', setSize: { principals: 1 }, contains: { principals: unit } },
  };
}

/** A SAAS taken off its offer's consumers (the offer's item is in the offering model), if it is on them. */
export function leaveOfferConsumers(saas: RemoteApplication, consumingModel: string, offer: Offer | undefined): Change[] {
  const consumer = crossModelKey(consumingModel, saas.name);
  if (!offer?.consumers.includes(consumer)) return [];
  return inModel(saas.offerModelKey, [
    {
      op: 'update',
      ref: refs.offer(saas.offerModelKey, saas.offer),
      removeFromSet: { consumers: [consumer] },
      expect: { contains: { consumers: consumer } },
    },
  ]);
}
