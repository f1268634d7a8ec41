// Removing a Dying model once nothing is left in it: the model, its name (so the name can be
// taken again; a new model gets a new key, shared/domain/models.ts), the sequences whose names
// are known, and the `model` cleanup document that did the work, in one transaction.
//
// DynamoDB cannot assert that a collection is empty. The plan asserts the model is still Dying
// instead: every transaction that makes an application or a machine asserts the model Alive
// (destroy-model.ts), so a model read Dying with no application and no machine can gain none
// before this commits. Relations need applications, and cleanups other than this one are work on
// the model's items still to finish, so both wait too.
import type { Application, Model } from '../entities.js';
import type { ModelName } from '../models.js';
import { done, refs, type Change, type Plan } from '../plan.js';
import { sequenceNames } from '../sequences.js';

export type RemoveModelResult = 'removed' | 'not-empty' | 'gone';

export interface ModelContents {
  applications: string[];
  machines: string[];
  relations: string[];
  /** Pending cleanup documents other than the model's own. */
  cleanups: string[];
}

export interface RemoveModelSnapshot {
  model?: Model;
  /** The model's name item, if it still says this model. */
  name?: ModelName;
  /** The model's key: its name item is removed only if it still points here. */
  key: string;
  contents: ModelContents;
  /** Which of the model-wide sequences (machine, relation) exist. */
  sequences: string[];
  /** The `model` cleanup document, if it still exists. */
  cleanup?: string;
}

export const isEmptyModel = (contents: ModelContents) =>
  contents.applications.length + contents.machines.length + contents.relations.length + contents.cleanups.length === 0;

export function planRemoveModel(snapshot: RemoveModelSnapshot): Plan<RemoveModelResult> {
  const { model } = snapshot;
  if (!model) return done('gone');
  if (model.life === 'alive' || !isEmptyModel(snapshot.contents)) return done('not-empty');
  const changes: Change[] = [{ op: 'remove', ref: refs.model(), expect: { life: model.life } }];
  if (snapshot.name && snapshot.name.key === snapshot.key)
    changes.push({ op: 'remove', ref: refs.modelName(snapshot.name.name), expect: { equals: { key: snapshot.key } } });
  // Units' sequences are named after applications, which are gone: planForgetUnitNumbers took
  // each away as the cleanup went through the applications.
  for (const name of snapshot.sequences.filter((s) => s === sequenceNames.machine || s === sequenceNames.relation))
    changes.push({ op: 'remove', ref: refs.sequence(name) });
  if (snapshot.cleanup) changes.push({ op: 'remove', ref: refs.cleanup(snapshot.cleanup) });
  return { changes, result: 'removed' };
}

/**
 * An application's unit numbers in a Dying model, taken away as the cleanup goes through the
 * applications, since they cannot be listed once the applications are gone. No number is used
 * from them again: units are added to Alive applications of Alive models only (new-units.ts), a
 * subordinate's unit to an Alive application (enter-scope.ts), and deploying the name again is
 * refused while the model is Dying; the transaction asserts both lives it relied on. Numbers are
 * reserved before that transaction (shared/state/engine/number-reservations.ts), after reading
 * both lives Alive: a reservation that lands after this removal, from an operation that read
 * them just before the model and the application were destroyed, puts the counter back as a
 * stray item of a removed model, which its operation then refuses to use.
 */
export function planForgetUnitNumbers(model: Model, application: Application | undefined, sequence: string | undefined): Plan<boolean> {
  if (sequence === undefined || model.life === 'alive' || application?.life === 'alive') return done(false);
  const changes: Change[] = [{ op: 'check', ref: refs.model(), expect: { life: model.life } }];
  if (application) changes.push({ op: 'check', ref: refs.application(application.name), expect: { life: application.life } });
  changes.push({ op: 'remove', ref: refs.sequence(sequence) });
  return { changes, result: true };
}
