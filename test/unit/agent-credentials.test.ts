import { describe, expect, it } from 'vitest';
import { derivedAgentCredentials, newAgentCredentialKey } from '#shared/provisioner/agent-credentials.js';
import { hashAgentCredential, verifyAgentCredential } from '#shared/state/operations/agent-credential.js';

describe('agent credentials', () => {
  const credentials = derivedAgentCredentials(newAgentCredentialKey());
  const of = (machineId: string, attempt: number, model = 'default') => credentials.forAttempt({ model, machineId, attempt });

  it('one credential per machine and attempt, the same every time it is asked for', async () => {
    expect(await of('1', 0)).toBe(await of('1', 0));
    expect(new Set(await Promise.all([of('1', 0), of('1', 1), of('2', 0), of('1', 0, 'other')])).size).toBe(4);
    expect(Buffer.from(await of('1', 0), 'base64url')).toHaveLength(32);
  });

  it('another controller key gives other credentials', async () => {
    expect(await derivedAgentCredentials(newAgentCredentialKey()).forAttempt({ model: 'default', machineId: '1', attempt: 0 })).not.toBe(
      await of('1', 0),
    );
  });

  it('a key fetched by a getter gives the same credentials as the key given directly', async () => {
    const key = newAgentCredentialKey();
    const machine = { model: 'default', machineId: '1', attempt: 2 };
    expect(await derivedAgentCredentials(async () => key).forAttempt(machine)).toBe(await derivedAgentCredentials(key).forAttempt(machine));
  });

  it('refuses a short key: given at once, fetched when it arrives', async () => {
    expect(() => derivedAgentCredentials('c2hvcnQ')).toThrow('at least 32 bytes');
    const fetched = derivedAgentCredentials(async () => 'c2hvcnQ');
    await expect(fetched.forAttempt({ model: 'default', machineId: '1', attempt: 0 })).rejects.toThrow('at least 32 bytes');
  });

  it('stores a sha256 hash that verifies the credential and nothing else', () => {
    const hash = hashAgentCredential('secret');
    expect(hash).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(verifyAgentCredential(hash, 'secret')).toBe(true);
    expect(verifyAgentCredential(hash, 'secreT')).toBe(false);
    expect(verifyAgentCredential(undefined, 'secret')).toBe(false);
    expect(verifyAgentCredential('md5:x', 'secret')).toBe(false);
  });
});
