// The chaos soak's settings, in one place (docs/reliability.md, "Chaos soak"). `npm run test:soak`
// sets DROVER_SOAK=1 and runs its parts one after another, each with the whole host: the model
// property towards 10,000 sequences, for at most DROVER_SOAK_MINUTES (default 75: ten thousand
// took 55 minutes on two idle cores); the crash matrix in a random order, for at most
// DROVER_SOAK_CRASH_MINUTES (default 20); then the fuzzers, 10,000 inputs each. No sequence or
// crash point starts after its part's bound, and each part prints how far it got.

export const SOAK = process.env.DROVER_SOAK === '1';

/** The model property's bound in a soak, from the moment its test starts. */
export const SOAK_MS = Number(process.env.DROVER_SOAK_MINUTES ?? 75) * 60_000;

/** The crash matrix's bound in a soak, from the end of its recording run. */
export const SOAK_CRASH_MS = Number(process.env.DROVER_SOAK_CRASH_MINUTES ?? 20) * 60_000;

/** The model sequences a soak aims at: it stops at the bound if it has not run them all by then. */
export const SOAK_SEQUENCES = Number(process.env.DROVER_SOAK_RUNS ?? 10_000);

/** A test's timeout in a soak: its bound, and time for what had started before it to end. */
export const soakTimeout = (boundMs: number, tailMs: number) => boundMs + tailMs;
