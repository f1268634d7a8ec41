// Runs one hook: announced, spawned with its tools served, its changes committed in one
// transaction, its outcome recorded (Juju's
// https://github.com/juju/juju/blob/3.6/internal/worker/uniter/operation/runhook.go).
import { isPeerRelation } from '#shared/domain/plans/app-settings.js';
import { counterpartApplications } from '#shared/domain/relation-counterparts.js';
import { AgentApiError } from '../../api-client.js';
import type { AgentView } from '../../view.js';
import type { HookContext } from '../hook-context.js';
import { hookEnvironment, newContextId } from '../hook-env.js';
import { runHookProcess, type HookProcessResult } from '../hook-process.js';
import { hookName, isRelationHook, isStorageHook, runningMessage, type Hook } from '../hooks.js';
import { unitStorageOf } from '../../storage/unit-storage.js';
import { afterHook, type LocalState } from '../local-state.js';
import { OPERATION, type UnitContext } from '../unit-context.js';
import { environmentOf, hookContextOf } from './hook-surroundings.js';
import { afterSecretHook, secretsMayHaveChanged } from './secret-hooks.js';

type Committed = { appVersions?: Record<number, number> };

/**
 * A leader's own writes to its application's bag in a peer relation: remembered as seen, so
 * that only the other peers run -changed for them (the bag is the peer relation's "other side").
 */
export function ownAppWrites(local: LocalState, appVersions: Record<number, number> | undefined, view: AgentView): LocalState {
  if (!appVersions) return local;
  const relations = { ...local.relations };
  for (const [key, relation] of Object.entries(relations)) {
    const version = appVersions[relation.id];
    const viewed = view.relations.find((r) => r.key === key);
    const peer = viewed !== undefined && isPeerRelation(viewed);
    if (version !== undefined && peer) relations[key] = { ...relation, appVersion: Math.max(version, relation.appVersion ?? 0) };
  }
  return { ...local, relations };
}

/** Why the hook failed, if it did (spawn error, non-zero exit, signal). */
export function hookFailure(result: HookProcessResult): string | undefined {
  if (result.kind === 'spawn-error') return `cannot run hook: ${result.message}`;
  if (result.kind === 'exited' && result.code !== 0)
    return result.code === null ? `signal: ${result.signal}` : `exit status ${result.code}`;
  return undefined;
}

/**
 * The workload status Juju's uniter sets before a hook: maintenance / installing charm software
 * before install (unless the charm already set a status), maintenance / stopping charm software
 * before stop.
 */
export function statusBeforeHook(hook: Hook, workloadStatusSet: boolean): { current: string; message: string } | undefined {
  if (hook.kind === 'install' && !workloadStatusSet) return { current: 'maintenance', message: 'installing charm software' };
  if (hook.kind === 'stop') return { current: 'maintenance', message: 'stopping charm software' };
  return undefined;
}

export async function runHook(ctx: UnitContext, hook: Hook): Promise<void> {
  const release = await ctx.deps.hookLock.lock();
  try {
    if (ctx.stopping) return;
    await announceHook(ctx, hook);
    ctx.save({ ...ctx.local, inFlight: hook });
    const view = await ctx.view();
    const { result, hookCtx } = await spawnHook(ctx, hook, view);
    if (ctx.shuttingDown && result.kind === 'exited' && result.signal !== null) return; // killed with us: stays in flight
    const { failure, committed } = await commitHook(ctx, result, hookCtx);
    if (!failure) await afterSecretHook(ctx, hook);
    if (secretsMayHaveChanged(hook, hookCtx.secretsTouched)) ctx.secrets.markStale();
    await recordHook(ctx, hook, { result, hookCtx, view, committed, ...(failure ? { failure } : {}) });
  } finally {
    if (hook.kind === 'update-status') ctx.updateStatusRan();
    release();
  }
}

/**
 * The statuses Juju's uniter sets around hooks: the agent executing, and the workload's
 * (statusBeforeHook). update-status is routine: it must cost no request of its own beyond the
 * charm's tool calls, so the agent status stays idle around it (a hook error still shows).
 */
