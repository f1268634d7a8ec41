// What `drover version` reports, in the form of Juju 3.6's `juju version`
// (https://github.com/juju/juju/blob/3.6/cmd/juju/commands/version.go): the Juju version drover
// stands in for (shared/domain/juju-version.ts), then the host's OS type and architecture, as
// Juju's binary version `3.6.12-ubuntu-amd64` that jubilant parses.
import { readFileSync } from 'node:fs';
import { JUJU_VERSION } from '#shared/domain/juju-version.js';

/** Juju's arch names for Node's. */
const ARCHES: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ppc64: 'ppc64el', s390x: 's390x', riscv64: 'riscv64' };

/** Juju's OS type names: `ubuntu`, else `genericlinux` on Linux; `osx`, `windows`. */
export function osTypeName(platform: NodeJS.Platform, osRelease: string | undefined): string {
  if (platform === 'darwin') return 'osx';
  if (platform === 'win32') return 'windows';
  if (platform !== 'linux') return 'unknown';
  return /^ID="?ubuntu"?$/m.test(osRelease ?? '') ? 'ubuntu' : 'genericlinux';
}

function readOsRelease(): string | undefined {
  try {
    return readFileSync('/etc/os-release', 'utf8');
  } catch {
    return undefined;
  }
}

export function binaryVersion(platform = process.platform, arch = process.arch, osRelease = readOsRelease()): string {
  return `${JUJU_VERSION}-${osTypeName(platform, osRelease)}-${ARCHES[arch] ?? arch}`;
}

/** `version --all`: Juju's versionDetail keys. drover is not an official Juju build, nor built by Go. */
export function versionDetail(version = binaryVersion()) {
  return { version, compiler: process.release.name, official: false };
}

/** `drover --version`, as `juju --version` prints it: the binary version alone. */
export const clientVersion = (): string => binaryVersion();
