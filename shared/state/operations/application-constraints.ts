import { isEmptyConstraints, type Constraints } from '../../domain/constraints.js';
import { invalidArgument, notAlive, notFound } from '../../domain/errors.js';
import { refs } from '../../domain/plan.js';
import { getApplication } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

/**
 * set-constraints <application>: replaces the application's constraints wholesale (as Juju).
 * Units already created keep the constraints they collapsed at creation (what-we-run-and-why.txt).
 */
export async function setApplicationConstraints(store: Store, application: string, constraints: Constraints): Promise<void> {
  await runOperation(store, `cannot set constraints for application "${application}"`, async () => {
    const app = await getApplication(store, application);
    if (!app) throw notFound(`application "${application}" not found`);
    if (app.life !== 'alive') throw notAlive('cannot set constraints: application is not found or not alive');
    if (app.subordinate && !isEmptyConstraints(constraints)) throw invalidArgument('constraints do not apply to subordinate applications');
    const next = { ...constraints };
    if (!app.subordinate && next.arch === undefined && app.constraints.arch) next.arch = app.constraints.arch;
    if (next.arch && app.constraints.arch && next.arch !== app.constraints.arch) {
      throw invalidArgument(`changing architecture (${app.constraints.arch}) not supported`);
    }
    return {
      changes: [
        {
          op: 'update',
          ref: refs.application(application),
          set: { constraints: next, constraintsVersion: app.constraintsVersion + 1 },
          expect: { life: 'alive', equals: { constraintsVersion: app.constraintsVersion } },
        },
      ],
      result: undefined,
    };
  });
}

export async function getApplicationConstraints(store: Store, application: string): Promise<Constraints> {
  const app = await getApplication(store, application);
  if (!app) throw notFound(`application "${application}" not found`);
  return app.constraints;
}
