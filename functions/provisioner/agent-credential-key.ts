// Where the provisioner Lambda gets the key agent credentials are derived from
// (shared/provisioner/agent-credentials.ts). On AWS the stack passes the ARN of a Secrets Manager
// secret, read at run time: a key in the environment would be readable by anyone allowed
// lambda:GetFunctionConfiguration, the secret only by the provisioner functions' roles. The key
// itself (AGENT_CREDENTIAL_KEY) is still accepted, for tests and wiring outside AWS.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { agentCredentialKeyBytes, type AgentCredentialKeySource } from '../../shared/provisioner/agent-credentials.js';

export const KEY_SECRET_ARN_VARIABLE = 'AGENT_CREDENTIAL_KEY_SECRET_ARN';
export const KEY_VARIABLE = 'AGENT_CREDENTIAL_KEY';

type Env = Record<string, string | undefined>;

export function agentCredentialKeyFromEnv(env: Env, client: () => SecretsManagerClient): AgentCredentialKeySource {
  const secretArn = env[KEY_SECRET_ARN_VARIABLE];
  const key = env[KEY_VARIABLE];
  // Both set could mean two different keys, and so credentials that silently stop verifying.
  if (secretArn && key) throw new Error(`the provisioner needs ${KEY_SECRET_ARN_VARIABLE} or ${KEY_VARIABLE} in its environment, not both`);
  if (key) return key;
  if (!secretArn)
    throw new Error(
      `the provisioner needs ${KEY_SECRET_ARN_VARIABLE} (the ARN of the Secrets Manager secret holding the agent credential key) ` +
        `in its environment, or ${KEY_VARIABLE} (the key itself) outside AWS`,
    );
  if (!/^arn:[^:]+:secretsmanager:/.test(secretArn))
    throw new Error(`${KEY_SECRET_ARN_VARIABLE} must be the ARN of a Secrets Manager secret, not "${secretArn}"`);
  return secretKeyReader(client(), secretArn);
}

/**
 * Reads the key from the secret on first use and keeps it: the provisioner builds its
 * dependencies once per Lambda container (handler.ts), so a warm container asks Secrets Manager
 * once, and concurrent first uses share that one request. A failed read is forgotten, so the
 * next use (the stream's retry, the next schedule) asks again instead of failing forever.
 */
export function secretKeyReader(client: SecretsManagerClient, secretArn: string): () => Promise<string> {
  let key: Promise<string> | undefined;
  return () => {
    key ??= readKey(client, secretArn).catch((e: unknown) => {
      key = undefined;
      throw e;
    });
    return key;
  };
}

async function readKey(client: SecretsManagerClient, secretArn: string): Promise<string> {
  let secretString: string | undefined;
  try {
    ({ SecretString: secretString } = await client.send(new GetSecretValueCommand({ SecretId: secretArn })));
  } catch (e) {
    throw new Error(`cannot read the agent credential key from ${secretArn}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (secretString === undefined)
    throw new Error(`the secret ${secretArn} holds no SecretString: the agent credential key is text (base64url)`);
  try {
    agentCredentialKeyBytes(secretString);
  } catch (e) {
    throw new Error(`the secret ${secretArn} is no agent credential key: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  return secretString;
}
