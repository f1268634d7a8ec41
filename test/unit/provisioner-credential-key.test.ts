// The provisioner Lambda reads the agent credential key from Secrets Manager at run time, once per
// container. Secrets Manager is mocked (there is no local server): the tests check what is asked
// for and answer as GetSecretValue does.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { KEY_SECRET_ARN_VARIABLE, KEY_VARIABLE } from '../../functions/provisioner/agent-credential-key.js';
import { provisionerDepsFromEnv } from '../../functions/provisioner/env.js';
import { newAgentCredentialKey } from '../../shared/provisioner/agent-credentials.js';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:AgentCredentialKey-AbCdEf';
const KEY = newAgentCredentialKey();
const secretsManager = mockClient(SecretsManagerClient);

// Shaped like the real API's answer for a secret with a string value.
const secretValue = (secretString: string) => ({
  ARN,
  Name: 'AgentCredentialKey',
  VersionId: 'EXAMPLE1-90ab-cdef-fedc-ba987EXAMPLE',
  SecretString: secretString,
  VersionStages: ['AWSCURRENT'],
  CreatedDate: new Date('2026-01-01T00:00:00Z'),
});

const depsWith = (key: Record<string, string>) =>
  provisionerDepsFromEnv({
    TABLE_NAME: 't',
    CONTROLLER_ID: 'ctl',
    DEPLOYMENT_ID: 'deployment-1',
    API_URL: 'https://api.example.com',
    AGENT_BUNDLE_URL: 'https://example.com/agent.tgz',
    AWS_REGION: 'us-east-1',
    ...key,
  });
const machine = (machineId: string, attempt = 0) => ({ model: 'default', machineId, attempt });

beforeEach(() => {
  secretsManager.reset();
});

describe('the provisioner reading its agent credential key from Secrets Manager', () => {
  it('asks for the secret named by its ARN, on first use and not before', async () => {
    secretsManager.on(GetSecretValueCommand).resolves(secretValue(KEY));
    const { credentials } = depsWith({ [KEY_SECRET_ARN_VARIABLE]: ARN });
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(0);
    await credentials.forAttempt(machine('1'));
    expect(secretsManager.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input)).toEqual([{ SecretId: ARN }]);
  });

  it('reads the secret once for all the credentials a container derives, even concurrently', async () => {
    secretsManager.on(GetSecretValueCommand).resolves(secretValue(KEY));
    const { credentials } = depsWith({ [KEY_SECRET_ARN_VARIABLE]: ARN });
    await Promise.all(['1', '2', '3'].map((id) => credentials.forAttempt(machine(id))));
    await credentials.forAttempt(machine('4'));
    await credentials.forAttempt(machine('1', 1));
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('derives the same credentials as the same key given directly, so a retried provisioner hands out the same one', async () => {
    secretsManager.on(GetSecretValueCommand).resolves(secretValue(KEY));
    const fromSecret = depsWith({ [KEY_SECRET_ARN_VARIABLE]: ARN }).credentials;
    const direct = depsWith({ [KEY_VARIABLE]: KEY }).credentials;
    for (const m of [machine('1'), machine('1', 1), machine('7', 3)])
      expect(await fromSecret.forAttempt(m)).toBe(await direct.forAttempt(m));
    // A different key, to show the comparison can fail.
    expect(await depsWith({ [KEY_VARIABLE]: newAgentCredentialKey() }).credentials.forAttempt(machine('1'))).not.toBe(
      await fromSecret.forAttempt(machine('1')),
    );
  });

  it('does not keep a failed read: the next use asks again', async () => {
    secretsManager
      .on(GetSecretValueCommand)
      .rejectsOnce(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }))
      .resolves(secretValue(KEY));
    const { credentials } = depsWith({ [KEY_SECRET_ARN_VARIABLE]: ARN });
    await expect(credentials.forAttempt(machine('1'))).rejects.toThrow(`cannot read the agent credential key from ${ARN}: Rate exceeded`);
    const credential = await credentials.forAttempt(machine('1'));
    await credentials.forAttempt(machine('2'));
    expect(credential).toBe(await depsWith({ [KEY_VARIABLE]: KEY }).credentials.forAttempt(machine('1')));
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('refuses a secret that is no key, clearly, and reads it again next time (it may have been fixed)', async () => {
    secretsManager.on(GetSecretValueCommand).resolvesOnce(secretValue('c2hvcnQ')).resolves(secretValue(KEY));
    const { credentials } = depsWith({ [KEY_SECRET_ARN_VARIABLE]: ARN });
    await expect(credentials.forAttempt(machine('1'))).rejects.toThrow(
      `the secret ${ARN} is no agent credential key: the agent credential key must be at least 32 bytes (base64url)`,
    );
    await expect(credentials.forAttempt(machine('1'))).resolves.toEqual(expect.any(String));
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('refuses a binary secret: the key is stored as text', async () => {
    const { SecretString: _, ...binary } = secretValue(KEY);
    secretsManager.on(GetSecretValueCommand).resolves({ ...binary, SecretBinary: Buffer.from(KEY) });
    const { credentials } = depsWith({ [KEY_SECRET_ARN_VARIABLE]: ARN });
    await expect(credentials.forAttempt(machine('1'))).rejects.toThrow(`the secret ${ARN} holds no SecretString`);
  });
});

describe('the provisioner environment naming its agent credential key', () => {
  it('says which variable to set when neither is', () => {
    expect(() => depsWith({})).toThrow(
      /needs AGENT_CREDENTIAL_KEY_SECRET_ARN \(the ARN of the Secrets Manager secret holding the agent credential key\).*or AGENT_CREDENTIAL_KEY/,
    );
  });

  it('refuses both at once: they could be different keys', () => {
    expect(() => depsWith({ [KEY_SECRET_ARN_VARIABLE]: ARN, [KEY_VARIABLE]: KEY })).toThrow('not both');
  });

  it('refuses an ARN variable that holds no Secrets Manager ARN', () => {
    expect(() => depsWith({ [KEY_SECRET_ARN_VARIABLE]: KEY })).toThrow(
      `${KEY_SECRET_ARN_VARIABLE} must be the ARN of a Secrets Manager secret`,
    );
  });

  it('still refuses a short key given directly, at once', () => {
    expect(() => depsWith({ [KEY_VARIABLE]: 'c2hvcnQ' })).toThrow('at least 32 bytes');
  });
});
