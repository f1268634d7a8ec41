// The chaos soak's settings, in one place (docs/reliability.md, "Chaos soak"). `npm run test:soak`
// sets DROVER_SOAK=1: the model property, the crash matrix and the fuzzers then run at full size,
// and the first two for a bounded time, DROVER_SOAK_MINUTES (default 75: what ten thousand
// sequences take on two cores): no sequence or crash point starts after it, and each prints how
// far it got.

export const SOAK = process.env.DROVER_SOAK === '1';

/** The soak's time bound, from the moment a test starts. */
export const SOAK_MS = Number(process.env.DROVER_SOAK_MINUTES ?? 75) * 60_000;

/** The model sequences a soak aims at: it stops at the bound if it has not run them all by then. */
export const SOAK_SEQUENCES = Number(process.env.DROVER_SOAK_RUNS ?? 10_000);

/** A test's timeout in a soak: the bound, and time for what had started before it to end. */
export const soakTimeout = (tailMs: number) => SOAK_MS + tailMs;
