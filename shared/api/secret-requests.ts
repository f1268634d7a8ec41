// The user API's secret operations (Juju's add-secret, update-secret, remove-secret, secrets,
// show-secret, grant-secret, revoke-secret): the model's own secrets, whose content arrives
// base64-encoded per key, as the CLI encodes it (shared/domain/secrets.ts checks it).
import * as z from 'zod';
import { get, post } from './contract.js';
import { name, nameList } from './fields.js';

/** A secret's URI or name; the route resolves it. */
const secret = z.string().min(1).max(200);
const content = z.record(z.string().min(1).max(100), z.string().max(16_384));
const description = z.string().max(1000);
const revision = z.coerce.number().int().min(1);
/** A query parameter that is `true` when given as `true`. */
const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

export const secretOperations = {
  'add-secret': post(z.strictObject({ name, content, description: description.optional() })),
  'update-secret': post(
    z.strictObject({
      secret,
      content: content.optional(),
      description: description.optional(),
      name: name.optional(),
      autoPrune: z.boolean().optional(),
    }),
  ),
  'remove-secret': post(z.strictObject({ secret, revision: z.int().min(1).optional() })),
  'grant-secret': post(z.strictObject({ secret, applications: nameList.min(1) })),
  'revoke-secret': post(z.strictObject({ secret, applications: nameList.min(1) })),
  /** `GET /v1/secrets?owner=application-mysql`: the model's secrets' metadata, never their content. */
  secrets: get(z.strictObject({ owner: z.string().max(200).optional() })),
  /** `GET /v1/show-secret?secret=sec1&reveal=true`: one secret; its content only with reveal. */
  'show-secret': get(z.strictObject({ secret, reveal: flag.optional(), revision: revision.optional(), revisions: flag.optional() })),
} as const;
