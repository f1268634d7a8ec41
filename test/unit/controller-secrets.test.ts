// The local controller's secrets (embedded/secrets.ts): made once, kept, and completed when a data
// directory made before a secret existed is opened again (the key that signs charm URLs, the
// database's and the SQS server's access keys).
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateSecrets } from '../../embedded/secrets.js';

describe('the local controller secrets', () => {
  it('are made once, with keys for charm URLs, the database and SQS, private, and the same when loaded again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-secrets-'));
    const made = loadOrCreateSecrets(dir);
    for (const key of [made.charmUrlKey, made.databaseAccessKey, made.sqsAccessKey]) expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set([made.charmUrlKey, made.databaseAccessKey, made.sqsAccessKey]).size).toBe(3);
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecrets(dir)).toEqual(made);
  });

  it('gain the keys they lack, keeping everything else, in a data directory made before those existed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-secrets-'));
    const older = { controllerId: 'local-abc123', token: 'token', agentCredentialKey: 'agent-key', apiPort: 1234 };
    writeFileSync(join(dir, 'secrets.json'), JSON.stringify(older), { mode: 0o600 });
    const loaded = loadOrCreateSecrets(dir);
    expect(loaded).toMatchObject(older);
    for (const key of [loaded.charmUrlKey, loaded.databaseAccessKey, loaded.sqsAccessKey]) expect(key).toMatch(/^[0-9a-f]{64}$/);
    // Kept, so URLs signed and agents started before a restart still hold after it.
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toEqual(loaded);
    expect(loadOrCreateSecrets(dir)).toEqual(loaded);
  });
});
