// Packs an ops charm source directory (charmcraft.yaml, src/, uv.lock) into a .charm as
// `charmcraft pack` does: the generated files of charm-layout.ts, src/, and venv/ holding ops at
// the version the charm's uv.lock pins (exported from canonical/operator's git tags) and ops's
// pure-Python dependencies copied from the Python that will run the charm (Debian's
// python3-yaml and python3-websocket), zipped with `zip`.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { charmLayout, lockedOpsVersion, opsRuntimeImports } from './charm-layout.js';

export interface PackOptions {
  /** The charm's source: charmcraft.yaml, src/, uv.lock. */
  charmDir: string;
  /** canonical/operator: a git directory with release tags, or a source tree holding ops/. */
  opsSource: string;
  /** The Python the charm's dispatch runs, whose site-packages give ops's dependencies. */
  python: string;
  /** Where the .charm goes. */
  outDir: string;
  startedAt?: Date;
}

/** Packs the charm; returns the .charm's path. */
export function packCharm(options: PackOptions): string {
  const layout = charmLayout(readFileSync(join(options.charmDir, 'charmcraft.yaml'), 'utf8'), {
    python: options.python,
    startedAt: options.startedAt ?? new Date(),
  });
  const prime = mkdtempSync(join(tmpdir(), `prime-${basename(options.charmDir)}-`));
  try {
    for (const [path, text] of Object.entries(layout.files)) writeFileSync(join(prime, path), text);
    chmodSync(join(prime, 'dispatch'), 0o755);
    cpSync(join(options.charmDir, 'src'), join(prime, 'src'), { recursive: true });
    if (existsSync(join(options.charmDir, 'lib'))) cpSync(join(options.charmDir, 'lib'), join(prime, 'lib'), { recursive: true });
    const venv = join(prime, 'venv');
    mkdirSync(venv);
    const pyproject = exportOps(options.opsSource, lockedOpsVersion(readFileSync(join(options.charmDir, 'uv.lock'), 'utf8')), venv);
    for (const module of opsRuntimeImports(pyproject)) copyPurePackage(options.python, module, venv);
    const charm = join(options.outDir, layout.fileName);
    rmSync(charm, { force: true });
    // -X: no extra (uid/gid, times) fields, as Python's zipfile writes; modes are kept, so dispatch stays executable.
    execFileSync('zip', ['-q', '-r', '-X', charm, '.'], { cwd: prime });
    return charm;
  } finally {
    rmSync(prime, { recursive: true, force: true });
  }
}

/** Puts ops `version` into `venv/ops`; returns that release's pyproject.toml (its dependencies). */
export function exportOps(opsSource: string, version: string, venv: string): string {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', opsSource, ...args], { maxBuffer: 64 * 1024 * 1024, stdio: ['pipe', 'pipe', 'ignore'] });
  if (!isGitDirectory(opsSource)) {
    // A plain source tree: whatever release it holds.
    if (!existsSync(join(opsSource, 'ops', '__init__.py')))
      throw new Error(`${opsSource} is neither a git directory nor a source tree holding ops/`);
    cpSync(join(opsSource, 'ops'), join(venv, 'ops'), { recursive: true });
    return readFileSync(join(opsSource, 'pyproject.toml'), 'utf8');
  }
  // A git directory (a checkout's work tree may be at any commit): the release's tag, as charmcraft would install that release from PyPI.
  try {
    git('rev-parse', '--verify', '--quiet', `refs/tags/${version}`);
  } catch {
    throw new Error(`${opsSource} has no tag ${version}, the ops release the charm's uv.lock pins`);
  }
  execFileSync('tar', ['-x', '-C', venv], { input: git('archive', version, 'ops') });
  return git('show', `${version}:pyproject.toml`).toString('utf8');
}

function isGitDirectory(dir: string): boolean {
  try {
    execFileSync('git', ['-C', dir, 'rev-parse', '--git-dir'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Copies `module` as `python` imports it, without compiled extensions, caches or tests: the pure-Python package. */
function copyPurePackage(python: string, module: string, venv: string): void {
  let dir: string;
  try {
    dir = execFileSync(python, ['-c', `import os, ${module}; print(os.path.dirname(${module}.__file__))`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      `${python} cannot import ${module}, which ops needs; install it (Debian: ${DEBIAN_PACKAGES[module] ?? `python3-${module}`})`,
    );
  }
  cpSync(dir, join(venv, module), {
    recursive: true,
    filter: (source) => !/(^|\/)(__pycache__|tests)$|\.so$/.test(source),
  });
}

/** The Debian package that gives `python3` each module the charms or the tests import. */
export const DEBIAN_PACKAGES: Record<string, string> = {
  yaml: 'python3-yaml',
  websocket: 'python3-websocket',
  pytest: 'python3-pytest',
  pytest_timeout: 'python3-pytest-timeout',
  cryptography: 'python3-cryptography',
};
