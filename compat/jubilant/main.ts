// `npm run compat:jubilant -- <jubilant source> --ops <canonical/operator>`: jubilant's own
// integration suite against a fresh local drover controller. It copies jubilant's source to a
// work directory, packs the suite's charms there as `charmcraft pack` would (pack-charm.ts), starts
// a controller with `juju` on PATH running drover (controller.ts) whose models all take the
// stand-in Charmhub (stand-in-store.ts) as their charmhub-url, runs the tests that need neither
// the real Charmhub nor Kubernetes (selection.ts) under Debian's pytest with a per-test timeout, and
// prints a table (report.ts). The controller and the work directory go whatever happens, Ctrl-C
// included (--keep leaves them). Not part of `npm test`: it needs jubilant, ops and Python.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCompatArguments, USAGE, UsageError, type CompatOptions } from './arguments.js';
import { startController, type RunController } from './controller.js';
import { startStandInStore } from './stand-in-store.js';
import type { CharmhubServer } from '../../test/support/charmhub-server.js';
import { packCharm } from './pack-charm.js';
import { ensurePythonPackages } from './python-env.js';
import { markdownTable, parseReports, rows, summary } from './report.js';
import { NOT_RUN, whyNotRun } from './selection.js';
import { errorMessage } from '#shared/domain/errors.js';

const PLUGIN_DIR = fileURLToPath(new URL('.', import.meta.url));
const CHARMS = ['testdb', 'testapp'];
const log = (line: string) => console.error(`compat:jubilant: ${line}`);

function copyJubilant(source: string, workDir: string): string {
  const copy = join(workDir, 'jubilant');
  for (const part of ['jubilant', 'tests', 'pyproject.toml']) cpSync(join(source, part), join(copy, part), { recursive: true });
  return copy;
}

/** The suite's test ids, as pytest collects them (jubilant's conftest and helpers imported). */
function collect(options: CompatOptions, cwd: string): string[] {
  const run = spawnSync(options.python, ['-m', 'pytest', 'tests/integration', '--collect-only', '-q', '-p', 'no:cacheprovider'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  const ids = run.stdout.split('\n').filter((line) => line.startsWith('tests/integration/') && line.includes('::'));
  if (run.status !== 0 || !ids.length) throw new Error(`pytest could not collect jubilant's tests:\n${run.stdout}${run.stderr}`);
  return ids;
}

let interrupted = false;
let pytestChild: ReturnType<typeof spawn> | undefined;

function runPytest(options: CompatOptions, cwd: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  const args = [
    '-m',
    'pytest',
    'tests/integration',
    '-v',
    '-p',
    'no:cacheprovider',
    '-p',
    'drover_report',
    `--timeout=${options.timeoutSeconds}`,
  ];
  if (options.keyword) args.push('-k', options.keyword);
  pytestChild = spawn(options.python, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((done) => pytestChild!.once('exit', (code) => done(code)));
}

async function run(options: CompatOptions): Promise<number> {
  ensurePythonPackages(options.python, log);
  const workDir = mkdtempSync(join(tmpdir(), 'drover-jubilant-'));
  let controller: RunController | undefined;
  let store: CharmhubServer | undefined;
  try {
    const jubilant = copyJubilant(options.jubilantSource, workDir);
    for (const charm of CHARMS) {
      const dir = join(jubilant, 'tests', 'integration', 'charms', charm);
      log(`packed ${packCharm({ charmDir: dir, opsSource: options.opsSource, python: options.python, outDir: dir })}`);
    }
    const collected = collect(options, jubilant);
    if (interrupted) return 130;
    store = await startStandInStore();
    log(`stand-in Charmhub at ${store.url} (snappass-test, ubuntu: compat/jubilant/stand-ins)`);
    controller = startController(workDir, log, { 'charmhub-url': store.url });
    const reportFile = join(workDir, 'report.jsonl');
    writeFileSync(reportFile, '');
    const env = {
      ...controller.env,
      PYTHONPATH: [jubilant, PLUGIN_DIR, process.env.PYTHONPATH].filter(Boolean).join(':'),
      PYTHONDONTWRITEBYTECODE: '1',
      DROVER_REPORT: reportFile,
      // drover_report.py deselects them by exact id (pytest's --deselect matches prefixes).
      DROVER_NOT_RUN: JSON.stringify([...NOT_RUN.keys()]),
    };
    const code = await runPytest(options, jubilant, env);
    const reports = parseReports(readFileSync(reportFile, 'utf8'));
    // With -k, the rows are the tests it picked.
    const ran = options.keyword ? collected.filter((id) => reports.some((r) => r.nodeid === id)) : collected;
    const table = rows(ran, reports, whyNotRun);
    console.log(`\n${markdownTable(table)}\n\n${summary(table)}`);
    if (options.detailsFile) writeFileSync(options.detailsFile, details(reports));
    if (interrupted) return 130;
    return code === 0 ? 0 : 1;
  } finally {
    try {
      controller?.stop();
    } finally {
      await store?.close();
      if (options.keep) log(`kept ${workDir}`);
      else rmSync(workDir, { recursive: true, force: true });
    }
  }
}

/** Every failure in full, for reading afterwards. */
function details(reports: ReturnType<typeof parseReports>): string {
  return reports
    .filter((r) => r.outcome === 'failed')
    .map((r) => `## ${r.nodeid} (${r.when})\n\n\`\`\`\n${r.detail ?? r.message}\n\`\`\`\n`)
    .join('\n');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // Cleanup runs once pytest has gone: the controller must outlive the tests that use it.
    interrupted = true;
    log(`${signal}: stopping the tests, then the controller`);
    pytestChild?.kill('SIGINT');
  });
}

let options: CompatOptions;
try {
  options = parseCompatArguments(process.argv.slice(2), process.env);
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  console.error(`ERROR ${e.message}\n\n${USAGE}`);
  process.exit(2);
}
run(options).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`ERROR ${errorMessage(e)}`);
    process.exit(1);
  },
);
