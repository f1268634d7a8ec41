import { describe, expect, it } from 'vitest';
import { DroverError } from '#shared/domain/errors.js';
import {
  applicationOfUnit,
  isValidApplicationName,
  isValidEndpointName,
  isValidMachineId,
  isValidUnitName,
  parseUnitName,
  unitName,
} from '#shared/domain/names.js';

describe('application names', () => {
  it.each(['wordpress', 'mysql', 'a', 'foo-bar', 'foo2', 'foo-2b', 'logging-principal', 'a-b-c'])('accepts "%s"', (name) => {
    expect(isValidApplicationName(name)).toBe(true);
  });

  it.each([
    ['', 'empty'],
    ['Wordpress', 'upper case'],
    ['2wordpress', 'leading digit'],
    ['foo-1', 'digit-only last segment, which would read as a unit'],
    ['foo-1-bar', 'digit-only middle segment'],
    ['foo--bar', 'double hyphen'],
    ['foo-', 'trailing hyphen'],
    ['-foo', 'leading hyphen'],
    ['foo_bar', 'underscore'],
    ['haha/borken', 'slash'],
  ])('rejects "%s" (%s)', (name) => {
    expect(isValidApplicationName(name)).toBe(false);
  });
});

describe('unit names', () => {
  it.each(['wordpress/0', 'mysql/12', 'foo-bar/3'])('accepts "%s"', (name) => {
    expect(isValidUnitName(name)).toBe(true);
  });

  it.each(['foo', 'foo/', '/0', 'foo/01', 'foo/-1', 'foo/1/2', 'Foo/0', 'foo-1/0', 'foo/x'])('rejects "%s"', (name) => {
    expect(isValidUnitName(name)).toBe(false);
  });

  it('parses a unit name into its application and number', () => {
    expect(parseUnitName('wordpress/10')).toEqual({ application: 'wordpress', number: 10 });
  });

  it("refuses to parse an invalid unit name with Juju's message", () => {
    expect(() => parseUnitName('foo')).toThrow(new DroverError('invalid-argument', 'invalid unit name "foo"'));
  });

  it('reports a bad unit name as invalid-argument', () => {
    expect(() => parseUnitName('foo/01')).toThrow(expect.objectContaining({ code: 'invalid-argument' }));
  });

  it("names a unit's application, as parseUnitName does for a valid name, and none for a name with no slash", () => {
    for (const name of ['wordpress/0', 'mysql/12', 'foo-bar/3']) expect(applicationOfUnit(name)).toBe(parseUnitName(name).application);
    expect(applicationOfUnit('foo')).toBe('');
  });

  it('builds a unit name from an application and a number', () => {
    expect(unitName('mysql', 1)).toBe('mysql/1');
  });

  it.each([
    ['Bad', 0],
    ['mysql', -1],
    ['mysql', 1.5],
  ])('refuses to build a unit name from %s and %s', (app, n) => {
    expect(() => unitName(app, n)).toThrow(DroverError);
  });
});

describe('machine ids', () => {
  it.each(['0', '1', '42', '100'])('accepts "%s"', (id) => {
    expect(isValidMachineId(id)).toBe(true);
  });

  it.each(['', '01', '-1', '1.0', 'a', '1/lxd/0', ' 1'])('rejects "%s"', (id) => {
    expect(isValidMachineId(id)).toBe(false);
  });
});

describe('endpoint names', () => {
  it.each(['db', 'logging-dir', 'ring', 'server-admin', 'a1', 'foo-2'])('accepts "%s"', (name) => {
    expect(isValidEndpointName(name)).toBe(true);
  });

  it.each(['', 'DB', '1db', 'db-', 'db--x', 'db_x', '-db', 'db:x'])('rejects "%s"', (name) => {
    expect(isValidEndpointName(name)).toBe(false);
  });
});
