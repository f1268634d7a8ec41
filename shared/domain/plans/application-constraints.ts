// set-constraints <application>: replaces the application's constraints wholesale (as Juju).
// Units already created keep the constraints they collapsed at creation (Juju's "What We Run,
// and Why": docs/lifecycle-rules.md, "Sources").
import { isEmptyConstraints, type Constraints } from '../constraints.js';
import type { Application } from '../entities.js';
import { invalidArgument, notAlive, notFound } from '../errors.js';
import { refs, type Plan } from '../plan.js';

export function planSetApplicationConstraints(app: Application | undefined, application: string, constraints: Constraints): Plan<void> {
  if (!app) throw notFound(`application "${application}" not found`);
  if (app.life !== 'alive') throw notAlive('cannot set constraints: application is not found or not alive');
  if (app.subordinate && !isEmptyConstraints(constraints)) throw invalidArgument('constraints do not apply to subordinate applications');
  const next = { ...constraints };
  // The architecture stays unless named: it is what the application's units already run on.
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
}
