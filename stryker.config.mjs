// Mutation testing (`npm run test:mutation`, docs/testing.md): Stryker changes the code one small
// way at a time (a `<` into `<=`, a condition into `true`, a string into "") and runs the tests
// that cover the change; a mutant no test notices marks a gap in the tests. Not part of `npm test`
// or CI: it takes tens of minutes.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    // The lifecycle plans: what each state change reads, decides and writes.
    'shared/domain/plans/**/*.ts',
    // Agent authorization: what an agent's credential lets it touch.
    'functions/api/agent-authorization.ts',
    // The hook tools' argument handling: flags, --relation, --format, and each tool's own
    // arguments. Left out: the registry (index.ts), the interface (command.ts) and the tools
    // drover refuses with one fixed message (unsupported.ts).
    'agent/hook-tools/flags.ts',
    'agent/hook-tools/relation-flag.ts',
    'agent/hook-tools/format.ts',
    'agent/hook-tools/commands/**/*.ts',
    '!agent/hook-tools/commands/index.ts',
    '!agent/hook-tools/commands/command.ts',
    '!agent/hook-tools/commands/unsupported.ts',
  ],
  coverageAnalysis: 'perTest',
  // The host has two cores, shared with the rest of the team's work.
  concurrency: 1,
  timeoutMS: 60_000,
  reporters: ['clear-text', 'json', 'progress-append-only'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  // The score measured in docs/testing.md, rounded down: a fall fails the run.
  thresholds: { high: 80, low: 60, break: null },
};
