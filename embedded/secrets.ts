// The local controller's secrets, made once at bootstrap and kept in its data directory
// (mode 0600): the users' API token, the key agent credentials are derived from, and the key that
// signs charm archive URLs (shared/charmstore/signed-local-url.ts).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { newAgentCredentialKey } from '#shared/provisioner/agent-credentials.js';

export interface ControllerSecrets {
  controllerId: string;
  token: string;
  agentCredentialKey: string;
  /** Signs the URLs agents download charms from; added to a data directory made before it existed. */
  charmUrlKey: string;
  /** The API port, kept so agents started before a restart still find the controller. */
  apiPort?: number;
  /** The SQS server's port, kept for the same reason: agents that survived a crash poll it. */
  sqsPort?: number;
}

export function writePrivateJson(path: string, value: unknown): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(value, null, 2), { mode: 0o600 });
  renameSync(temporary, path);
}

export function loadOrCreateSecrets(dataDir: string): ControllerSecrets {
  const path = join(dataDir, 'secrets.json');
  const charmUrlKey = () => randomBytes(32).toString('hex');
  if (existsSync(path)) {
    const kept = JSON.parse(readFileSync(path, 'utf8')) as Partial<ControllerSecrets> & Omit<ControllerSecrets, 'charmUrlKey'>;
    if (kept.charmUrlKey) return kept as ControllerSecrets;
    const secrets = { ...kept, charmUrlKey: charmUrlKey() };
    writePrivateJson(path, secrets);
    return secrets;
  }
  const secrets: ControllerSecrets = {
    controllerId: `local-${randomBytes(3).toString('hex')}`,
    token: randomBytes(32).toString('base64url'),
    agentCredentialKey: newAgentCredentialKey(),
    charmUrlKey: charmUrlKey(),
  };
  writePrivateJson(path, secrets);
  return secrets;
}
