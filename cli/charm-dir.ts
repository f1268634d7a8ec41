// A charm directory on the user's disk: its metadata is read and validated here, before anything
// is sent (a bad metadata.yaml is the author's to fix, and needs no controller), then the whole
// directory is packed as a tar.gz for the agents, keeping the hooks' executable bits.
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseCharm, type CharmMeta } from '../shared/domain/charm.js';
import { isDroverError } from '../shared/domain/errors.js';
import { CliError } from './errors.js';

const run = promisify(execFile);

/** The API takes at most 10 MB per request, and base64 makes the archive a third bigger. */
const MAX_ARCHIVE_BYTES = 7 * 1024 * 1024;

export interface CharmDir {
  dir: string;
  metadata: string;
  config?: string;
  actions?: string;
  meta: CharmMeta;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`);
  }
}

/** `usage` says what takes the directory, e.g. `deploy takes` or `--path takes`. */
export async function readCharmDir(dir: string, usage = 'deploy takes'): Promise<CharmDir> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new CliError(`charm directory "${dir}" not found; ${usage} the path of a local charm directory`);
  const metadata = await readOptional(join(dir, 'metadata.yaml'));
  if (metadata === undefined) {
    throw new CliError(`"${dir}" is not a charm: metadata.yaml not found (a charm has metadata.yaml, optional config.yaml, and hooks/)`);
  }
  const config = await readOptional(join(dir, 'config.yaml'));
  const actions = await readOptional(join(dir, 'actions.yaml'));
  try {
    return {
      dir,
      metadata,
      ...(config !== undefined ? { config } : {}),
      ...(actions !== undefined ? { actions } : {}),
      meta: parseCharm(metadata, config, actions),
    };
  } catch (e) {
    // parseCharm's messages already name the file and the field: `metadata.yaml: "name" is required`.
    if (isDroverError(e)) throw new CliError(e.message);
    throw e;
  }
}

/** tar keeps modes (hooks must stay executable); .git is never part of a charm. */
export async function packCharm(dir: string): Promise<Buffer> {
  let archive: Buffer;
  try {
    ({ stdout: archive } = await run('tar', ['-czf', '-', '--exclude=.git', '-C', dir, '.'], {
      encoding: 'buffer',
      maxBuffer: 4 * MAX_ARCHIVE_BYTES,
    }));
  } catch (e) {
    throw new CliError(`cannot pack charm directory "${dir}": ${(e as Error).message.split('\n')[0]}`);
  }
  if (archive.length > MAX_ARCHIVE_BYTES) {
    throw new CliError(`charm "${dir}" packs to ${(archive.length / 1048576).toFixed(1)} MB; the controller accepts at most 7 MB`);
  }
  return archive;
}
