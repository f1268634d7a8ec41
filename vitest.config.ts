import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Two files at a time, where vitest's default on a 2-core host is one (cores - 1): a file
    // mostly waits on its DynamoDB Local, agent processes and timers, and one file at a time
    // used 0.8 of the host's two cores (a full run, 20 CPU-minutes in 24.7). VITEST_MAX_WORKERS
    // overrides it.
    maxWorkers: 2,
    // CI reads a closing `N passed, N failed` line, printed by .ci/run from this JSON report.
    reporters: process.env.DROVER_TEST_REPORT ? ['default', ['json', { outputFile: process.env.DROVER_TEST_REPORT }]] : ['default'],
    hookTimeout: 60_000,
    // The functions log through Powertools; in tests only what went wrong is worth reading.
    // The SDK's warning that releases from 2027 need Node 22 is known (README, "Node"): once is enough.
    env: { POWERTOOLS_LOG_LEVEL: 'WARN', POWERTOOLS_METRICS_DISABLED: 'false', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
