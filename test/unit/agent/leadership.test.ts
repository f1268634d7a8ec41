// The leadership hook tools (is-leader, leader-get, leader-set) and the unit agent's lease
// tracker: is-leader answers from memory while the lease holds for Juju's 30 s more.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTool } from '../../../agent/hook-tools/commands/index.js';
import type { ToolContext } from '../../../agent/hook-tools/tool-context.js';
import { LeadershipTracker } from '../../../agent/uniter/leadership.js';
import { FakeClock } from '../../support/fake-clock.js';
import type { AgentApi } from '../../../agent/api-client.js';
import { LEASE_MARGIN_MS, LEASE_RENEW_BEFORE_MS, LEADERSHIP_GUARANTEE_MS } from '#shared/domain/leadership.js';

const LEASE_MS = 330_000;
const granted = { leader: true, holder: 'mysql/0', durationMs: LEASE_MS };

const cwd = mkdtempSync(join(tmpdir(), 'leader-tools-'));

function context(leader: boolean, settings: Record<string, string> = {}) {
  const written: Record<string, string>[] = [];
  const appStatuses: { status: string; message: string }[] = [];
  const ctx = {
    unitName: 'mysql/0',
    async setApplicationStatus(s: { status: string; message: string }) {
      if (!leader) throw new Error('this unit is not the leader');
      appStatuses.push(s);
    },
    async applicationStatus() {
      if (!leader) throw new Error('this unit is not the leader');
      return {
        application: { status: 'active', message: 'cluster of 2', data: {} },
        units: [
          { unit: 'mysql/0', status: 'active', message: 'primary', data: {} },
          { unit: 'mysql/1', status: 'waiting', message: '', data: {} },
        ],
      };
    },
    isLeader: async () => leader,
    leaderSettings: async () => ({ ...settings }),
    async setLeaderSettings(changes: Record<string, string>) {
      if (!leader) throw new Error('cannot write settings: not the leader');
      written.push(changes);
    },
  } as unknown as ToolContext;
  return { ctx, written, appStatuses };
}
const run = (ctx: ToolContext, tool: string, ...args: string[]) => runTool(ctx, tool, args, { cwd });

describe('is-leader', () => {
  it('prints True/False by default (smart) and true/false in JSON, as Juju', async () => {
    expect(await run(context(true).ctx, 'is-leader')).toEqual({ code: 0, stdout: 'True\n', stderr: '' });
    expect(await run(context(false).ctx, 'is-leader')).toEqual({ code: 0, stdout: 'False\n', stderr: '' });
    expect(await run(context(true).ctx, 'is-leader', '--format=json')).toEqual({ code: 0, stdout: 'true\n', stderr: '' });
    expect(await run(context(false).ctx, 'is-leader', '--format', 'json')).toEqual({ code: 0, stdout: 'false\n', stderr: '' });
  });

  it('refuses arguments with a usage error (exit 2)', async () => {
    expect(await run(context(true).ctx, 'is-leader', 'extra')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'ERROR unrecognized args: ["extra"]\n',
    });
  });
});

describe('leader-get', () => {
  const settings = { password: 's3cret', user: 'root' };
  it('prints every setting, or one, or nothing for a missing key', async () => {
    const { ctx } = context(false, settings);
    expect((await run(ctx, 'leader-get', '--format=json')).stdout).toBe('{"password":"s3cret","user":"root"}\n');
    expect((await run(ctx, 'leader-get', '-')).stdout).toBe('password: s3cret\nuser: root\n');
    expect((await run(ctx, 'leader-get', 'user')).stdout).toBe('root\n');
    expect(await run(ctx, 'leader-get', 'nope')).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('refuses a key with "=" and extra arguments (exit 2)', async () => {
    const { ctx } = context(false, settings);
    expect(await run(ctx, 'leader-get', 'a=b')).toEqual({ code: 2, stdout: '', stderr: 'ERROR invalid key "a=b"\n' });
    expect((await run(ctx, 'leader-get', 'a', 'b')).code).toBe(2);
  });
});

describe('leader-set', () => {
  it('buffers the leader’s key=value pairs', async () => {
    const { ctx, written } = context(true);
    expect(await run(ctx, 'leader-set', 'user=root', 'password=')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(written).toEqual([{ user: 'root', password: '' }]);
  });

  it('refuses a non-leader in Juju’s words, and bad arguments as usage errors', async () => {
    const { ctx, written } = context(false);
    expect(await run(ctx, 'leader-set', 'user=root')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ERROR cannot write leadership settings: cannot write settings: not the leader\n',
    });
    expect(await run(context(true).ctx, 'leader-set', 'user')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'ERROR expected "key=value", got "user"\n',
    });
    expect(written).toEqual([]);
  });
});

describe('status-set and status-get --application', () => {
  it('the leader sets its application’s status; the others are refused in Juju’s words', async () => {
    const { ctx, appStatuses } = context(true);
    expect(await run(ctx, 'status-set', '--application', 'active', 'cluster of 2')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(appStatuses).toEqual([{ status: 'active', message: 'cluster of 2' }]);
    expect(await run(context(false).ctx, 'status-set', '--application', 'active')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ERROR this unit is not the leader\n',
    });
  });

  it('status-get --application prints Juju’s shape: the status alone, or application-status with units', async () => {
    const { ctx } = context(true);
    expect((await run(ctx, 'status-get', '--application')).stdout).toBe('active\n');
    expect((await run(ctx, 'status-get', '--application', '--format=json')).stdout).toBe(
      '{"application-status":{"status":"active","units":{"mysql/0":{"status":"active"},"mysql/1":{"status":"waiting"}}}}\n',
    );
    expect((await run(ctx, 'status-get', '--application', '--include-data', '--format=json')).stdout).toBe(
      '{"application-status":{"message":"cluster of 2","status":"active","status-data":{},"units":{"mysql/0":{"message":"primary","status":"active","status-data":{}},"mysql/1":{"message":"","status":"waiting","status-data":{}}}}}\n',
    );
    expect(await run(context(false).ctx, 'status-get', '--application')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ERROR finding application status: this unit is not the leader\n',
    });
  });
});

