// The CLI fuzzer: hostile arguments to drover's commands, run in-process (cli/main.ts `run`)
// against a controller on DynamoDB Local (test/support/cli.ts). Properties: every run ends
// within RUN_BOUND_MS with exit status 0, 1 (failure) or 2 (usage), a failure says why (no stack
// trace), and no input makes the API answer 5xx ("internal error"). Commands
// that run until interrupted by design are given their bounded form: debug-log --no-tail, run
// and exec --background; status --watch, bootstrap, register, switch, unregister and
// kill-controller are left out (they start processes or change the client's own config), and so
// are ssh and scp (they would run hostile words as shell commands, or copy files, on this host).
// One input in eight is `drover deploy <bundle>` (with `--dry-run` or not) of a hostile bundle
// file (test/support/fuzz-bundles.ts).
// DROVER_FUZZ_RUNS sets the number of inputs (DROVER_SOAK=1: 10,000); DROVER_FUZZ_SEED replays.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { charmDir, startCliController, type CliHarness } from '../support/cli.js';
import { hostileStrings } from '../support/fuzz-api.js';
import { hostileBundles } from '../support/fuzz-bundles.js';
import { fuzzRuns, fuzzSeed, withinMs } from '../support/fuzz-run.js';

const RUNS = fuzzRuns(150);
const SEED = fuzzSeed();
const RUN_BOUND_MS = 20_000;

const VERBS = [
  'deploy',
  'add-unit',
  'add-machine',
  'remove-unit',
  'remove-application',
  'remove-machine',
  'relate',
  'remove-relation',
  'set-constraints',
  'get-constraints',
  'set-model-constraints',
  'get-model-constraints',
  'model-config',
  'config',
  'resolved',
  'retry-provisioning',
  'status',
  'show-machine',
  'show-unit',
  'show-application',
  'stuck',
  'debug-log',
  'show-status-log',
  'actions',
  'run',
  'exec',
  'show-task',
  'cancel-task',
  'operations',
  'show-operation',
  'upgrade-charm',
  'offer',
  'offers',
  'show-offer',
  'find-offers',
  'remove-offer',
  'consume',
  'remove-saas',
  // The model's keys; not ssh and scp, which would run hostile words as shell commands.
  'add-ssh-key',
  'ssh-keys',
  'remove-ssh-key',
  'import-ssh-key',
  'storage',
  'show-storage',
  'storage-pools',
  'add-storage',
  'detach-storage',
  'remove-storage',
  'controllers',
  'help',
  'no-such-command',
];
const FLAGS = [
  '-n',
  '--num-units',
  '--to',
  '--constraints',
  '--series',
  '--base',
  '--config',
  '--force',
  '--no-retry',
  '--all',
  '--params',
  '--string-args',
  '--wait',
  '--limit',
  '--status',
  '--units',
  '--reset',
  '--file',
  '--service',
  '--relations',
  '--color',
  '--no-color',
  '--format',
  '-o',
  '--replay',
  '-i',
  '-x',
  '--lines',
  '--utc',
  '--path',
  '--force-units',
  '--storage',
  '--destroy-storage',
  '--no-destroy',
  '--filesystem',
  '--volume',
  '-m',
  '--model',
  '--schema',
  '-u',
  '-a',
  '--timeout',
  '--',
  '-',
  '--help',
  '--unknown-flag',
  '-nx',
];
const VALUES = [
  'wordpress',
  'mysql',
  'wordpress/0',
  'mysql/0',
  '0',
  '1',
  '-1',
  'mem=1G',
  'json',
  'yaml',
  'tabular',
  'ubuntu@22.04',
  'jammy',
  '/etc/passwd',
  '/dev/null',
  '/nonexistent',
  '.',
  '..',
  '@/etc/hostname',
  'key=@/nonexistent',
  'key=value',
  'a.b.c=1',
  'test:default',
  'test:other',
  'nosuch:default',
  '1e999',
  '10000000000',
  'mysql/*',
  '*',
  charmDir('database'),
  charmDir('client'),
];

