// The local controller's secrets (embedded/secrets.ts): made once, kept, and completed when a data
// directory made before a secret existed is opened again (the key that signs charm URLs).
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreateSecrets } from '../../embedded/secrets.js';

describe('the local controller secrets', () => {
  it('are made once, with a key for charm URLs, private, and the same when loaded again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-secrets-'));
    const made = loadOrCreateSecrets(dir);
    expect(made.charmUrlKey).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecrets(dir)).toEqual(made);
  });

  it('gain a charm URL key, keeping everything else, in a data directory made before it existed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-secrets-'));
    const older = { controllerId: 'local-abc123', token: 'token', agentCredentialKey: 'agent-key', apiPort: 1234 };
    writeFileSync(join(dir, 'secrets.json'), JSON.stringify(older), { mode: 0o600 });
    const loaded = loadOrCreateSecrets(dir);
    expect(loaded).toMatchObject(older);
    expect(loaded.charmUrlKey).toMatch(/^[0-9a-f]{64}$/);
    // Kept, so URLs signed before a restart still hold after it.
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toEqual(loaded);
    expect(loadOrCreateSecrets(dir).charmUrlKey).toBe(loaded.charmUrlKey);
  });
});
