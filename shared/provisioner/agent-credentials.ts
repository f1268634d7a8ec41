// Where a machine agent's credential comes from.
//
// One credential per provisioning attempt, derived as HMAC-SHA256(controller key, model, machine,
// attempt) rather than drawn at random each time. Random would break idempotency: a provisioner
// that dies after starting the instance (or two racing on one stream record) would, on the next
// reconcile, draw a second secret and store its hash, while the instance that StartInstance
// returns again (same ClientToken) still carries the first; the agent could never authenticate.
// Derived, every reconcile of the same attempt hands out and hashes the same secret, and
// retry-provisioning (a new attempt) revokes the old one. The credential is still 32 bytes no
// one can guess without the key, and the key gives nothing the provisioner does not already
// have: it writes the hashes anyway.
//
// Only the local controller gives agents keys (on AWS an agent's identity is its instance role);
// the key is its own, made at bootstrap. The port stays async for a key fetched when first needed.
import { createHmac, randomBytes } from 'node:crypto';

export interface AgentCredentials {
  forAttempt(machine: { model: string; machineId: string; attempt: number }): Promise<string>;
}

/** The key itself (base64url), or how to get it; a getter is called for every credential, so it caches. */
export type AgentCredentialKeySource = string | (() => Promise<string>);

const MIN_KEY_BYTES = 32;

/** A new controller key (base64url of 32 random bytes), made once at bootstrap. */
export const newAgentCredentialKey = () => randomBytes(MIN_KEY_BYTES).toString('base64url');

/** The key's bytes, or an error if it is too short to be one. */
export function agentCredentialKeyBytes(key: string): Buffer {
  const secret = Buffer.from(key, 'base64url');
  if (secret.length < MIN_KEY_BYTES) throw new Error(`the agent credential key must be at least ${MIN_KEY_BYTES} bytes (base64url)`);
  return secret;
}

// A key given directly is checked now, so a bad one fails at start-up; a fetched one on arrival.
function keyBytesOf(key: AgentCredentialKeySource): () => Promise<Buffer> {
  if (typeof key === 'string') {
    const bytes = agentCredentialKeyBytes(key);
    return async () => bytes;
  }
  return async () => agentCredentialKeyBytes(await key());
}

export function derivedAgentCredentials(key: AgentCredentialKeySource): AgentCredentials {
  const keyBytes = keyBytesOf(key);
  return {
    forAttempt: async ({ model, machineId, attempt }) =>
      // JSON keeps the fields apart: no two (model, machine, attempt) triples encode alike.
      createHmac('sha256', await keyBytes())
        .update(JSON.stringify([model, machineId, attempt]))
        .digest('base64url'),
  };
}
