// The local controller's secrets, made once at bootstrap and kept in its data directory
// (mode 0600): the users' API token, the key agent credentials are derived from, the key that
// signs charm archive URLs (shared/charmstore/signed-local-url.ts), and the access keys DynamoDB
// Local and the SQS server demand (embedded/DynamoDbLocalLauncher.java, embedded/sqs-access.ts).
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
  /** The only access key DynamoDB Local accepts; added to a data directory made before it existed. */
  databaseAccessKey: string;
  /** The controller's access key to the SQS server, and what agents' queue keys derive from. */
  sqsAccessKey: string;
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

/** The keys a data directory made by an older controller may lack, made when first missed. */
const LATER_KEYS = ['charmUrlKey', 'databaseAccessKey', 'sqsAccessKey'] as const;

export function loadOrCreateSecrets(dataDir: string): ControllerSecrets {
  const path = join(dataDir, 'secrets.json');
  const key = () => randomBytes(32).toString('hex');
  const kept: Partial<ControllerSecrets> = existsSync(path)
    ? (JSON.parse(readFileSync(path, 'utf8')) as Partial<ControllerSecrets>)
    : {
        controllerId: `local-${randomBytes(3).toString('hex')}`,
        token: randomBytes(32).toString('base64url'),
        agentCredentialKey: newAgentCredentialKey(),
      };
  const missing = LATER_KEYS.filter((name) => !kept[name]);
  const secrets = { ...kept, ...Object.fromEntries(missing.map((name) => [name, key()])) } as ControllerSecrets;
  if (missing.length > 0 || !existsSync(path)) writePrivateJson(path, secrets);
  return secrets;
}
