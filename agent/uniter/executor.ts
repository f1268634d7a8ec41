// Carries out one step nextStep() decided (decide.ts): one module per kind of step (steps/), as
// Juju's operation executor runs the operation its factory made for each decision
// (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/operation/executor.go).
import type { ExecutableStep, UnitContext } from './unit-context.js';
import { claimLeadership, deposed, renewLeadership, resignLeadership } from './steps/leadership.js';
import { replaceCharm, reportCharm } from './steps/charm.js';
import { enterScope, forgetRelation, leaveScope } from './steps/relation-scope.js';
import { clearResolved, retryHook, skipHook } from './steps/resolved.js';
import { failInterruptedAction, runAction } from './steps/run-action.js';
import { runHook } from './steps/run-hook.js';
import { attachStorage, detachStorage, forgetStorage } from './steps/storage.js';
import { destroyUnit, subordinateDying, unitDead } from './steps/unit-life.js';

type StepTable = { [K in ExecutableStep['kind']]: (ctx: UnitContext, step: Extract<ExecutableStep, { kind: K }>) => Promise<void> };

const STEPS: StepTable = {
  'run-hook': (ctx, s) => runHook(ctx, s.hook),
  'retry-hook': retryHook,
  'skip-hook': skipHook,
  'clear-resolved': clearResolved,
  'replace-charm': replaceCharm,
  'report-charm': reportCharm,
  'enter-scope': enterScope,
  'leave-scope': leaveScope,
  'forget-relation': forgetRelation,
  'claim-leadership': claimLeadership,
  'renew-leadership': renewLeadership,
  'resign-leadership': resignLeadership,
  deposed,
  'destroy-unit': destroyUnit,
  'subordinate-dying': subordinateDying,
  'run-action': runAction,
  'fail-interrupted-action': failInterruptedAction,
  'unit-dead': unitDead,
  'attach-storage': attachStorage,
  'detach-storage': detachStorage,
  'forget-storage': forgetStorage,
};

export function executeStep(ctx: UnitContext, step: ExecutableStep): Promise<void> {
  // The table is keyed by kind, each entry typed by its own step: TypeScript cannot relate the two
  // through an index, so the entry is called as one taking any executable step.
  return (STEPS[step.kind] as (ctx: UnitContext, step: ExecutableStep) => Promise<void>)(ctx, step);
}
