// The jubilant harness's logic that needs no Python or jubilant (npm run compat:jubilant runs the
// rest by hand): its command line, the .charm layout it packs as charmcraft does, and its table.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseCompatArguments } from '../../compat/jubilant/arguments.js';
import { charmLayout, lockedOpsVersion, opsRuntimeImports } from '../../compat/jubilant/charm-layout.js';
import { packCharm } from '../../compat/jubilant/pack-charm.js';
import { markdownTable, rows, summary, type PhaseReport } from '../../compat/jubilant/report.js';
import { whyNotRun } from '../../compat/jubilant/selection.js';
import { readCharmZip, rootFile } from '#shared/charmstore/charm-zip.js';

const scratch = mkdtempSync(join(tmpdir(), 'compat-jubilant-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(root: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const CHARMCRAFT_YAML = `name: testdb
type: charm
summary: Test db
description: Test db charm
provides:
  db:
    interface: dbi
base: ubuntu@24.04
platforms:
  amd64:
parts:
  db-charm:
    source: .
    plugin: uv
actions:
  do-thing:
    description: Do a thing.
config:
  options:
    testoption:
      type: string
      default: ""
`;

const UV_LOCK = `version = 1

[[package]]
name = "ops"
version = "2.19.4"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "pyyaml"
version = "6.0.2"
`;

describe('compat:jubilant arguments', () => {
  const jubilant = tree(join(scratch, 'jubilant-src'), {
    'jubilant/__init__.py': '',
    'tests/integration/conftest.py': '',
    'pyproject.toml': '',
  });

  it('takes the jubilant source, ops from --ops or DROVER_OPS_SOURCE, and defaults the rest', () => {
    expect(parseCompatArguments([jubilant, '--ops', scratch], {})).toEqual({
      jubilantSource: jubilant,
      opsSource: scratch,
      timeoutSeconds: 300,
      keep: false,
      python: '/usr/bin/python3',
    });
    const all = parseCompatArguments([jubilant, '--timeout', '60', '-k', 'test_config', '--keep', '--details', 'out.md'], {
      DROVER_OPS_SOURCE: scratch,
    });
    expect(all).toMatchObject({ opsSource: scratch, timeoutSeconds: 60, keyword: 'test_config', keep: true });
    expect(all.detailsFile).toMatch(/\/out\.md$/);
  });

  it('refuses what it cannot run, saying why', () => {
    expect(() => parseCompatArguments([], {})).toThrow('no jubilant source given');
    expect(() => parseCompatArguments([scratch, '--ops', scratch], {})).toThrow(
      `${scratch} is not jubilant's source: it has no jubilant/__init__.py`,
    );
    expect(() => parseCompatArguments([jubilant], {})).toThrow('no ops source');
    expect(() => parseCompatArguments([jubilant, '--ops', join(scratch, 'nowhere')], {})).toThrow('no such directory');
    expect(() => parseCompatArguments([jubilant, '--ops', scratch, '--timeout', '0'], {})).toThrow('--timeout 0');
    expect(() => parseCompatArguments([jubilant, '--ops', scratch, '--bogus'], {})).toThrow(/bogus/);
  });
});

