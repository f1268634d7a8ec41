// The machine agent's installation of the model's SSH keys (agent/machine/authorized-keys.ts).
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installAuthorizedKeys } from '../../../agent/machine/authorized-keys.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFXGHBWQxZAJ8gEVQqJLpDkpdIgyz6iBm9HZxi2D0Y48 fuzz@host';

describe("installing the model's keys", () => {
  it('writes them owner-only, only when they change, keeping the keys it did not write', () => {
    const home = mkdtempSync(join(tmpdir(), 'drover-keys-'));
    const file = join(home, '.ssh', 'authorized_keys');
    expect(installAuthorizedKeys(file, KEY)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(`${KEY.replace('fuzz@host', 'Juju:fuzz@host')}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.ssh')).mode & 0o777).toBe(0o700);
    expect(installAuthorizedKeys(file, KEY)).toBe(false);

    writeFileSync(file, `# the user's own\n${readFileSync(file, 'utf8')}`);
    expect(installAuthorizedKeys(file, undefined)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe("# the user's own\n");
  });

  it("leaves an absent file absent while the model has no keys, and a user's file as it is while the model's keys are in it", () => {
    const home = mkdtempSync(join(tmpdir(), 'drover-keys-'));
    mkdirSync(join(home, '.ssh'));
    const file = join(home, '.ssh', 'authorized_keys');
    expect(installAuthorizedKeys(file, '')).toBe(false);
    expect(existsSync(file)).toBe(false);
    const users = `# mine\n\n${KEY.replace('fuzz@host', 'me@laptop')}`;
    writeFileSync(file, users);
    expect(installAuthorizedKeys(file, undefined)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(users);
  });
});
