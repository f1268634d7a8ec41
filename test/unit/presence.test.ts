// Agent presence (as Juju 2.9's
// https://github.com/juju/juju/blob/2.9/apiserver/common/unitstatus.go shows it): computed when
// status is read, from when the machine's agent was last seen, never stored.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_AGENT_LOST_AFTER_SECONDS,
  isAgentSilent,
  presenceWriteIntervalMs,
  presentMachineStatus,
  presentUnitStatuses,
  type Presence,
} from '#shared/domain/presence.js';
import { buildStatus, type StatusSnapshot } from '#shared/domain/status.js';
import { app, machine, NOW, unit } from './plans/destruction-fixtures.js';

const LOST_AFTER_MS = 60_000;
const at = (ms: number) => new Date(Date.parse(NOW) + ms);
const presence = (lastSeen: Record<string, string>): Presence => ({ lastSeen, lostAfterMs: LOST_AFTER_MS });
const LOST = { current: 'lost', message: 'agent is not communicating with the server', since: NOW };

describe('isAgentSilent', () => {
  it('an agent seen within the threshold is present; one seen longer ago, or never, is silent', () => {
    const seen = presence({ '1': NOW });
    expect(isAgentSilent(seen, '1', at(LOST_AFTER_MS))).toBe(false);
    expect(isAgentSilent(seen, '1', at(LOST_AFTER_MS + 1))).toBe(true);
    expect(isAgentSilent(seen, '2', at(0))).toBe(true);
  });

  it('the API rewrites "last seen" well within the threshold, so a talking agent never looks silent', () => {
    expect(presenceWriteIntervalMs(DEFAULT_AGENT_LOST_AFTER_SECONDS * 1000)).toBe(135_000);
    expect(presenceWriteIntervalMs(LOST_AFTER_MS)).toBeLessThan(LOST_AFTER_MS / 2);
  });
});

describe('machines: "Machine → juju-status: down / agent is not communicating with the server; not while pending or stopped"', () => {
  it('a started machine whose agent is silent is down, keeping its since', () => {
    expect(presentMachineStatus(machine('1'), true)).toEqual({
      current: 'down',
      message: 'agent is not communicating with the server',
      since: NOW,
    });
  });

  it('a machine whose agent talks keeps its status', () => {
    expect(presentMachineStatus(machine('1'), false)).toEqual({ current: 'started', since: NOW });
  });

  it('not while pending or stopped, nor once Dead', () => {
    for (const current of ['pending', 'stopped'])
      expect(presentMachineStatus(machine('1', { agentStatus: { current, since: NOW } }), true).current).toBe(current);
    expect(presentMachineStatus(machine('1', { life: 'dead' }), true).current).toBe('started');
  });

  it('a machine in error whose agent is silent is down too', () => {
    expect(presentMachineStatus(machine('1', { agentStatus: { current: 'error', since: NOW } }), true).current).toBe('down');
  });
});

