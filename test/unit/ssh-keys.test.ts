// The model's SSH keys: parsing authorized_keys lines, Juju 3.6's MD5 fingerprints, and the
// add/remove rules of its keymanager facade (shared/domain/ssh-keys.ts).
import { describe, expect, it } from 'vitest';
import {
  addKeys,
  keyFingerprint,
  listKeys,
  mergeAuthorizedKeysFile,
  parseAuthorizedKey,
  removeKeys,
  withJujuComment,
} from '#shared/domain/ssh-keys.js';

// juju/utils' ssh/testing ValidKeyOne and the fingerprint its tests expect of it.
const JUJU_KEY_ONE =
  'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDEX/dPu4PmtvgK3La9zioCEDrJyUr6xEIK7Pr+rLgydcqWTU/kt7w7gKjOw4vvzgHfjKl09CWyvgb+y5dCiTk' +
  '9MxI+erGNhs3pwaoS+EavAbawB7iEqYyTep3YaJK+4RJ4OX7ZlXMAIMrTL+UVrK89t56hCkFYaAgo3VY+z6rb/b3bDBYtE1Y2tS7C3au73aDgeb9psIrSV' +
  '86ucKBTl5X62FnYiyGd++xCnLB6uLximM5OKXfLzJQNS/QyZyk12g3D8y69Xw1GzCSKX1u1+MQboyf0HJcG2ryUCLHdcDVppApyHx2OLq53hlkQ/yxdflD' +
  'qCqAE4j+doagSsIfC1T2T';
// Made with ssh-keygen; their fingerprints are what `ssh-keygen -l -E md5` prints.
const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFXGHBWQxZAJ8gEVQqJLpDkpdIgyz6iBm9HZxi2D0Y48 fuzz@host';
const ED25519_PRINT = '3a:20:ef:48:01:8e:58:bf:c9:54:4f:dd:9d:ab:40:4c';
const ECDSA =
  'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBC9JDPGsDbFjqIlrgtye8Pg1QdvJLrZrI76Awi857/yJmDl/pDtf2KnjNw95Srs+iExUmop0wHI+7STxNYTJPY8= ecdsa@host';
const ECDSA_PRINT = '50:2a:8e:a3:e0:87:2f:57:44:ce:66:79:c3:64:a0:73';

const print = (line: string) => keyFingerprint(parseAuthorizedKey(line)!);

describe('ssh keys', () => {
  it('fingerprints keys as Juju 3.6 does: MD5 of the key, colon-separated', () => {
    expect(print(JUJU_KEY_ONE)).toBe('86:ed:1b:cd:26:a0:a3:4c:27:35:49:60:95:b7:0f:68');
    expect(print(ED25519)).toBe(ED25519_PRINT);
    expect(print(ECDSA)).toBe(ECDSA_PRINT);
    expect(print(`no-pty,from="a b,c" ${ED25519}`)).toBe(ED25519_PRINT);
    expect(parseAuthorizedKey(`command="x" ${ED25519}`)?.comment).toBe('fuzz@host');
  });

  it('refuses what is not an authorized_keys line', () => {
    for (const bad of [
      'ssh-rsa',
      'invalid key',
      'ssh-ed25519 not-base64!',
      // A valid key's bytes under another type.
      ED25519.replace('ssh-ed25519', 'ssh-rsa'),
      // Cut short: its wire format no longer adds up.
      ED25519.replace('Y48 ', ' '),
      `${ED25519}\n${ECDSA}`,
      '# a comment',
    ])
      expect(parseAuthorizedKey(bad), bad).toBeUndefined();
  });

  it('adds keys one by one: invalid, internal and duplicate keys refused in Juju words', () => {
    const { value, errors } = addKeys(ED25519, [ECDSA, 'ssh-rsa nope', ED25519, `${JUJU_KEY_ONE} juju-client-key`, ECDSA]);
    expect(errors).toEqual([
      null,
      'invalid ssh key: ssh-rsa nope',
      `duplicate ssh key: ${ED25519}`,
      `may not add key with comment juju-client-key: ${JUJU_KEY_ONE} juju-client-key`,
      `duplicate ssh key: ${ECDSA}`,
    ]);
    expect(value).toBe(`${ED25519}\n${ECDSA}`);
    expect(listKeys(value, false)).toEqual([`${ED25519_PRINT} (fuzz@host)`, `${ECDSA_PRINT} (ecdsa@host)`]);
    expect(listKeys(value, true)).toEqual([ED25519, ECDSA]);
    expect(listKeys(`${JUJU_KEY_ONE}\nbroken`, false)).toEqual(['86:ed:1b:cd:26:a0:a3:4c:27:35:49:60:95:b7:0f:68', 'Invalid key: broken']);
  });

  it('removes keys by fingerprint, comment or the key itself, and says which it does not know', () => {
    const keys = [ED25519, ECDSA, JUJU_KEY_ONE].join('\n');
    expect(removeKeys(keys, [ED25519_PRINT, 'ecdsa@host', 'nobody@host'])).toEqual({
      value: JUJU_KEY_ONE,
      errors: [null, null, 'invalid ssh key: nobody@host'],
    });
    expect(removeKeys(keys, [JUJU_KEY_ONE])).toEqual({ value: `${ED25519}\n${ECDSA}`, errors: [null] });
    // The last key may go: a drover model holds none of its own.
    expect(removeKeys(ED25519, ['fuzz@host'])).toEqual({ value: '', errors: [null] });
  });

  it("writes the model's keys into authorized_keys marked as Juju's, keeping every other line", () => {
    expect(withJujuComment(ED25519)).toBe(ED25519.replace('fuzz@host', 'Juju:fuzz@host'));
    expect(withJujuComment(JUJU_KEY_ONE)).toBe(`${JUJU_KEY_ONE} Juju:sshkey`);
    const own = `${ECDSA.replace('ecdsa@host', 'admin@laptop')}`;
    const first = mergeAuthorizedKeysFile(`# mine\n${own}\n`, ED25519);
    expect(first).toBe(`# mine\n${own}\n${withJujuComment(ED25519)}\n`);
    // A key removed from the model leaves the file; the user's own stay.
    expect(mergeAuthorizedKeysFile(first, JUJU_KEY_ONE)).toBe(`# mine\n${own}\n${JUJU_KEY_ONE} Juju:sshkey\n`);
    expect(mergeAuthorizedKeysFile(`${withJujuComment(ED25519)}\n`, undefined)).toBe('');
  });
});
