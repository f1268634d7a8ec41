// A charm on the user's disk, a directory or a `.charm` packed by charmcraft (a zip): its metadata
// is read and validated here, before anything is sent (a bad metadata.yaml is the author's to fix,
// and needs no controller), then the whole charm is packed as a tar.gz for the agents, keeping the
// hooks' executable bits, and uploaded (cli/charm-upload.ts).
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MAX_CHARM_ARCHIVE_BYTES } from '#shared/charmstore/charm-archive-stream.js';
import { charmZipToArchive, readCharmZip, rootFile } from '#shared/charmstore/charm-zip.js';
import { parseCharm, type CharmMeta } from '#shared/domain/charm.js';
import { isDroverError, errorMessage } from '#shared/domain/errors.js';
import { CliError } from './errors.js';

const run = promisify(execFile);

const MiB = 2 ** 20;

export interface CharmDir {
  /** The directory, or the `.charm` file. */
  dir: string;
  metadata: string;
  config?: string;
  actions?: string;
  /** charmcraft's manifest.yaml (packed charms): the bases the charm runs on. */
  manifest?: string;
  /** charmcraft.yaml (charm source directories): `base`/`bases`, when metadata.yaml has no series. */
  charmcraft?: string;
  meta: CharmMeta;
}

/** The files besides metadata.yaml and config.yaml that say which bases a charm runs on. */
export const baseFiles = (charm: CharmDir) => ({
  ...(charm.manifest !== undefined ? { manifest: charm.manifest } : {}),
  ...(charm.charmcraft !== undefined ? { charmcraft: charm.charmcraft } : {}),
});

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read ${path}: ${errorMessage(e)}`);
  }
}

interface CharmFiles {
  metadata?: string;
  config?: string;
  actions?: string;
  manifest?: string;
  charmcraft?: string;
}

const FILES = ['metadata.yaml', 'config.yaml', 'actions.yaml', 'manifest.yaml', 'charmcraft.yaml'] as const;

function charmFiles([metadata, config, actions, manifest, charmcraft]: Array<string | undefined>): CharmFiles {
  return { metadata, config, actions, manifest, charmcraft };
}

async function filesOfDir(dir: string): Promise<CharmFiles> {
  return charmFiles(await Promise.all(FILES.map((name) => readOptional(join(dir, name)))));
}

async function filesOfZip(path: string): Promise<CharmFiles> {
  const entries = await readCharmZip(await readFile(path)).catch((e: unknown) => {
    throw new CliError(`cannot read charm "${path}": ${errorMessage(e)}`);
  });
  return charmFiles(FILES.map((name) => rootFile(entries, name)));
}

/** `usage` says what takes the charm, e.g. `deploy takes` or `--path takes`. */
export async function readCharmDir(dir: string, usage = 'deploy takes'): Promise<CharmDir> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory() && !info?.isFile()) {
    throw new CliError(`charm directory "${dir}" not found; ${usage} the path of a local charm directory or .charm file`);
  }
  const files = info.isFile() ? await filesOfZip(dir) : await filesOfDir(dir);
  const { metadata, config } = files;
  if (metadata === undefined) {
    throw new CliError(`"${dir}" is not a charm: metadata.yaml not found (a charm has metadata.yaml, optional config.yaml, and hooks/)`);
  }
  const actions = files.actions;
  const charm: Omit<CharmDir, 'meta'> = {
    dir,
    metadata,
    ...(config !== undefined ? { config } : {}),
    ...(actions !== undefined ? { actions } : {}),
    ...(files.manifest !== undefined ? { manifest: files.manifest } : {}),
    ...(files.charmcraft !== undefined ? { charmcraft: files.charmcraft } : {}),
  };
  try {
    return { ...charm, meta: parseCharm(metadata, config, actions, baseFiles(charm as CharmDir)) };
  } catch (e) {
    // parseCharm's messages already name the file and the field: `metadata.yaml: "name" is required`.
    if (isDroverError(e)) throw new CliError(e.message);
    throw e;
  }
}

async function packDir(dir: string): Promise<Buffer> {
  try {
    // tar keeps modes (hooks must stay executable); .git is never part of a charm.
    const { stdout } = await run('tar', ['-czf', '-', '--exclude=.git', '--hard-dereference', '-C', dir, '.'], {
      encoding: 'buffer',
      // One byte more than the bound, so an archive over it is told apart from one at it.
      maxBuffer: MAX_CHARM_ARCHIVE_BYTES + 1,
    });
    return stdout;
  } catch (e) {
    if (e instanceof RangeError || (e as NodeJS.ErrnoException).code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
      throw new CliError(`charm "${dir}" packs to more than ${MAX_CHARM_ARCHIVE_BYTES / MiB} MiB; the controller accepts at most that`);
    throw new CliError(`cannot pack charm directory "${dir}": ${errorMessage(e).split('\n')[0]}`);
  }
}

/** A directory packed with tar, or a `.charm` converted from zip: the tar.gz the store keeps. */
export async function packCharm(dir: string): Promise<Buffer> {
  const isFile = (await stat(dir).catch(() => undefined))?.isFile() ?? false;
  const archive = isFile
    ? await charmZipToArchive(await readFile(dir)).catch((e: unknown) => {
        throw new CliError(`cannot read charm "${dir}": ${errorMessage(e)}`);
      })
    : await packDir(dir);
  if (archive.length > MAX_CHARM_ARCHIVE_BYTES) {
    throw new CliError(
      `charm "${dir}" packs to ${(archive.length / MiB).toFixed(1)} MiB; the controller accepts at most ${MAX_CHARM_ARCHIVE_BYTES / MiB} MiB`,
    );
  }
  return archive;
}
