// Waiting on something outside the test's control (a process, DynamoDB Local, an agent): probe
// until the value is right, or fail naming what never happened and the last value seen. Only
// for real processes and real servers; the test's own time is a fake clock (test/support/fake-clock.ts).
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 20_000,
  pollMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!ok(value)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last saw ${JSON.stringify(value, null, 1)}`);
    await pause(pollMs);
    value = await probe();
  }
  return value;
}
