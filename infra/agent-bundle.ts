// The machine agent bundle every instance downloads at first boot (shared/provider/ec2/user-data.ts):
// a gzip tarball with `machine-agent.js` at its root, run by the instance's own Node.js 22, and
// the hook tool script beside it.
//
// Built here, at synthesis, with the local esbuild and no Docker: the agent and everything it
// imports — the AWS SDK included, since an instance has none — in one ESM file, plus a
// package.json that marks it as ESM. The tarball is byte-for-byte reproducible (fixed mtime,
// owner and modes), so its SHA-256 only changes when the agent does; the provisioner hands the
// SHA-256 to the instance, which refuses a bundle that does not match it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildSync } from 'esbuild';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';
import { AGENT_PACKAGE_JSON, AGENT_SCRIPT, AGENT_SCRIPTS, agentEsbuildOptions } from '#shared/agent-bundle/esbuild-options.js';

export { AGENT_ENTRY, AGENT_SCRIPTS } from '#shared/agent-bundle/esbuild-options.js';

export interface BuiltAgentBundle {
  /** The .tgz, as written. */
  path: string;
  sha256: string;
  /** Size of machine-agent.js inside the tarball, in bytes. */
  scriptBytes: number;
}

const BLOCK = 512;

export interface TarFile {
  data: Buffer;
  /** Unix permission bits; 0644 unless given. */
  mode?: number;
}

/** One ustar header + data for a regular file owned by root, mtime 0. */
function tarEntry(name: string, file: TarFile): Buffer {
  const { data } = file;
  const header = Buffer.alloc(BLOCK);
  const field = (value: string, offset: number, length: number) => header.write(value, offset, length, 'ascii');
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0') + '\0';
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  field(name, 0, 100);
  field(octal(file.mode ?? 0o644, 8), 100, 8);
  field(octal(0, 8), 108, 8); // uid
  field(octal(0, 8), 116, 8); // gid
  field(octal(data.length, 12), 124, 12);
  field(octal(0, 12), 136, 12); // mtime
  field('        ', 148, 8); // checksum, counted as spaces
  field('0', 156, 1); // regular file
  field('ustar\0', 257, 6);
  field('00', 263, 2);
  field('root', 265, 32);
  field('root', 297, 32);
  let sum = 0;
  for (const byte of header) sum += byte;
  field(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
  const padding = Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK);
  return Buffer.concat([header, data, padding]);
}

/** A reproducible gzip tarball of the given files (path in the archive → contents). */
export function tarGz(files: Record<string, TarFile>): Buffer {
  const entries = Object.keys(files)
    .sort()
    .map((name) => tarEntry(name, files[name]!));
  return gzipSync(Buffer.concat([...entries, Buffer.alloc(2 * BLOCK)]), { level: 9 });
}

/** Bundles the agent and writes the tarball to a temporary directory, named by its hash. */
export function buildAgentBundle(entry: string): BuiltAgentBundle {
  // Instances run Node.js 22 (shared/provider/ec2/user-data.ts).
  const result = buildSync(agentEsbuildOptions(entry, 'node22'));
  const script = Buffer.from(result.outputFiles[0]!.contents);
  const files: Record<string, TarFile> = {
    [AGENT_SCRIPT]: { data: script },
    'package.json': { data: Buffer.from(AGENT_PACKAGE_JSON) },
  };
  for (const relative of AGENT_SCRIPTS) {
    const path = join(dirname(entry), relative);
    if (existsSync(path)) files[relative] = { data: readFileSync(path), mode: 0o755 };
  }
  const archive = tarGz(files);
  const sha256 = createHash('sha256').update(archive).digest('hex');
  const directory = join(tmpdir(), 'drover-agent-bundle');
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `agent-${sha256}.tgz`);
  if (!existsSync(path)) writeFileSync(path, archive);
  return { path, sha256, scriptBytes: script.length };
}

export interface AgentBundleProps {
  /** Absolute path of the agent's entry module (agent/main.ts). */
  entry: string;
}

/** The bundle as a CDK file asset (uploaded by `cdk deploy` to the bootstrap bucket). */
export class AgentBundle extends Construct {
  readonly asset: Asset;
  readonly sha256: string;
  readonly scriptBytes: number;

  constructor(scope: Construct, id: string, props: AgentBundleProps) {
    super(scope, id);
    const built = buildAgentBundle(props.entry);
    this.sha256 = built.sha256;
    this.scriptBytes = built.scriptBytes;
    this.asset = new Asset(this, 'Tarball', { path: built.path });
  }

  /** Read access to this one object (the instances' role downloads it), nothing else in the bucket. */
  grantRead(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'AgentBundle',
        actions: ['s3:GetObject'],
        resources: [this.asset.bucket.arnForObjects(this.asset.s3ObjectKey)],
      }),
    );
  }
}
