// The Node.js release machine agents run on, pinned by version and by the SHA-256 of each
// tarball: an instance downloads exactly this release from nodejs.org and refuses a tarball whose
// digest is not the one written here. A new Node release, or a download changed on its way, can
// reach an instance only through a commit to this file.
//
// 22.23.3 is the newest release of Node 22 (LTS) when pinned. The digests are the release's
// checksum lines (https://nodejs.org/dist/v22.23.3/, the SHASUMS256 file). To move to another
// release, take its checksum lines for both tarballs, check the file's signature
// (https://github.com/nodejs/node#verifying-binaries) and change the version and both digests.
import type { Ec2Arch } from './instance-types.js';

export const NODE_RELEASE = {
  version: '22.23.3',
  /** SHA-256 of node-v<version>-linux-<arch>.tar.xz, by Node's name for the arch. */
  sha256: {
    x64: 'df450af89261115ef9f9e3830c3eeb2cc9213b63c720b1af623cb5dcbe2e02de',
    arm64: 'a44aeb94849a299b22df10b9e622ec2f605c2183501bc40590705131de7c740f',
  },
} as const;

/** Node's name for each instance arch (its tarballs say x64 where EC2 and Juju say amd64). */
const NODE_ARCH: Record<Ec2Arch, keyof typeof NODE_RELEASE.sha256> = { amd64: 'x64', arm64: 'arm64' };

export interface NodeTarball {
  fileName: string;
  url: string;
  sha256: string;
}

/** The pinned release's Linux tarball for an instance of `arch`. */
export function nodeTarball(arch: Ec2Arch): NodeTarball {
  const nodeArch = NODE_ARCH[arch];
  const fileName = `node-v${NODE_RELEASE.version}-linux-${nodeArch}.tar.xz`;
  return { fileName, url: `https://nodejs.org/dist/v${NODE_RELEASE.version}/${fileName}`, sha256: NODE_RELEASE.sha256[nodeArch] };
}
