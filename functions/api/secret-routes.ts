// The user API's secret routes: the model's own secrets (owner `<model>`), and a read of every
// secret's metadata. Their answers are Juju 3.6's display documents (cmd/juju/secrets/list.go,
// https://github.com/juju/juju/blob/3.6/cmd/juju/secrets/list.go), keyed by the secret's id; the
// content is in an answer only when asked to reveal it, and in no error.
import type { RequestOf } from '#shared/api/requests.js';
import { invalidArgument, notFound } from '#shared/domain/errors.js';
import {
  decodeSecretContent,
  ownerDisplay,
  parseOwnerFilter,
  sameOwner,
  type SecretMetadata,
  type SecretRevision,
} from '#shared/domain/secrets.js';
import { getApplication } from '#shared/state/engine/reads.js';
import type { Store } from '#shared/state/engine/store.js';
import { addSecret, grantSecret, readRevisionContent, removeSecret, revokeSecret, updateSecret } from '#shared/state/operations/secrets.js';
import { listSecretRevisions, listSecrets, resolveSecret } from '#shared/state/queries/secrets.js';

type Ctx = { store: Store };

/** A user names the model's secrets by name; any secret by URI. */
const userSecret = (store: Store, ref: string) => resolveSecret(store, ref, ['model']);

/** Only the model's own secrets are the user's to change: a charm's belongs to its charm. */
function requireModelOwned(secret: SecretMetadata, ref: string): SecretMetadata {
  if (secret.owner.kind !== 'model') throw invalidArgument(`secret "${ref}" is owned by ${ownerDisplay(secret.owner)}, not the model`);
  return secret;
}

/** One secret as `juju secrets` and `juju show-secret` show it: a user's secret has a name, a charm's a label. */
function display(secret: SecretMetadata, extra: { revisions?: SecretRevision[]; access?: boolean; content?: Record<string, string> }) {
  const named = secret.owner.kind === 'model';
  return {
    revision: secret.latestRevision,
    ...(extra.content ? { checksum: secret.latestChecksum ?? '' } : {}),
    ...(secret.latestExpireTime ? { expires: secret.latestExpireTime } : {}),
    ...(secret.rotatePolicy ? { rotation: secret.rotatePolicy } : {}),
    ...(secret.nextRotateTime ? { rotates: secret.nextRotateTime } : {}),
    owner: ownerDisplay(secret.owner),
    ...(secret.description ? { description: secret.description } : {}),
    ...(named && secret.label ? { name: secret.label } : {}),
    ...(!named && secret.label ? { label: secret.label } : {}),
    created: secret.created,
    updated: secret.updated,
    ...(extra.content ? { content: { Data: decodeSecretContent(extra.content) } } : {}),
    ...(extra.revisions?.length
      ? {
          revisions: extra.revisions.map((r) => ({
            revision: r.revision,
            created: r.created,
            updated: r.updated,
            ...(r.expireTime ? { expires: r.expireTime } : {}),
          })),
        }
      : {}),
    ...(extra.access && secret.grants.length ? { access: secret.grants.map(({ target, scope, role }) => ({ target, scope, role })) } : {}),
  };
}

/** Each application's creation time: a grant holds for that deployment of it only. */
async function incarnations(store: Store, applications: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const name of applications) {
    const app = await getApplication(store, name);
    if (!app) throw notFound(`application "${name}" not found`);
    found.push(app.createdAt);
  }
  return found;
}

export const secretRoutes = {
  'add-secret': (ctx: Ctx, body: RequestOf<'add-secret'>) =>
    addSecret(ctx.store, {
      owner: { kind: 'model' },
      label: body.name,
      content: body.content,
      ...(body.description !== undefined ? { description: body.description } : {}),
    }),
  'update-secret': async (ctx: Ctx, body: RequestOf<'update-secret'>) => {
    if (body.content === undefined && body.description === undefined && body.name === undefined && body.autoPrune === undefined)
      throw invalidArgument('nothing to update');
    const secret = requireModelOwned(await userSecret(ctx.store, body.secret), body.secret);
    return updateSecret(ctx.store, secret, {
      ...(body.content !== undefined ? { content: body.content } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.name !== undefined ? { label: body.name } : {}),
      ...(body.autoPrune !== undefined ? { autoPrune: body.autoPrune } : {}),
    });
  },
  'remove-secret': async (ctx: Ctx, body: RequestOf<'remove-secret'>) => {
    const secret = requireModelOwned(await userSecret(ctx.store, body.secret), body.secret);
    await removeSecret(ctx.store, secret, body.revision);
    return {};
  },
  'grant-secret': async (ctx: Ctx, body: RequestOf<'grant-secret'>) => {
    const secret = requireModelOwned(await userSecret(ctx.store, body.secret), body.secret);
    const created = await incarnations(ctx.store, body.applications);
    const scope = `model-${ctx.store.model}`;
    await grantSecret(
      ctx.store,
      secret,
      body.applications.map((a, i) => ({ target: `application-${a}`, scope, role: 'view' as const, incarnation: created[i]! })),
    );
    return {};
  },
  'revoke-secret': async (ctx: Ctx, body: RequestOf<'revoke-secret'>) => {
    const secret = requireModelOwned(await userSecret(ctx.store, body.secret), body.secret);
    await revokeSecret(
      ctx.store,
      secret,
      body.applications.map((a) => `application-${a}`),
    );
    return {};
  },
  secrets: async (ctx: Ctx, body: RequestOf<'secrets'>) => {
    const owner = body.owner !== undefined ? parseOwnerFilter(body.owner) : undefined;
    const all = await listSecrets(ctx.store);
    return Object.fromEntries(all.filter((s) => !owner || sameOwner(s.owner, owner)).map((s) => [s.id, display(s, {})]));
  },
  'show-secret': async (ctx: Ctx, body: RequestOf<'show-secret'>) => {
    if (body.revisions && (body.reveal || body.revision !== undefined))
      throw invalidArgument('specify either --revisions or --reveal but not both');
    const secret = await userSecret(ctx.store, body.secret);
    const content = body.reveal ? await readRevisionContent(ctx.store, secret, body.revision ?? secret.latestRevision) : undefined;
    const revisions = body.revisions ? await listSecretRevisions(ctx.store, secret.id) : undefined;
    return {
      [secret.id]: display(body.revision !== undefined ? { ...secret, latestRevision: body.revision } : secret, {
        access: true,
        ...(content ? { content } : {}),
        ...(revisions ? { revisions } : {}),
      }),
    };
  },
};
