// The firewall's decision (shared/domain/firewall.ts): which application groups exist, what they
// let in, and which instances carry them, from state alone.
import { describe, expect, it } from 'vitest';
import { desiredFirewall, mergePortRanges, type FirewallState } from '#shared/domain/firewall.js';
import { parsePortRange } from '#shared/domain/port-ranges.js';

type UnitRow = FirewallState['units'][number];

const unit = (name: string, machine: string | undefined, openPorts: string[], fields: Partial<UnitRow> = {}): UnitRow => ({
  name,
  application: name.split('/')[0]!,
  life: 'alive',
  ...(machine !== undefined ? { machine } : {}),
  openPorts,
  ...fields,
});

const machines = [
  { id: '0', instanceId: 'i-0' },
  { id: '1', instanceId: 'i-1' },
  { id: '2', instanceId: 'i-2' },
  { id: '3' }, // not started yet
];

const state = (fields: Partial<FirewallState>): FirewallState => ({
  applications: [],
  units: [],
  machines,
  existingGroups: [],
  ...fields,
});

const ranges = (...args: string[]) => args.map(parsePortRange);

describe('desiredFirewall', () => {
  it("opens an exposed application's ports, from its units on every instance that hosts one", () => {
    const desired = desiredFirewall(
      state({
        applications: [{ name: 'web', exposed: true }],
        units: [unit('web/0', '0', ['80/tcp']), unit('web/1', '1', ['443/tcp'])],
      }),
    );
    expect(desired).toEqual({
      groups: [{ application: 'web', ingress: ranges('80/tcp', '443/tcp') }],
      instances: [
        { instanceId: 'i-0', applications: ['web'] },
        { instanceId: 'i-1', applications: ['web'] },
      ],
    });
  });

  it('needs no group for an unexposed application that never had one, whatever ports its units opened', () => {
    const desired = desiredFirewall(state({ applications: [{ name: 'db', exposed: false }], units: [unit('db/0', '0', ['5432/tcp'])] }));
    expect(desired).toEqual({ groups: [], instances: [] });
  });

  it('needs no group for an exposed application with no port open', () => {
    const desired = desiredFirewall(state({ applications: [{ name: 'web', exposed: true }], units: [unit('web/0', '0', [])] }));
    expect(desired).toEqual({ groups: [], instances: [] });
  });

  it('keeps the group of an unexposed application, with no ingress, while the application exists', () => {
    const desired = desiredFirewall(
      state({
        applications: [{ name: 'web', exposed: false }],
        units: [unit('web/0', '0', ['80/tcp'])],
        existingGroups: ['web'],
      }),
    );
    expect(desired.groups).toEqual([{ application: 'web', ingress: [] }]);
    expect(desired.instances).toEqual([{ instanceId: 'i-0', applications: ['web'] }]);
  });

  it('leaves out the group of an application that is gone, so it is detached and deleted', () => {
    const desired = desiredFirewall(
      state({ applications: [{ name: 'web', exposed: true }], units: [unit('web/0', '0', ['80'])], existingGroups: ['web', 'gone'] }),
    );
    expect(desired.groups.map((g) => g.application)).toEqual(['web']);
  });

  it('merges overlapping and adjacent ranges of several units, per protocol', () => {
    const desired = desiredFirewall(
      state({
        applications: [{ name: 'web', exposed: true }],
        units: [
          unit('web/0', '0', ['80-90/tcp', '53/udp', 'icmp']),
          unit('web/1', '1', ['85/tcp', '91-95/tcp', '53/tcp', 'icmp']),
          unit('web/2', '2', ['8000-8080/tcp', '8080-9000/tcp', '54/udp']),
        ],
      }),
    );
    expect(desired.groups[0]!.ingress).toEqual(ranges('53/tcp', '80-95/tcp', '8000-9000/tcp', '53-54/udp', 'icmp'));
  });

  it("closes a removed unit's ports and detaches the group from its instance", () => {
    const before = state({
      applications: [{ name: 'web', exposed: true }],
      units: [unit('web/0', '0', ['80/tcp']), unit('web/1', '1', ['8080/tcp'])],
    });
    const after = { ...before, units: [before.units[0]!], existingGroups: ['web'] };
    expect(desiredFirewall(after)).toEqual({
      groups: [{ application: 'web', ingress: ranges('80/tcp') }],
      instances: [{ instanceId: 'i-0', applications: ['web'] }],
    });
  });

  it('ignores the ports and the instance of a Dead unit, but not of a Dying one', () => {
    const desired = desiredFirewall(
      state({
        applications: [{ name: 'web', exposed: true }],
        units: [unit('web/0', '0', ['80/tcp'], { life: 'dying' }), unit('web/1', '1', ['8080/tcp'], { life: 'dead' })],
      }),
    );
    expect(desired).toEqual({
      groups: [{ application: 'web', ingress: ranges('80/tcp') }],
      instances: [{ instanceId: 'i-0', applications: ['web'] }],
    });
  });

  it("puts a subordinate's group on its principal's instance, and several groups on a shared instance", () => {
    const desired = desiredFirewall(
      state({
        applications: [
          { name: 'web', exposed: true },
          { name: 'metrics', exposed: true },
        ],
        units: [unit('web/0', '2', ['80/tcp']), unit('metrics/0', undefined, ['9100/tcp'], { principal: 'web/0' })],
      }),
    );
    expect(desired).toEqual({
      groups: [
        { application: 'metrics', ingress: ranges('9100/tcp') },
        { application: 'web', ingress: ranges('80/tcp') },
      ],
      instances: [{ instanceId: 'i-2', applications: ['metrics', 'web'] }],
    });
  });

  it('attaches nothing to a machine with no instance yet, or to a unit not placed', () => {
    const desired = desiredFirewall(
      state({
        applications: [{ name: 'web', exposed: true }],
        units: [unit('web/0', '3', ['80/tcp']), unit('web/1', undefined, ['81/tcp'])],
      }),
    );
    expect(desired).toEqual({ groups: [{ application: 'web', ingress: ranges('80-81/tcp') }], instances: [] });
  });
});

describe('mergePortRanges', () => {
  it('keeps disjoint ranges apart and in order', () => {
    expect(mergePortRanges(ranges('443/tcp', '22/tcp', '80/udp'))).toEqual(ranges('22/tcp', '443/tcp', '80/udp'));
  });

  it('does not change its input', () => {
    const input = ranges('80-90/tcp', '85-100/tcp');
    mergePortRanges(input);
    expect(input).toEqual(ranges('80-90/tcp', '85-100/tcp'));
  });
});