async function announceHook(ctx: UnitContext, hook: Hook): Promise<void> {
  const workload = statusBeforeHook(hook, ctx.local.workloadStatusSet);
  // Both go with the unit's next report, in this order, before any status the hook sets itself.
  if (hook.kind !== 'update-status')
    ctx.status.set({ agent: { current: 'executing', message: runningMessage(hook) }, ...(workload ? { workload } : {}) });
  // Except before install, which waits for its report: until the unit's agent status leaves
  // `allocating`, remove-unit removes the unit at once, without its agent (Juju's shortcut, which
  // Juju's uniter closes the same way: it sets the status before the hook runs).
  if (hook.kind === 'install') await ctx.status.flush();
}

/** The hook's process, with its tools served for as long as it runs. */
async function spawnHook(ctx: UnitContext, hook: Hook, view: AgentView): Promise<{ result: HookProcessResult; hookCtx: HookContext }> {
  const { unitName } = ctx.deps;
  const name = hookName(hook);
  const id = newContextId(unitName, hook);
  const hookCtx = hookContextOf(ctx, hook, id, view);
  const unit = view.units.find((u) => u.name === unitName);
  const relation = isRelationHook(hook) ? view.relations.find((r) => r.key === hook.relation) : undefined;
  const storage = isStorageHook(hook) ? unitStorageOf(unit).find((s) => s.id === hook.storage) : undefined;
  const { secret, address } = await ctx.tools.open(id, hookCtx);
  try {
    const env = hookEnvironment({
      ...environmentOf(ctx, view, id, secret, address),
      hook,
      ...(relation && unit ? { remoteApplication: counterpartApplications(relation, unit.application)[0] ?? '' } : {}),
      ...(storage ? { storage } : {}),
    });
    const result = await (ctx.deps.hookRunner ?? runHookProcess)({
      charmDir: ctx.charmDir,
      dispatchPath: `hooks/${name}`,
      env,
      onLine: (_stream, line) => ctx.deps.log.log(unitName, 'DEBUG', `unit.${unitName}.${name}`, line),
    });
    return { result, hookCtx };
  } finally {
    await ctx.tools.close(id);
  }
}

/** Why the hook failed, if it did; else its changes, committed in one transaction. */
async function commitHook(
  ctx: UnitContext,
  result: HookProcessResult,
  hookCtx: HookContext,
): Promise<{ failure?: string; committed: Committed }> {
  const failure = hookFailure(result);
  // Remembered: the unit item's version does not hint the agent, so its view may lag.
  if (hookCtx.newWorkloadVersion !== undefined) ctx.workloadVersion = hookCtx.newWorkloadVersion;
  if (failure) return { failure, committed: {} };
  try {
    return { committed: await hookCtx.flush() };
  } catch (e) {
    // Unreachable: the agent restarts and the hook, still in flight, counts as failed. Any answer
    // (a refusal, or a failure the controller did not expect) fails the hook here, in its words.
    if (!(e instanceof AgentApiError)) throw e;
    return { failure: `cannot commit the hook's changes: ${e.message}`, committed: {} };
  }
}

/** The hook's outcome in the unit's state, its log and its statuses. */
async function recordHook(
  ctx: UnitContext,
  hook: Hook,
  ran: { result: HookProcessResult; hookCtx: HookContext; view: AgentView; committed: Committed; failure?: string },
): Promise<void> {
  const name = hookName(hook);
  const { result, hookCtx, view, committed, failure } = ran;
  const workloadStatusSet = ctx.local.workloadStatusSet || hookCtx.statusWasSet;
  const via = result.kind === 'missing' ? '' : ` (via ${result.via})`;
  if (failure) {
    ctx.save({ ...ctx.local, inFlight: undefined, error: hook, workloadStatusSet });
    ctx.logger.error(OPERATION, `hook "${name}"${via} failed: ${failure}`);
    await ctx.reportError(hook);
    return;
  }
  ctx.save(ownAppWrites(afterHook({ ...ctx.local, inFlight: undefined, workloadStatusSet }, hook), committed.appVersions, view));
  const line = result.kind === 'missing' ? `skipped "${name}" hook (${result.why})` : `ran "${name}" hook${via}`;
  if (hook.kind === 'update-status') ctx.deps.log.log(ctx.deps.unitName, 'DEBUG', OPERATION, line, { ship: false });
  else ctx.logger.info(OPERATION, line);
  // As in Juju's runhook.go: unknown if the charm never called status-set by the end of
  // start; maintenance after stop.
  if (hook.kind === 'start' && !workloadStatusSet) ctx.status.set({ workload: { current: 'unknown' } });
  if (hook.kind === 'stop') ctx.status.set({ workload: { current: 'maintenance' } });
}
