// The client's version as `juju --version` prints it: the Juju version drover keeps the contract
// of, the OS and the architecture, `3.6.12-genericlinux-amd64` (Juju's version.Binary; see
// https://github.com/juju/juju/blob/3.6/core/version/version.go).
import { JUJU_VERSION } from '#shared/domain/juju-version.js';

/** Node's names for the architectures where Juju's differ. */
const JUJU_ARCH: Record<string, string> = { x64: 'amd64', ppc64: 'ppc64el' };

export const clientVersion = (arch: string = process.arch): string => `${JUJU_VERSION}-genericlinux-${JUJU_ARCH[arch] ?? arch}`;
