// Replacing a unit's charm directory with another charm's contents, for a charm upgrade. The new
// contents are unpacked beside it first, then swapped in by renames, so hooks only ever see a whole
// charm. Safe to repeat from the start after a crash at any point: a leftover staging or old
// directory is removed, and a missing charm directory (killed between the two renames) is fine.
// The unit agent's own memory (state.json) lives beside the charm directory, never in it.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { unpackCharmArchiveFile } from '#shared/charmstore/charm-unpack.js';

/** `archive`: the path of the new charm's archive (agent/charm-cache.ts). */
export async function replaceCharmDir(charmDir: string, archive: string | undefined): Promise<void> {
  const staging = `${charmDir}.new`;
  const old = `${charmDir}.old`;
  rmSync(staging, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
  if (archive) await unpackCharmArchiveFile(archive, staging);
  else mkdirSync(staging, { recursive: true }); // a charm uploaded without an archive has no hooks
  if (existsSync(charmDir)) renameSync(charmDir, old);
  renameSync(staging, charmDir);
  rmSync(old, { recursive: true, force: true });
}
