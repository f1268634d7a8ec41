// A charm as deploy and upgrade-charm receive it: its metadata is parsed (with the bases of
// manifest.yaml or charmcraft.yaml when metadata.yaml has no series) and its archive stored. A
// `.charm` zip is converted to the tar.gz the agents unpack, after the same hostile-archive checks
// the CLI makes, so a client that skips them changes nothing either: the metadata is parsed and
// the archive checked before anything is stored. A charm uploaded beforehand (`charm.upload`,
// ./uploaded-charm.ts) is checked as it streams from the store, then kept.
import type { RequestOf } from '#shared/api/requests.js';
import type { CharmStore } from '#shared/charmstore/charm-store.js';
import { readCharmArchive } from '#shared/charmstore/charm-archive.js';
import { adoptCheckedUpload, invalidArchive, refuseHostileEntries } from './uploaded-charm.js';
import { charmZipToArchive, isZip } from '#shared/charmstore/charm-zip.js';
import { invalidArgument } from '#shared/domain/errors.js';
import { parseCharm, type CharmMeta } from '#shared/domain/charm.js';
import { checkCharmSize } from '#shared/domain/item-size.js';

/** A charm the client sends (not one the controller fetches from Charmhub). */
export type LocalCharmRequest = Exclude<RequestOf<'deploy'>['charm'], { charmhub: unknown }>;

export async function receiveCharm(charms: CharmStore, body: LocalCharmRequest): Promise<{ charm: CharmMeta; charmArchive?: string }> {
  const charm = parseCharm(body.metadata, body.config, body.actions, {
    ...(body.manifest !== undefined ? { manifest: body.manifest } : {}),
    ...(body.charmcraft !== undefined ? { charmcraft: body.charmcraft } : {}),
  });
  // Before the archive is stored: a charm too large to keep on its application is refused whole.
  checkCharmSize(charm);
  if (body.archive !== undefined && body.upload !== undefined)
    throw invalidArgument('the charm is given twice: send either its archive inline or the sha256 of its upload, not both');
  if (body.upload !== undefined) return { charm, charmArchive: await adoptCheckedUpload(charms, body.upload) };
  if (!body.archive) return { charm };
  const bytes = Buffer.from(body.archive, 'base64');
  const archive = isZip(bytes) ? await charmZipToArchive(bytes) : checkedTarGz(bytes);
  return { charm, charmArchive: await charms.put(archive) };
}

/**
 * A tar.gz is checked as the agents will unpack it (charm-archive.ts), so a hostile one is refused
 * here, with nothing stored, rather than failing on every machine that installs it.
 */
function checkedTarGz(bytes: Buffer): Buffer {
  let entries;
  try {
    entries = readCharmArchive(bytes);
  } catch (e) {
    throw invalidArchive(e);
  }
  refuseHostileEntries(entries);
  return bytes;
}