describe('packing a charm as charmcraft pack does', () => {
  it("splits charmcraft.yaml into metadata.yaml, actions.yaml and config.yaml, with the manifest's base and a dispatch", () => {
    const layout = charmLayout(CHARMCRAFT_YAML, { python: '/usr/bin/python3', startedAt: new Date('2026-01-02T03:04:05Z') });
    expect(layout.fileName).toBe('testdb_amd64.charm');
    expect(parse(layout.files['metadata.yaml']!)).toEqual({
      name: 'testdb',
      summary: 'Test db',
      description: 'Test db charm',
      provides: { db: { interface: 'dbi' } },
    });
    expect(parse(layout.files['actions.yaml']!)).toEqual({ 'do-thing': { description: 'Do a thing.' } });
    expect(parse(layout.files['config.yaml']!)).toEqual({ options: { testoption: { type: 'string', default: '' } } });
    expect(parse(layout.files['manifest.yaml']!)).toMatchObject({
      bases: [{ name: 'ubuntu', channel: '24.04', architectures: ['amd64'] }],
    });
    expect(layout.files.dispatch).toBe(
      '#!/bin/sh\n\nJUJU_DISPATCH_PATH="${JUJU_DISPATCH_PATH:-$0}" PYTHONPATH=lib:venv \\\n  exec /usr/bin/python3 ./src/charm.py\n',
    );
  });

  it('refuses charmcraft.yaml it cannot pack', () => {
    const opts = { python: 'python3', startedAt: new Date() };
    expect(() => charmLayout('type: bundle\nname: x\n', opts)).toThrow('type "bundle", not "charm"');
    expect(() => charmLayout('type: charm\nname: x\nbase: noble\nplatforms: {amd64: }\n', opts)).toThrow(
      'base "noble" is not <os>@<channel>',
    );
    expect(() => charmLayout('type: charm\nname: x\nbase: ubuntu@24.04\n', opts)).toThrow('0 platforms');
  });

  it("reads the ops version from uv.lock and ops's dependencies from its pyproject.toml", () => {
    expect(lockedOpsVersion(UV_LOCK)).toBe('2.19.4');
    expect(() => lockedOpsVersion('version = 1\n')).toThrow('uv.lock pins no ops version');
    expect(opsRuntimeImports('[project]\ndependencies = [\n    "PyYAML==6.*",\n    "websocket-client==1.*",\n]\n')).toEqual([
      'yaml',
      'websocket',
    ]);
    expect(() => opsRuntimeImports('dependencies = [\n    "numpy",\n]\n')).toThrow('ops needs numpy');
  });

  it('zips src/, venv/ with ops at the locked tag and its pure-Python dependencies, and an executable dispatch', async () => {
    const charmDir = tree(join(scratch, 'charm'), {
      'charmcraft.yaml': CHARMCRAFT_YAML,
      'uv.lock': UV_LOCK,
      'src/charm.py': 'import ops\n',
    });
    // canonical/operator as a git repository: the charm gets the tag its uv.lock names, not the tip.
    const ops = tree(join(scratch, 'operator'), {
      'ops/__init__.py': '# 2.19.4\n',
      'pyproject.toml': 'dependencies = [\n    "PyYAML==6.*",\n]\n',
    });
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', ops, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'release');
    git('tag', '2.19.4');
    writeFileSync(join(ops, 'ops', '__init__.py'), '# tip\n');
    git('commit', '-q', '-am', 'tip');
    // The Python that runs the charm: here a stand-in that says where its yaml lives.
    const site = tree(join(scratch, 'site', 'yaml'), {
      '__init__.py': 'pure\n',
      '_yaml.cpython-311.so': 'ext',
      '__pycache__/x.pyc': 'c',
      'tests/t.py': 't',
    });
    const python = join(scratch, 'python');
    writeFileSync(python, `#!/bin/sh\necho ${site}\n`);
    chmodSync(python, 0o755);

    const charm = packCharm({ charmDir, opsSource: ops, python, outDir: scratch });
    expect(charm).toBe(join(scratch, 'testdb_amd64.charm'));
    const entries = await readCharmZip(readFileSync(charm));
    const files = entries.filter((e) => e.type === 'file').map((e) => e.path);
    expect(files.sort()).toEqual(
      [
        'actions.yaml',
        'config.yaml',
        'dispatch',
        'manifest.yaml',
        'metadata.yaml',
        'src/charm.py',
        'venv/ops/__init__.py',
        'venv/yaml/__init__.py',
      ].sort(),
    );
    expect(entries.find((e) => e.path === 'dispatch')!.mode & 0o111).not.toBe(0);
    expect(rootFile(entries, 'venv/ops/__init__.py')).toBe('# 2.19.4\n');
  });

  it('refuses an ops repository without the release the charm pins', () => {
    const charmDir = tree(join(scratch, 'charm-new'), {
      'charmcraft.yaml': CHARMCRAFT_YAML,
      'uv.lock': UV_LOCK.replace('2.19.4', '9.9.9'),
      'src/charm.py': '',
    });
    expect(() => packCharm({ charmDir, opsSource: join(scratch, 'operator'), python: 'python3', outDir: scratch })).toThrow(
      "has no tag 9.9.9, the ops release the charm's uv.lock pins",
    );
  });
});

describe('the table of results', () => {
  const report = (nodeid: string, when: PhaseReport['when'], outcome: PhaseReport['outcome'], message = ''): PhaseReport => ({
    nodeid: `tests/integration/${nodeid}`,
    when,
    outcome,
    message,
    duration: 1,
  });

  it('gives each test one row: passed, failed, errors in setup or teardown, timeouts, and why a test was not run', () => {
    const collected = [
      'a.py::ok',
      'a.py::bad',
      'b.py::setup',
      'b.py::slow',
      'b.py::last',
      'test_deployment.py::test_deploy',
      'c.py::lost',
    ].map((t) => `tests/integration/${t}`);
    const table = rows(
      collected,
      [
        report('a.py::ok', 'call', 'passed'),
        report('a.py::bad', 'call', 'failed', "KeyError: 'controller-uuid'"),
        report('b.py::setup', 'setup', 'failed', 'jubilant._juju.CLIError: deploy | failed'),
        report('b.py::slow', 'call', 'failed', 'Failed: Timeout >300.0s'),
        report('b.py::last', 'call', 'passed'),
        report('b.py::last', 'teardown', 'failed', "ERROR unknown option '--destroy-storage'"),
      ],
      whyNotRun,
    );
    expect(table).toEqual([
      { test: 'a.py::ok', result: 'passed', failure: '' },
      { test: 'a.py::bad', result: 'failed', failure: "KeyError: 'controller-uuid'" },
      { test: 'b.py::setup', result: 'error in setup', failure: 'jubilant._juju.CLIError: deploy | failed' },
      { test: 'b.py::slow', result: 'failed (timeout)', failure: 'Failed: Timeout >300.0s' },
      { test: 'b.py::last', result: 'passed, error in teardown', failure: "teardown: ERROR unknown option '--destroy-storage'" },
      {
        test: 'test_deployment.py::test_deploy',
        result: 'not run',
        failure: "needs Kubernetes: reads the unit's `address`, which Juju's status gives Kubernetes units only",
      },
      { test: 'c.py::lost', result: 'no result', failure: 'pytest reported nothing (interrupted?)' },
    ]);
    const markdown = markdownTable(table).split('\n');
    expect(markdown[0]).toBe('| test | result | first line of the failure |');
    expect(markdown[4]).toBe('| b.py::setup | error in setup | jubilant._juju.CLIError: deploy \\| failed |');
    expect(summary(table)).toBe(
      '1 error in setup, 1 failed, 1 failed (timeout), 1 no result, 1 not run, 1 passed, 1 passed, error in teardown',
    );
  });
});
