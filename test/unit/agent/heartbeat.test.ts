// The presence heartbeat (agent/machine/heartbeat.ts) on a fake clock: sent only after a whole
// interval (jittered up to 20% more) without any other request, pushed back by every request,
// and retried sooner after a failure.
import { describe, expect, it } from 'vitest';
import { Heartbeat } from '../../../agent/machine/heartbeat.js';
import { FakeClock } from '../../support/fake-clock.js';

const INTERVAL_MS = 300_000;

function heartbeat(fail: () => boolean = () => false) {
  const clock = new FakeClock(0);
  const sent: number[] = [];
  const errors: unknown[] = [];
  const beat: Heartbeat = new Heartbeat({
    intervalMs: INTERVAL_MS,
    clock,
    send: async () => {
      sent.push(clock.now());
      if (fail()) throw new Error('API unreachable');
      beat.spoke(); // what withHeartbeat does for a request answered
    },
    onError: (e) => errors.push(e),
  });
  return { clock, sent, errors, beat };
}

describe('the heartbeat', () => {
  it('is sent after an interval of silence (up to 20% more), then every interval while silent', async () => {
    const { clock, sent, beat } = heartbeat();
    beat.start();
    await clock.advance(INTERVAL_MS - 1);
    expect(sent).toEqual([]);
    await clock.advance(INTERVAL_MS * 0.2 + 1);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeGreaterThanOrEqual(INTERVAL_MS);
    await clock.advance(5 * INTERVAL_MS * 1.2);
    expect(sent.length).toBeGreaterThanOrEqual(6);
    for (let i = 1; i < sent.length; i++) {
      expect(sent[i]! - sent[i - 1]!).toBeGreaterThanOrEqual(INTERVAL_MS);
      expect(sent[i]! - sent[i - 1]!).toBeLessThanOrEqual(INTERVAL_MS * 1.2);
    }
    beat.stop();
    expect(clock.pending).toBe(0);
  });

  it('is never sent while other requests keep the agent heard', async () => {
    const { clock, sent, beat } = heartbeat();
    beat.start();
    for (let i = 0; i < 10; i++) {
      await clock.advance(INTERVAL_MS / 2);
      beat.spoke();
    }
    expect(sent).toEqual([]);
    beat.stop();
  });

  it('after a failure, tries again after a fifth of the interval', async () => {
    let failing = true;
    const { clock, sent, errors, beat } = heartbeat(() => failing);
    beat.start();
    await clock.advance(INTERVAL_MS * 1.2);
    expect(sent).toHaveLength(1);
    expect(errors).toHaveLength(1);
    failing = false;
    await clock.advance(INTERVAL_MS * 0.2);
    expect(sent).toHaveLength(2);
    expect(sent[1]! - sent[0]!).toBe(INTERVAL_MS * 0.2);
    beat.stop();
  });
});
