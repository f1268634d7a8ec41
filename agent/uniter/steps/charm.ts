// Charm upgrades: the charm directory replaced by the new archive's contents, then the new charm
// URL reported (Juju's https://github.com/juju/juju/blob/3.6/internal/worker/uniter/operation/deploy.go).
import { replaceCharmDir } from '../charm-dir.js';
import { OPERATION, type StepOf, type UnitContext } from '../unit-context.js';

export async function replaceCharm(ctx: UnitContext, step: StepOf<'replace-charm'>): Promise<void> {
  const archive = step.charmArchive ? await ctx.deps.fetchCharm(ctx.deps.unitName, step.charmArchive) : undefined;
  // This unit's hooks run only from its loop, so none runs while its directory changes.
  await replaceCharmDir(ctx.charmDir, archive);
  // Recorded only now: killed before this line, the agent replaces the directory again.
  ctx.save({ ...ctx.local, charmUrl: step.charmUrl, ...(step.runHooks ? { upgradeHookPending: true } : {}) });
  ctx.logger.info(
    OPERATION,
    `upgraded charm to "${step.charmUrl}"${step.runHooks || !ctx.local.error ? '' : ' (forced, in an error state: no upgrade-charm hook)'}`,
  );
}

export async function reportCharm(ctx: UnitContext, step: StepOf<'report-charm'>): Promise<void> {
  // With the next report: no request, and no view to read again for a change this agent made.
  ctx.status.reportCharm(step.charmUrl);
  ctx.reportedCharmUrl = step.charmUrl;
}
