// The machine agent's credential in state: how it is hashed, checked, and stored.
//
// Why SHA-256 and not scrypt: a credential is 32 random (or HMAC-derived) bytes, 256 bits of
// entropy. A slow hash only protects secrets an attacker can guess (passwords); nobody can
// enumerate 2^256 candidates however fast each hash is, so a stolen table reveals nothing, and
// the API checks agents with one cheap hash per request instead of tens of milliseconds of scrypt.
import { createHash, timingSafeEqual } from 'node:crypto';
import { planSetAgentCredentialHash, type SetAgentCredentialResult } from '../../domain/plans/agent-credential.js';
import { getMachine } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

const SCHEME = 'sha256:';

export function hashAgentCredential(credential: string): string {
  return SCHEME + createHash('sha256').update(credential, 'utf8').digest('base64url');
}

/** True when `credential` is the one whose hash is stored; constant time in the credential. */
export function verifyAgentCredential(storedHash: string | undefined, credential: string): boolean {
  if (!storedHash?.startsWith(SCHEME)) return false;
  const expected = Buffer.from(storedHash);
  const actual = Buffer.from(hashAgentCredential(credential));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Stores the hash of the agent credential for the machine's current provisioning `attempt`. */
export async function setAgentCredentialHash(
  store: Store,
  machineId: string,
  hash: string,
  attempt: number,
): Promise<SetAgentCredentialResult> {
  // Speculative: the provisioner has just read the machine, and the plan asserts everything it
  // read (Alive, no instance, the attempt), so the common case is the transaction alone.
  return runOperation<SetAgentCredentialResult>(
    store,
    `cannot set agent credential of machine ${machineId}`,
    async (store) => planSetAgentCredentialHash(await getMachine(store, machineId), { id: machineId, hash, attempt }),
    { speculate: true },
  );
}
