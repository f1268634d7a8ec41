// The agent API's secret operations, one per hook tool (secret-add, secret-get, secret-set,
// secret-remove, secret-grant, secret-revoke, secret-ids, secret-info-get). Each names the unit it
// acts for and the secret by URI or label; functions/api/agent-authorization.ts checks both
// (the unit is on the caller's machine; the unit owns the secret or was granted it) before the route runs.
import * as z from 'zod';
import { post } from './contract.js';
import { name } from './fields.js';
import { ROTATE_POLICIES } from '../domain/secrets.js';

const unit = name;
/** A secret's URI, or a label its owner or consumer gave it. */
const secret = z.string().min(1).max(200);
/** Base64 per key, as the hook tools encode it (shared/domain/secrets.ts checks it). */
const content = z.record(z.string().min(1).max(100), z.string().max(16_384));
const label = z.string().min(1).max(200);
const description = z.string().max(1000);
const rotate = z.enum(ROTATE_POLICIES);
/** An RFC 3339 time: the tool turns a duration into one. */
const expire = z.iso.datetime({ offset: true });

export const agentSecretOperations = {
  'secret-add': post(
    z.strictObject({
      unit,
      /** The URI `secret-new-uri` allocated when the hook called secret-add (Juju's CreateSecretURIs). */
      uri: secret.optional(),
      owner: z.enum(['unit', 'application']),
      content,
      label: label.optional(),
      description: description.optional(),
      expire: expire.optional(),
      rotate: rotate.optional(),
    }),
  ),
  'secret-get': post(
    z.strictObject({ unit, secret, label: label.optional(), peek: z.boolean().optional(), refresh: z.boolean().optional() }),
  ),
  'secret-set': post(
    z.strictObject({
      unit,
      secret,
      content: content.optional(),
      label: label.optional(),
      description: description.optional(),
      expire: expire.optional(),
      rotate: rotate.optional(),
    }),
  ),
  'secret-remove': post(z.strictObject({ unit, secret, revision: z.int().min(1).optional() })),
  /** To the application across the relation, or to one of its units (`--unit`). */
  'secret-grant': post(z.strictObject({ unit, secret, relationId: z.int().min(0), to: name.optional() })),
  'secret-revoke': post(z.strictObject({ unit, secret, relationId: z.int().min(0), to: name.optional() })),
  /** The secrets the unit's owner side may manage: its own and, for the leader, its application's. */
  'secret-ids': post(z.strictObject({ unit })),
  'secret-info-get': post(z.strictObject({ unit, secret })),
} as const;

/**
 * What the unit agent asks about its secret hooks (not hook tools): what is due, and what a
 * secret hook leaves behind. Each names the unit, and the secret it ran for.
 */
export const agentSecretHookOperations = {
  /** A new secret's URI, allocated when a hook calls secret-add; the secret is created when the hook commits. */
  'secret-new-uri': post(z.strictObject({ unit })),
  /** The secrets the unit manages and consumes, as its secret hooks need them (no content). */
  'secret-hook-state': post(z.strictObject({ unit })),
  /** secret-rotate ran for the secret's nextRotateTime `rotateTime`, when its latest revision was `originalRevision`. */
  'secret-rotated': post(z.strictObject({ unit, secret, rotateTime: expire, originalRevision: z.int().min(1) })),
  /** secret-changed ran for `revision`: the consumer's record keeps it. */
  'secret-revision-seen': post(z.strictObject({ unit, secret, revision: z.int().min(1) })),
} as const;
