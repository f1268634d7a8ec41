// A bundle application's `to`, unit by unit, as Juju's BundleData documents it.
import { describe, expect, it } from 'vitest';
import { parseDirective, unitPlacements } from '../../../cli/bundle/placement.js';

describe('bundle placement', () => {
  it('replicates the last directive for the remaining units, and "new" when there is none', () => {
    expect(unitPlacements(['0'], 3)).toEqual([
      { kind: 'machine', machine: '0' },
      { kind: 'machine', machine: '0' },
      { kind: 'machine', machine: '0' },
    ]);
    expect(unitPlacements([], 2)).toEqual([{ kind: 'new' }, { kind: 'new' }]);
  });

  it('numbers an application named alone one past its previous directive, replicated too', () => {
    // Juju's example: "wordpress wordpress" is "wordpress/0 wordpress/1".
    expect(unitPlacements(['wordpress', 'new', 'wordpress'], 4)).toEqual([
      { kind: 'unit', application: 'wordpress', index: 0 },
      { kind: 'new' },
      { kind: 'unit', application: 'wordpress', index: 1 },
      { kind: 'unit', application: 'wordpress', index: 2 },
    ]);
    expect(unitPlacements(['wordpress/3'], 2)).toEqual([
      { kind: 'unit', application: 'wordpress', index: 3 },
      { kind: 'unit', application: 'wordpress', index: 3 },
    ]);
  });

  it("parses containers (which verify refuses) and refuses bad syntax in Juju's words", () => {
    expect(parseDirective('lxd:0')).toEqual({ container: 'lxd', placement: { kind: 'machine', machine: '0' } });
    expect(parseDirective('new/1')).toEqual({ error: 'invalid placement syntax "new/1"' });
    expect(parseDirective('0/lxd/1')).toEqual({ error: 'invalid placement syntax "0/lxd/1"' });
  });
});