const argv = fc
  .record({
    verb: fc.constantFrom(...VERBS),
    args: fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...VALUES) },
        { weight: 1, arbitrary: fc.constantFrom(...FLAGS) },
        { weight: 2, arbitrary: hostileStrings() },
      ),
      { maxLength: 5 },
    ),
  })
  .map(({ verb, args }) => {
    // Bounded forms of the commands that wait or follow by design.
    if (verb === 'debug-log') return [verb, ...args, '--no-tail'];
    if (verb === 'run' || verb === 'exec') return [verb, ...args, '--background'];
    return [verb, ...args.filter((a) => a !== '--watch')];
  });

/** Where each hostile bundle is written before it is deployed. */
const bundleDir = mkdtempSync(join(tmpdir(), 'drover-fuzz-bundles-'));
const BUNDLE = join(bundleDir, 'bundle.yaml');

/** `drover deploy <bundle>` of a hostile bundle, written to BUNDLE as the input is run. */
const bundleDeploys = fc
  .record({ text: hostileBundles({ database: charmDir('database'), client: charmDir('client') }), dryRun: fc.boolean() })
  .map(({ text, dryRun }) => ({ bundle: text, args: ['deploy', BUNDLE, ...(dryRun ? ['--dry-run'] : [])] }));

const inputs = fc.oneof(
  { weight: 7, arbitrary: argv.map((args) => ({ args, bundle: undefined as string | undefined })) },
  { weight: 1, arbitrary: bundleDeploys },
);

let ctl: CliHarness;
beforeAll(async () => {
  ctl = await startCliController();
  for (const args of [
    ['deploy', charmDir('database')],
    ['deploy', charmDir('client')],
    ['relate', 'client', 'database'],
  ]) {
    const res = await ctl.run(args);
    if (res.code !== 0) throw new Error(`drover ${args.join(' ')}: ${res.stderr}`);
  }
});
afterAll(async () => {
  await ctl.close();
  rmSync(bundleDir, { recursive: true, force: true });
});

describe('the CLI, fuzzed', () => {
  it('ends every run within a bound with status 0, 1 or 2, says why it failed with no stack trace, and never meets a 5xx', async () => {
    const counts = { inputs: 0, fiveHundreds: 0, hangs: 0, crashes: 0, failed: 0, usage: 0 };
    const property = fc.asyncProperty(inputs, async ({ args, bundle }) => {
      counts.inputs++;
      if (bundle !== undefined) writeFileSync(BUNDLE, bundle);
      const what =
        `drover ${args.map((a) => JSON.stringify(a.slice(0, 80))).join(' ')}` +
        (bundle !== undefined ? `\nbundle:\n${bundle.slice(0, 600)}` : '');
      const res = await withinMs(RUN_BOUND_MS, ctl.run(args)).catch((e: Error) => e);
      if (res instanceof Error) {
        if (res.message === 'timeout') counts.hangs++;
        else counts.crashes++;
        throw new Error(`${what}\n→ ${res.message === 'timeout' ? 'no end (hang)' : `threw ${res.stack}`}`);
      }
      if (res.code === 1) counts.failed++;
      if (res.code === 2) counts.usage++;
      if (/internal error/.test(res.stderr)) counts.fiveHundreds++;
      expect(res.stderr, what).not.toMatch(/internal error/);
      expect([0, 1, 2], `${what}\n${res.stderr}`).toContain(res.code);
      expect(res.stderr, what).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      // A failure says why (an ERROR message, or Juju's per-entity lines such as `removing
      // application x failed: …`); a usage error may instead show the usage (`help <unknown>`).
      if (res.code === 1) expect(res.stderr.trim(), what).not.toBe('');
      if (res.code === 2) expect(res.stderr, what).toMatch(/^(ERROR |Usage: )/);
    });
    try {
      await fc.assert(property, { numRuns: RUNS, seed: SEED });
    } finally {
      console.info(
        `fuzz cli (seed ${SEED}): ${counts.inputs} inputs, ${counts.fiveHundreds} 5xx, ${counts.crashes} crashes, ${counts.hangs} hangs ` +
          `(${counts.failed} failed, ${counts.usage} usage errors)`,
      );
    }
  }, 900_000);
});
