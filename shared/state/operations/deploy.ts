import type { CharmMeta } from '../../domain/charm.js';
import type { Constraints } from '../../domain/constraints.js';
import type { Application, Model } from '../../domain/entities.js';
import type { ApplicationResource } from '../../domain/resources.js';
import type { StorageConstraints, StorageProvider } from '../../domain/storage.js';
import { alreadyExists } from '../../domain/errors.js';
import { refs } from '../../domain/plan.js';
import { planDeploy, type DeployResult } from '../../domain/plans/deploy.js';
import { addUnits, type AddUnitsOptions } from './add-unit.js';
import { foundModel } from '../queries/model.js';
import { readPlacements } from '../queries/placement.js';
import { getBatch } from '../engine/reads.js';
import { NumberReservations } from '../engine/number-reservations.js';
import { runOperation, type Attempt } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export interface DeployRequest {
  charm: CharmMeta;
  name?: string;
  series?: string;
  constraints?: Constraints;
  config?: Record<string, string>;
  numUnits?: number;
  to?: string[];
  charmArchive?: string;
  trust?: boolean;
  resources?: Record<string, ApplicationResource>;
  storage?: Record<string, StorageConstraints>;
  storageProvider?: StorageProvider;
}

/**
 * Deploys an application. The application, its peer relations and its first units commit in one
 * transaction; further units (-n beyond one transaction's share) are added in bounded chunks.
 */
export async function deploy(
  store: Store,
  request: DeployRequest,
  options: Pick<AddUnitsOptions, 'background'> = {},
): Promise<DeployResult> {
  const name = request.name ?? request.charm.name;
  const numUnits = request.numUnits ?? (request.charm.subordinate ? 0 : 1);
  const cannot = `cannot add application "${name}"`;
  const application = refs.application(name);
  const saas = refs.remoteApplication(name);
  // The peer relations' ids, the first units' numbers and their machines' ids, kept across attempts.
  const reservations = new NumberReservations(store);
  const attempt: Attempt<DeployResult> = async (store) => {
    const [[model, existing, remote], placements] = await Promise.all([
      getBatch<[Model, Application, unknown]>(
        store,
        [refs.model(), application, saas],
        // A new name: the plan creates the application, asserting that it does not exist.
        { assumeAbsent: [application, saas] },
      ),
      readPlacements(store, request.to),
    ]);
    // Applications and remote applications share a model's names (shared/domain/cross-model.ts).
    if (remote) throw alreadyExists(`${cannot}: remote application with same name already exists`);
    return reservations.plan((numbers) => {
      const plan = planDeploy(
        { model: foundModel(store, model), numbers, ...(existing ? { existing } : {}) },
        { ...request, name, numUnits, placements },
        store.now().toISOString(),
      );
      // A new application asserts no remote application took its name meanwhile (consume asserts the converse).
      return plan.changes.length > 0 ? { ...plan, changes: [...plan.changes, { op: 'absent', ref: saas }] } : plan;
    });
  };
  const result = await runOperation(store, cannot, attempt, { speculate: true });
  if (result.remainingUnits > 0) {
    const more = await addUnits(store, name, {
      count: result.remainingUnits,
      to: request.to?.slice(result.units.length),
      ...(options.background ? { background: true } : {}),
    });
    result.units.push(...more.units);
    result.machines.push(...more.machines);
    result.remainingUnits = more.remainingUnits;
  }
  return result;
}