describe('LeadershipTracker', () => {
  function tracker(answers: { leader: boolean; holder?: string; durationMs?: number }[]) {
    const clock = new FakeClock(1_000_000);
    const calls: string[] = [];
    const api = {
      async call(op: string) {
        calls.push(op);
        return answers.shift() ?? { leader: false };
      },
    } as unknown as AgentApi;
    const t = new LeadershipTracker(api, 'mysql/0', clock);
    return { t, calls, advance: (ms: number) => clock.advance(ms) };
  }

  it('answers True without a request while the lease holds for 30 s more, then extends it', async () => {
    const { t, calls, advance } = tracker([granted, granted]);
    expect(await t.isLeader(undefined)).toBe(true);
    expect(calls).toEqual(['claim-leadership']);
    await advance(LEASE_MS - LEASE_MARGIN_MS - LEADERSHIP_GUARANTEE_MS);
    expect(await t.isLeader(undefined)).toBe(true);
    expect(calls).toHaveLength(1);
    await advance(1);
    expect(await t.isLeader(undefined)).toBe(true);
    expect(calls).toHaveLength(2);
  });

  it('answers False without a request when the view shows another holder nobody may replace', async () => {
    const { t, calls } = tracker([]);
    expect(await t.isLeader({ application: 'mysql', holder: 'mysql/1', claimable: false, settingsVersion: 0 })).toBe(false);
    expect(calls).toEqual([]);
    expect(await t.isLeader({ application: 'mysql', holder: 'mysql/1', claimable: true, settingsVersion: 0 })).toBe(false);
    expect(calls).toEqual(['claim-leadership']);
  });

  it('forgets its lease when released, so is-leader asks again', async () => {
    const { t, calls } = tracker([granted]);
    await t.claim();
    await t.release();
    expect(await t.isLeader(undefined)).toBe(false);
    expect(calls).toEqual(['claim-leadership', 'release-leadership', 'claim-leadership']);
  });

  it('is due to renew 45 s before its own view of the lease runs out (about every 4.7 min), timed from before its claim', async () => {
    const { t, advance } = tracker([granted, granted]);
    // Not known to hold a lease (a restarted agent): renew at once.
    expect(t.renewalDueInMs()).toBe(0);
    await t.claim();
    const renewIn = LEASE_MS - LEASE_MARGIN_MS - LEASE_RENEW_BEFORE_MS;
    expect(renewIn).toBe(280_000);
    expect(t.renewalDueInMs()).toBe(renewIn);
    await advance(renewIn - 1);
    expect(t.renewalDueInMs()).toBe(1);
    // Still more than Juju's guarantee left: is-leader in between costs nothing.
    expect(renewIn + LEADERSHIP_GUARANTEE_MS).toBeLessThan(LEASE_MS - LEASE_MARGIN_MS);
    await advance(1);
    expect(t.renewalDueInMs()).toBe(0);
    await t.claim();
    expect(t.renewalDueInMs()).toBe(renewIn);
  });

  it('scales its margin and renewal to a short lease (tests), renewing halfway through the lease it counts on', async () => {
    const { t } = tracker([{ leader: true, holder: 'mysql/0', durationMs: 4_000 }]);
    await t.claim();
    // Held until 3.6 s (a tenth of margin), renewed at 1.6 s: never busy-renewing, never late.
    expect(t.renewalDueInMs()).toBe(1_600);
  });

  it('a renewal refused (another unit took the run-out lease) leaves nothing to answer True from', async () => {
    const { t, calls } = tracker([granted, { leader: false, holder: 'mysql/1' }]);
    await t.claim();
    expect(await t.claim()).toMatchObject({ leader: false, holder: 'mysql/1' });
    expect(await t.isLeader({ application: 'mysql', holder: 'mysql/1', claimable: false, settingsVersion: 0 })).toBe(false);
    expect(calls).toEqual(['claim-leadership', 'claim-leadership']);
  });
});
