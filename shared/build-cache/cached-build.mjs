// A build output kept in a directory and made again only when something it was built from
// changed: the `drover` bin's bundles of the CLI (cli/launch/cli-bundle.mjs) and the local
// provider's agent (shared/provider/local/agent-build.ts). Plain JavaScript, because the bin runs
// it before anything can compile TypeScript.
//
// The stamp, written last, lists every input the build read (esbuild's metafile) with its size,
// times and a digest of its contents. Checking it costs one stat per input (about 1 ms for the
// CLI's ~130): an input whose size, mtime and ctime are all as recorded is unchanged, and only
// one whose stat moved is hashed again. A file of an installed package is stood for by its
// package's package.json: a package changes by being installed again, which writes that file
// too, and the CLI reads ~850 files from ~30 packages. ctime matters: npm writes every file of a
// package with the same fixed mtime, so a package installed again shows only in its files' ctime
// (which nothing can set back). A new source file can only enter the build through an import
// added to a file already there, which changes that file's digest.
//
// Every file is written under a temporary name and renamed, the stamp last, so two first runs at
// once both work (each writes the same files; a rename replaces whole files), a reader never sees
// half a file, and a build interrupted by a crash is simply done again.
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

// Required, not imported: an ES import of node:fs makes Node load its streams (its named exports
// are read at once), about 4 ms of a check that is otherwise 1 ms; node:crypto is loaded only
// when something is hashed.
const require = createRequire(import.meta.url);
const { chmodSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } = require('node:fs');

export const STAMP = 'inputs.json';

/** Files left by an earlier build are removed once this old: a process started before may still load them. */
const STALE_AFTER_MS = 60 * 60 * 1000;

/** Timestamps are not trusted closer than this to a build: the file system may not tell two writes apart. */
const TIMESTAMP_RESOLUTION_MS = 2_000;

const digestOf = (path) => require('node:crypto').createHash('sha256').update(readFileSync(path)).digest('hex');

/** `…/node_modules/<name>/…` and `…/node_modules/@scope/<name>/…` stand for their package's package.json. */
export function recordedPath(path) {
  const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(path);
  return match ? join(match[1], 'package.json') : path;
}

/** An input as the stamp records it; undefined if it is gone. */
function recordOf(path, digest) {
  try {
    const s = statSync(path);
    return { path, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, digest: digest ?? digestOf(path) };
  } catch {
    return undefined;
  }
}

function readStamp(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, STAMP), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Writes under a temporary name and renames: a reader sees the old file or the new one, never half. */
export function writeAtomically(path, data, mode = 0o644) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, data, { mode });
  chmodSync(tmp, mode); // writeFileSync's mode is masked by the umask
  renameSync(tmp, path);
}

/**
 * The output's description (what `build` returned as `outputs`: the names of its files, say) if
 * the output in `dir` was built with `key` from inputs that are all unchanged; undefined if not. An input whose stat moved but whose contents did not is recorded
 * again, so the next check is cheap.
 */
export function freshOutputs(dir, key) {
  const stamp = readStamp(dir);
  if (!stamp || stamp.key !== key || stamp.outputs === undefined || !Array.isArray(stamp.inputs)) return undefined;
  let moved = false;
  for (const input of stamp.inputs) {
    let s;
    try {
      s = statSync(input.path);
    } catch {
      return undefined;
    }
    if (s.size === input.size && s.mtimeMs === input.mtimeMs && s.ctimeMs === input.ctimeMs) continue;
    if (s.size !== input.size || digestOf(input.path) !== input.digest) return undefined;
    moved = true;
  }
  if (moved) {
    const inputs = stamp.inputs.map((input) => recordOf(input.path, input.digest));
    if (inputs.every(Boolean)) writeAtomically(join(dir, STAMP), JSON.stringify({ ...stamp, inputs }));
  }
  return stamp.outputs;
}

/**
 * Removes what earlier builds wrote that this one did not, once old enough that nothing still
 * loads it. A file named after a kept one (`<kept>.<suffix>`, such as a code cache the user of
 * the output wrote beside it) is kept with it.
 */
function removeStale(dir, kept, now) {
  const isKept = (name) => kept.has(name) || [...kept].some((k) => name.startsWith(`${k}.`));
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!isKept(relative(dir, path)) && now - statSync(path).mtimeMs > STALE_AFTER_MS) unlinkSync(path);
    }
  };
  try {
    walk(dir);
  } catch {
    // Another build removed it first.
  }
}

/**
 * Builds into `dir` unless its output is fresh. `build` returns the files to write (paths relative
 * to `dir`), a description of them for their user (`outputs`, kept in the stamp), and the absolute
 * paths of every input it read. Returns whether it built, and the outputs.
 */
export async function cachedBuild({ dir, key, build, now = Date.now }) {
  const fresh = freshOutputs(dir, key);
  if (fresh !== undefined) return { built: false, outputs: fresh };
  const startedAt = now();
  const { files, outputs, inputs } = await build();
  for (const file of files) writeAtomically(join(dir, file.path), file.contents, file.mode);
  removeStale(dir, new Set([STAMP, ...files.map((f) => f.path)]), startedAt);
  // An input edited while the build read it (or just before) may not be what the output holds:
  // then no stamp is written, and the next run builds again.
  const records = [...new Set(inputs.map(recordedPath))].sort().map((path) => recordOf(path));
  const settled = records.every((r) => r && r.mtimeMs < startedAt - TIMESTAMP_RESOLUTION_MS);
  if (settled) writeAtomically(join(dir, STAMP), JSON.stringify({ key, outputs, inputs: records }));
  return { built: true, outputs };
}
