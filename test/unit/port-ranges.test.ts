import { describe, expect, it } from 'vitest';
import { canonicalPortRange } from '#shared/domain/port-ranges.js';
import { applyPortChanges, planSetUnitPorts } from '#shared/domain/plans/unit-ports.js';
import { unit } from './plans/relation-fixtures.js';

describe('port ranges', () => {
  it.each([
    ['80', '80/tcp'],
    ['80/UDP', '80/udp'],
    ['8000-8080', '8000-8080/tcp'],
    ['80-80/tcp', '80/tcp'],
    ['icmp', 'icmp'],
  ])('%s is %s', (arg, canonical) => expect(canonicalPortRange(arg)).toBe(canonical));

  it.each([
    ['0', 'port must be in the range [1, 65535]; got "0"'],
    ['9-8', 'invalid port range 9-8/tcp; expected fromPort <= toPort'],
    ['1-70000', 'toPort must be in the range [1, 65535]; got "70000"'],
    ['80/icmp', 'protocol "icmp" doesn\'t support any ports; got "80"'],
    ['x', 'expected <port>[/<protocol>] or <from>-<to>[/<protocol>] or icmp; got "x"'],
  ])('%s is refused: %s', (arg, message) => expect(() => canonicalPortRange(arg)).toThrow(message));
});

describe('planSetUnitPorts', () => {
  it('applies opens and closes in order and writes the whole set', () => {
    expect(
      applyPortChanges(
        ['80/tcp'],
        [
          { action: 'open', range: '443' },
          { action: 'close', range: '80' },
        ],
      ),
    ).toEqual(['443/tcp']);
    const plan = planSetUnitPorts(
      { unit: unit('wordpress/0', { openPorts: ['80/tcp'] }), neighbours: [] },
      {
        unit: 'wordpress/0',
        changes: [{ action: 'close', range: '80' }],
      },
    );
    expect(plan.changes).toEqual([
      { op: 'update', ref: { kind: 'unit', name: 'wordpress/0' }, unset: ['openPorts'], expect: { setSize: { openPorts: 1 } } },
    ]);
  });

  it('changes nothing when nothing changes', () => {
    expect(
      planSetUnitPorts(
        { unit: unit('wordpress/0', { openPorts: ['80/tcp'] }), neighbours: [] },
        {
          unit: 'wordpress/0',
          changes: [{ action: 'open', range: '80/tcp' }],
        },
      ).changes,
    ).toEqual([]);
  });

  it('refuses a range another unit on the machine has open', () => {
    const neighbour = unit('mysql/0', { openPorts: ['3000-4000/tcp'] });
    expect(() =>
      planSetUnitPorts(
        { unit: unit('wordpress/0'), neighbours: [neighbour] },
        { unit: 'wordpress/0', changes: [{ action: 'open', range: '3306' }] },
      ),
    ).toThrow('port ranges 3000-4000/tcp ("mysql/0") and 3306/tcp ("wordpress/0") conflict');
  });
});
