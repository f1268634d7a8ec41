// The Python side of the harness comes from Debian only (no PyPI): pytest, pytest-timeout and
// PyYAML for jubilant and its tests, cryptography for the tests' helpers, websocket-client for
// ops. Missing packages are installed with apt-get when this runs as root, else named.
import { spawnSync } from 'node:child_process';
import { DEBIAN_PACKAGES } from './pack-charm.js';

const MODULES = ['pytest', 'pytest_timeout', 'yaml', 'cryptography', 'websocket'] as const;

function missingModules(python: string): string[] {
  return MODULES.filter((m) => spawnSync(python, ['-c', `import ${m}`], { stdio: 'ignore' }).status !== 0);
}

export function ensurePythonPackages(python: string, log: (line: string) => void): void {
  if (spawnSync(python, ['--version'], { stdio: 'ignore' }).status !== 0)
    throw new Error(`no Python at ${python}; install python3 or give --python`);
  const missing = missingModules(python);
  if (!missing.length) return;
  const packages = missing.map((m) => DEBIAN_PACKAGES[m]!);
  if (process.getuid?.() !== 0)
    throw new Error(`${python} lacks ${missing.join(', ')}: run "sudo apt-get install -y ${packages.join(' ')}"`);
  log(`installing ${packages.join(' ')} with apt-get`);
  const apt = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (apt.status !== 0) throw new Error(`apt-get install ${packages.join(' ')} failed`);
  const still = missingModules(python);
  if (still.length) throw new Error(`${python} still cannot import ${still.join(', ')} after apt-get`);
}
