// compareNatural and compareText order names as localeCompare does, with and without
// { numeric: true }, without ICU.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareNatural, compareText } from '#shared/domain/natural-order.js';

const byLocale = (a: string, b: string) => Math.sign(a.localeCompare(b, 'en', { numeric: true }));

describe('compareNatural', () => {
  it('orders numbers by value and the rest by character', () => {
    expect(['app/10', 'app/2', 'app-b/0', 'app/1', 'ap/3', 'db/0'].sort(compareNatural)).toEqual([
      'ap/3',
      'app-b/0',
      'app/1',
      'app/2',
      'app/10',
      'db/0',
    ]);
    expect(['10', '9', '100', '0/lxd/10', '0/lxd/2', '0'].sort(compareNatural)).toEqual(['0', '0/lxd/2', '0/lxd/10', '9', '10', '100']);
    expect(compareNatural('app/12345678901234567890', 'app/9')).toBe(1);
    expect(compareNatural('web/3', 'web/3')).toBe(0);
  });

  it("agrees with localeCompare's numeric order on names Juju allows", () => {
    const name = fc.stringMatching(/^[a-z0-9./-]{0,12}$/);
    fc.assert(
      fc.property(name, name, (a, b) => {
        // Leading zeros are the one place the two differ only by tie-breaking; Juju's names have none.
        fc.pre(!/(^|\D)0\d/.test(a) && !/(^|\D)0\d/.test(b));
        expect(compareNatural(a, b)).toBe(byLocale(a, b));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('compareText', () => {
  it("agrees with localeCompare's order on names Juju allows", () => {
    expect(['app9', 'app10', 'app-b', 'ab', 'a'].sort(compareText)).toEqual(['a', 'ab', 'app-b', 'app10', 'app9']);
    const name = fc.stringMatching(/^[a-z0-9./-]{0,12}$/);
    fc.assert(
      fc.property(name, name, (a, b) => {
        expect(compareText(a, b)).toBe(Math.sign(a.localeCompare(b)));
      }),
      { numRuns: 5000 },
    );
  });
});
