// The agent API's secret routes, one per hook tool. What each may touch is declared in `touches`
// and checked by authorize() (./agent-authorization.ts) before it runs: the unit is on the
// caller's machine, and the secret is the unit's (or its application's) or was granted to it.
// No answer or error carries content but secret-get's.
import type { AgentOperation, AgentRequestOf } from '#shared/api/agent-requests.js';
import { agentSecretHookOperations, agentSecretOperations } from '#shared/api/agent-secret-requests.js';
import { invalidArgument, notFound } from '#shared/domain/errors.js';
import { requireSecretUri, secretUri, unitSecretAccess, type SecretMetadata } from '#shared/domain/secrets.js';
import {
  addUnitSecret,
  getUnitSecretContent,
  grantSecret,
  removeSecret,
  newSecretId,
  revokeSecret,
  secretChangeSeen,
  secretRotated,
  updateSecret,
} from '#shared/state/operations/secrets.js';
import { unitSecretHookState } from '#shared/state/queries/secret-hooks.js';
import { getApplication } from '#shared/state/engine/reads.js';
import { listSecrets, unitLeads } from '#shared/state/queries/secrets.js';
import type { Relation } from '#shared/domain/entities.js';
import type { Store } from '#shared/state/engine/store.js';
import type { Authorized, Touches } from './agent-authorization.js';

type SecretOperation = keyof (typeof agentSecretOperations & typeof agentSecretHookOperations) & AgentOperation;

/** An agent route (./agent-routes.ts, AgentRoute) that needs only the model's store. */
interface SecretRoute<O extends SecretOperation> {
  touches: Touches<AgentRequestOf<O>>;
  run: (ctx: { store: Store }, body: AgentRequestOf<O>, owned: Authorized) => Promise<unknown>;
}

function secretOf(owned: Authorized): SecretMetadata {
  if (!owned.secret) throw new Error('the route declares no secret');
  return owned.secret;
}

/** The grantee across `relation` from `unit`'s application: its application, or one of its units (`--unit`). */
function granteeOf(
  relation: Relation | undefined,
  unit: string,
  to: string | undefined,
): { target: string; scope: string; relationId: number; application: string } {
  if (!relation) throw notFound('relation not found');
  const own = unit.split('/')[0]!;
  const remote = relation.endpoints.find((e) => e.application !== own)?.application ?? own;
  if (to !== undefined && to.split('/')[0] !== remote) throw invalidArgument(`unit "${to}" is not in relation ${relation.id}`);
  return {
    target: to !== undefined ? `unit-${to}` : `application-${remote}`,
    scope: `relation-${relation.key}`,
    relationId: relation.id,
    application: remote,
  };
}

/** secret-info-get's answer (worker/uniter/runner/jujuc/secret-info-get.go): by id, the owner as `application` or `unit`. */
function info(secret: SecretMetadata) {
  return {
    [secret.id]: {
      revision: secret.latestRevision,
      ...(secret.label ? { label: secret.label } : {}),
      owner: secret.owner.kind,
      ...(secret.description ? { description: secret.description } : {}),
      ...(secret.latestExpireTime ? { expiry: secret.latestExpireTime } : {}),
      rotation: secret.rotatePolicy ?? 'never',
      ...(secret.nextRotateTime ? { rotates: secret.nextRotateTime } : {}),
    },
  };
}

const unit = <B extends { unit: string }>(body: B) => body.unit;
const manage = <B extends { secret: string }>(body: B) => ({ ref: body.secret, needs: 'manage' as const });

export const agentSecretRoutes: { [O in SecretOperation]: SecretRoute<O> } = {
  'secret-add': {
    touches: { unit },
    run: (ctx, body) =>
      addUnitSecret(ctx.store, body.unit, {
        ...(body.uri !== undefined ? { id: requireSecretUri(body.uri) } : {}),
        owner: body.owner,
        content: body.content,
        ...(body.label !== undefined ? { label: body.label } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.rotate ? { rotatePolicy: body.rotate } : {}),
        ...(body.expire ? { expireTime: new Date(body.expire).toISOString() } : {}),
      }),
  },
  'secret-get': {
    // By URI, or by a label the unit gave it as owner or consumer.
    touches: { unit, secret: (body) => ({ ref: body.secret, needs: 'view' }) },
    run: async (ctx, body, owned) => {
      const { content } = await getUnitSecretContent(ctx.store, body.unit, secretOf(owned), {
        ...(body.label !== undefined ? { label: body.label } : {}),
        ...(body.peek ? { peek: true } : {}),
        ...(body.refresh ? { refresh: true } : {}),
      });
      return { content };
    },
  },
  'secret-set': {
    touches: { unit, secret: manage },
    run: (ctx, body, owned) =>
      updateSecret(ctx.store, secretOf(owned), {
        ...(body.content !== undefined ? { content: body.content } : {}),
        ...(body.label !== undefined ? { label: body.label } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.rotate ? { rotatePolicy: body.rotate } : {}),
        ...(body.expire ? { expireTime: new Date(body.expire).toISOString() } : {}),
      }),
  },
  'secret-remove': {
    touches: { unit, secret: manage },
    run: async (ctx, body, owned) => {
      await removeSecret(ctx.store, secretOf(owned), body.revision);
      return {};
    },
  },
  'secret-grant': {
    touches: { unit, relations: (body) => [body.relationId], secret: manage },
    run: async (ctx, body, owned) => {
      const { application, ...grantee } = granteeOf(owned.relations.get(body.relationId), body.unit, body.to);
      // An application's grant holds for this deployment of it only (its creation time).
      const incarnation = body.to === undefined ? (await getApplication(ctx.store, application))?.createdAt : undefined;
      await grantSecret(ctx.store, secretOf(owned), [{ ...grantee, role: 'view', ...(incarnation ? { incarnation } : {}) }]);
      return {};
    },
  },
  'secret-revoke': {
    touches: { unit, relations: (body) => [body.relationId], secret: manage },
    run: async (ctx, body, owned) => {
      await revokeSecret(ctx.store, secretOf(owned), [granteeOf(owned.relations.get(body.relationId), body.unit, body.to).target]);
      return {};
    },
  },
  'secret-ids': {
    touches: { unit },
    run: async (ctx, body) => {
      const leader = await unitLeads(ctx.store, body.unit);
      const mine = (await listSecrets(ctx.store)).filter((s) => unitSecretAccess({ ...s, grants: [] }, body.unit, leader) === 'manage');
      return { ids: mine.map((s) => `secret:${s.id}`).sort() };
    },
  },
  'secret-info-get': {
    touches: { unit, secret: manage },
    run: async (_ctx, _body, owned) => info(secretOf(owned)),
  },
  'secret-new-uri': { touches: { unit }, run: async (ctx) => ({ uri: secretUri(newSecretId(ctx.store.now())) }) },
  // The unit agent's own, for the secret hooks (agent/uniter/secret-schedule.ts).
  'secret-hook-state': { touches: { unit }, run: (ctx, body) => unitSecretHookState(ctx.store, body.unit) },
  'secret-rotated': {
    touches: { unit, secret: manage },
    run: (ctx, body, owned) =>
      secretRotated(ctx.store, secretOf(owned), {
        rotateTime: new Date(body.rotateTime).toISOString(),
        originalRevision: body.originalRevision,
      }),
  },
  'secret-revision-seen': {
    touches: { unit, secret: (body) => ({ ref: body.secret, needs: 'view' }) },
    run: async (ctx, body, owned) => {
      await secretChangeSeen(ctx.store, secretOf(owned), body.unit, body.revision);
      return {};
    },
  },
};
