// The soak's parts that `npm test` never runs (test/soak/*.soak.ts): each starts a local controller
// and drives it for many minutes. `npm run test:soak` runs them after the rest of the soak, with
// the suite's own settings otherwise.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// mergeConfig would add these files to the suite's `include`; only they run here.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/soak/**/*.soak.ts'],
    maxWorkers: 1,
  },
});