describe('units: "alive-but-silent unit → juju-status: lost, workload unknown / agent lost"', () => {
  it('an idle unit whose agent is silent is lost, its workload unknown with where to look', () => {
    expect(presentUnitStatuses(unit('mysql/0'), true)).toEqual({
      agent: LOST,
      workload: { current: 'unknown', message: "agent lost, see 'drover show-status-log mysql/0'", since: NOW },
    });
  });

  it('"workload error is preserved": a unit in error stays in error, its agent lost', () => {
    const failed = unit('mysql/0', { agentStatus: { current: 'error', message: 'hook failed: "install"', since: NOW } });
    expect(presentUnitStatuses(failed, true)).toEqual({
      agent: LOST,
      workload: { current: 'error', message: 'hook failed: "install"', since: NOW },
    });
  });

  it('a unit whose agent talks shows what it stored (an error as idle with workload error)', () => {
    expect(presentUnitStatuses(unit('mysql/0'), false)).toEqual({
      agent: { current: 'idle', since: NOW },
      workload: { current: 'active', since: NOW },
    });
    const failed = unit('mysql/0', { agentStatus: { current: 'error', message: 'hook failed: "start"', since: NOW } });
    expect(presentUnitStatuses(failed, false)).toEqual({
      agent: { current: 'idle', since: NOW },
      workload: { current: 'error', message: 'hook failed: "start"', since: NOW },
    });
  });

  it('"not applied while allocating"', () => {
    const allocating = unit('mysql/0', {
      agentStatus: { current: 'allocating', since: NOW },
      workloadStatus: { current: 'waiting', message: 'waiting for machine', since: NOW },
    });
    expect(presentUnitStatuses(allocating, true).agent.current).toBe('allocating');
  });

  it('"not applied while executing install"', () => {
    const installing = unit('mysql/0', {
      agentStatus: { current: 'executing', message: 'running install hook', since: NOW },
      workloadStatus: { current: 'maintenance', message: 'installing charm software', since: NOW },
    });
    expect(presentUnitStatuses(installing, true).agent).toEqual({ current: 'executing', message: 'running install hook', since: NOW });
  });

  it('"not applied before the workload is installed"', () => {
    for (const workloadStatus of [
      { current: 'maintenance', message: 'installing charm software', since: NOW },
      { current: 'waiting', message: 'agent initializing', since: NOW },
      { current: 'waiting', message: 'installing agent', since: NOW },
      { current: 'waiting', message: 'waiting for machine', since: NOW },
    ])
      expect(
        presentUnitStatuses(unit('mysql/0', { agentStatus: { current: 'idle', since: NOW }, workloadStatus }), true).agent.current,
      ).toBe('idle');
  });

  it('a unit executing a later hook when its agent fell silent is lost', () => {
    const running = unit('mysql/0', { agentStatus: { current: 'executing', message: 'running config-changed hook', since: NOW } });
    expect(presentUnitStatuses(running, true).agent.current).toBe('lost');
  });

  it('not once Dead', () => {
    expect(presentUnitStatuses(unit('mysql/0', { life: 'dead' }), true).agent.current).toBe('idle');
  });
});

describe('the status document', () => {
  const snapshot = (lastSeen: Record<string, string>): StatusSnapshot => ({
    model: { name: 'default', life: 'alive', constraints: {}, defaultSeries: 'jammy', constraintsVersion: 0 },
    applications: [app('mysql'), app('logging', { subordinate: true })],
    units: [
      unit('mysql/0', { machine: '1', subordinates: ['logging/0'] }),
      unit('logging/0', { machine: '1', principal: 'mysql/0' }),
      unit('mysql/1', { machine: '2', life: 'dying' }),
    ],
    machines: [machine('1'), machine('2'), machine('3', { agentStatus: { current: 'pending', since: NOW } })],
    relations: [],
    scopes: {},
    presence: presence(lastSeen),
    controller: 'test',
  });
  const units = (doc: ReturnType<typeof buildStatus>) =>
    (doc.applications.mysql as { units: Record<string, Record<string, unknown>> }).units;

  it('machines whose agent talks are started, silent ones down, pending ones pending', () => {
    const doc = buildStatus(snapshot({ '1': NOW }), at(1_000));
    expect(doc.machines['1']).toMatchObject({ 'juju-status': { current: 'started' } });
    expect(doc.machines['2']).toMatchObject({ 'juju-status': { current: 'down', message: 'agent is not communicating with the server' } });
    expect(doc.machines['3']).toMatchObject({ 'juju-status': { current: 'pending' } });
  });

  it('the units of a silent machine are lost, subordinates included; a Dying one keeps life: dying', () => {
    const doc = buildStatus(snapshot({ '1': NOW }), at(1_000));
    expect(units(doc)['mysql/0']).toMatchObject({ 'juju-status': { current: 'idle' }, 'workload-status': { current: 'active' } });
    expect(units(doc)['mysql/1']).toMatchObject({
      'juju-status': { current: 'lost', message: 'agent is not communicating with the server', life: 'dying' },
      'workload-status': { current: 'unknown', message: "agent lost, see 'drover show-status-log mysql/1'" },
    });

    const later = buildStatus(snapshot({ '1': NOW }), at(LOST_AFTER_MS + 1_000));
    expect(later.machines['1']).toMatchObject({ 'juju-status': { current: 'down' } });
    expect(units(later)['mysql/0']).toMatchObject({
      'juju-status': { current: 'lost' },
      subordinates: { 'logging/0': { 'juju-status': { current: 'lost' }, 'workload-status': { current: 'unknown' } } },
    });
  });
});
