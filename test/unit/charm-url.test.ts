// Charm URLs: local ones as Juju 2.9 stored them, Charmhub ones as Juju 3.6 does, and both as
// Juju 3.6 shows them.
import { describe, expect, it } from 'vitest';
import { displayCharmUrl, formatCharmUrl, parseCharmUrl } from '#shared/domain/charm-url.js';

describe('charm URLs', () => {
  it('keep local and Charmhub charms apart, and show them without the series', () => {
    const ch = formatCharmUrl({ schema: 'ch', architecture: 'amd64', series: 'jammy', name: 'postgresql', revision: 345 });
    expect(ch).toBe('ch:amd64/jammy/postgresql-345');
    expect(parseCharmUrl(ch)).toEqual({ schema: 'ch', architecture: 'amd64', series: 'jammy', name: 'postgresql', revision: 345 });
    expect(displayCharmUrl(ch)).toBe('ch:amd64/postgresql-345');
    const local = formatCharmUrl({ series: 'jammy', name: 'mysql', revision: 2 });
    expect(local).toBe('local:jammy/mysql-2');
    expect(parseCharmUrl(local)).toEqual({ schema: 'local', series: 'jammy', name: 'mysql', revision: 2 });
    expect(displayCharmUrl(local)).toBe('local:mysql-2');
    expect(() => parseCharmUrl('cs:mysql-2')).toThrow('invalid charm URL "cs:mysql-2"');
    expect(displayCharmUrl('odd')).toBe('odd');
  });
});
