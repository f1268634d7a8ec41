// What a secret hook leaves behind once it succeeded, as Juju's secrets resolver does on commit
// (https://github.com/juju/juju/blob/3.6/internal/worker/uniter/secrets/resolver.go): after
// secret-rotate the controller moves the schedule on (`secret-rotated`); after secret-changed the
// consumer's record notes the revision it ran for (`secret-revision-seen`), so it runs once per
// revision even for an agent that lost its local state. Both are retry-safe on the controller.
// secret-expired and secret-remove are kept in the unit's local state only (afterHook).
import { AgentApiError } from '../../api-client.js';
import { hookName, isSecretHook, type Hook } from '../hooks.js';
import { OPERATION, type UnitContext } from '../unit-context.js';

export async function afterSecretHook(ctx: UnitContext, hook: Hook): Promise<void> {
  if (!isSecretHook(hook)) return;
  const unit = ctx.deps.unitName;
  try {
    if (hook.kind === 'secret-rotate' && hook.rotateTime !== undefined && hook.originalRevision !== undefined)
      await ctx.deps.api.call('secret-rotated', {
        unit,
        secret: hook.uri,
        rotateTime: hook.rotateTime,
        originalRevision: hook.originalRevision,
      });
    if (hook.kind === 'secret-changed' && hook.revision !== undefined)
      await ctx.deps.api.call('secret-revision-seen', { unit, secret: hook.uri, revision: hook.revision });
  } catch (e) {
    // The secret went, or the unit lost access to it, while the hook ran: nothing is left to record.
    if (!(e instanceof AgentApiError) || !e.refused) throw e;
    ctx.logger.warning(OPERATION, `after "${hookName(hook)}" for ${hook.uri}: ${e.message}`);
  }
}

/** Whether the unit's secrets may look different after this hook: read them again before deciding. */
export const secretsMayHaveChanged = (hook: Hook, toolsTouchedSecrets: boolean) =>
  toolsTouchedSecrets || isSecretHook(hook) || hook.kind === 'leader-elected';
