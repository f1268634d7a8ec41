import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // CI reads a closing `N passed, N failed` line, printed by .ci/run from this JSON report.
    reporters: process.env.DROVER_TEST_REPORT ? ['default', ['json', { outputFile: process.env.DROVER_TEST_REPORT }]] : ['default'],
    hookTimeout: 60_000,
    // The functions log through Powertools; in tests only what went wrong is worth reading.
    // The SDK's warning that releases from 2027 need Node 22 is known (README, "Node"): once is enough.
    env: { POWERTOOLS_LOG_LEVEL: 'WARN', POWERTOOLS_METRICS_DISABLED: 'false', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
