// The fake clock agent tests run on (test/support/fake-clock.ts): time moves only when told, and
// timers fire in order, each at its own time, cancelled ones never.
import { describe, expect, it } from 'vitest';
import { Signal } from '../../../agent/signal.js';
import { FakeClock } from '../../support/fake-clock.js';

describe('FakeClock', () => {
  it('fires due timers in time order, at their own time, and never a cancelled one', async () => {
    const clock = new FakeClock(1_000);
    const fired: string[] = [];
    clock.after(300, () => fired.push(`b@${clock.now()}`));
    clock.after(100, () => fired.push(`a@${clock.now()}`));
    const cancelled = clock.after(200, () => fired.push('cancelled'));
    cancelled.cancel();
    await clock.advance(250);
    expect(fired).toEqual(['a@1100']);
    expect(clock.now()).toBe(1_250);
    await clock.advance(50);
    expect(fired).toEqual(['a@1100', 'b@1300']);
    expect(clock.pending).toBe(0);
  });

  it('runs what a fired timer awaited, so a loop of sleeps advances step by step', async () => {
    const clock = new FakeClock(0);
    const woke: number[] = [];
    void (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(1_000);
        woke.push(clock.now());
      }
    })();
    await clock.advance(2_500);
    expect(woke).toEqual([1_000, 2_000]);
    await clock.advance(500);
    expect(woke).toEqual([1_000, 2_000, 3_000]);
  });

  it("times a Signal's wait: a notify wakes it early, else its timeout on the clock does", async () => {
    const clock = new FakeClock(0);
    const signal = new Signal(clock);
    let woken = false;
    void signal.wait(5_000).then(() => (woken = true));
    await clock.advance(4_999);
    expect(woken).toBe(false);
    await clock.advance(1);
    expect(woken).toBe(true);
    let early = false;
    void signal.wait(5_000).then(() => (early = true));
    signal.notify();
    await clock.advance(0);
    expect(early).toBe(true);
    expect(clock.pending).toBe(0);
  });
});
