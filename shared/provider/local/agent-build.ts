// The machine agent the local provider runs: the esbuild bundle EC2 instances get
// (shared/agent-bundle/esbuild-options.ts), built into `<dataDir>/agent/` when the controller
// starts, and run as `node <dataDir>/agent/machine-agent.js`.
//
// Why a bundle and not `node --import tsx agent/main.ts`: tsx compiles the agent's
// TypeScript in every agent process, ~0.3 CPU-seconds each against ~0.07 s to load the bundle
// (measured); a `deploy -n 100` on a 2-core host starts 100 agents at once.
//
// A build takes 0.15–0.4 s (measured), so it is skipped when nothing it read has changed: the
// build records every input esbuild reports in its metafile with a digest of their contents, and
// the next start hashes those files again (~10 ms). A new source file can only enter the bundle
// through an import added to one already there, which changes that file's digest.
//
// Each file is written under a temporary name and renamed, the stamp last, so an agent starting
// from this directory meanwhile (one revived beside a running controller) never reads half a
// file, and a build interrupted by a crash is simply done again.
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { AGENT_ENTRY, AGENT_PACKAGE_JSON, AGENT_SCRIPT, AGENT_SCRIPTS, agentEsbuildOptions } from '../../agent-bundle/esbuild-options.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const STAMP = 'inputs.json';

export const agentDirOf = (dataDir: string) => join(dataDir, 'agent');

interface Stamp {
  /** Absolute paths of every file the build read, the scripts copied beside it included. */
  inputs: string[];
  digest: string;
}

async function writeAtomically(path: string, data: string | Uint8Array, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, data, { mode });
  await chmod(tmp, mode); // writeFile's mode is masked by the umask
  await rename(tmp, path);
}

/** A digest of the build's options and of every input's path and contents; undefined if one is gone. */
async function digestOf(options: unknown, inputs: string[]): Promise<string | undefined> {
  const hash = createHash('sha256').update(JSON.stringify(options));
  try {
    for (const path of inputs)
      hash
        .update(path)
        .update('\0')
        .update(await readFile(path))
        .update('\0');
  } catch {
    return undefined;
  }
  return hash.digest('hex');
}

async function editedSince(paths: string[], since: number): Promise<boolean> {
  const times = await Promise.all(
    paths.map((path) =>
      stat(path).then(
        (s) => s.mtimeMs,
        () => Infinity,
      ),
    ),
  );
  return times.some((t) => t >= since);
}

async function readStamp(dir: string): Promise<Stamp | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, STAMP), 'utf8')) as Stamp;
  } catch {
    return undefined;
  }
}

/** Bundles the agent into `<dataDir>/agent/` unless it is there already; returns the command that runs it. */
export async function buildLocalAgent(dataDir: string, entry = join(REPO, AGENT_ENTRY)): Promise<string[]> {
  const dir = agentDirOf(dataDir);
  const command = [process.execPath, join(dir, AGENT_SCRIPT)];
  const options = {
    ...agentEsbuildOptions(entry, `node${process.versions.node.split('.')[0]}`),
    // Readable stack traces in agent.log; loading it costs no more than the minified file (measured).
    minify: false,
    metafile: true,
  };
  const stamp = await readStamp(dir);
  if (stamp && stamp.digest === (await digestOf(options, stamp.inputs))) return command;

  const buildStartedAt = Date.now();
  const result = await build(options);
  // Metafile paths are relative to esbuild's working directory.
  const scripts = AGENT_SCRIPTS.map((relative) => ({ relative, path: join(dirname(entry), relative) }));
  const inputs = [...Object.keys(result.metafile?.inputs ?? {}).map((path) => resolve(path)), ...scripts.map((s) => s.path)].sort();
  await writeAtomically(join(dir, 'package.json'), AGENT_PACKAGE_JSON, 0o644);
  for (const { relative, path } of scripts) await writeAtomically(join(dir, relative), await readFile(path), 0o755);
  await writeAtomically(join(dir, AGENT_SCRIPT), result.outputFiles[0]!.contents, 0o644);
  // The digest is taken from the files as they are now: one edited while esbuild read it (or just
  // before, within the file system's timestamp resolution) may not be what the bundle holds, so
  // then no stamp is written and the next start builds again.
  if (await editedSince(inputs, buildStartedAt - 2_000)) return command;
  const digest = await digestOf(options, inputs);
  if (digest) await writeAtomically(join(dir, STAMP), JSON.stringify({ inputs, digest } satisfies Stamp), 0o644);
  return command;
}
