// A charm as deploy and upgrade-charm send it: its metadata files, and the charm packed and
// uploaded beforehand (cli/charm-upload.ts), named by its sha256: an archive of any size up to
// MAX_CHARM_ARCHIVE_BYTES, which no API request could carry.
import type { RequestOf } from '#shared/api/requests.js';
import { charmEntries } from '#shared/charmstore/charm-archive-rules.js';
import { readCharmArchiveStream } from '#shared/charmstore/charm-archive-stream.js';
import { baseFiles, packCharm, type CharmDir } from './charm-dir.js';
import { uploadCharm } from './charm-upload.js';
import type { ApiClient } from './client.js';
import { errorMessage } from '#shared/domain/errors.js';
import { CliError } from './errors.js';

/**
 * The charm packed, and checked by the rules the controller applies to an upload (one set of rules:
 * shared/charmstore/charm-archive-rules.ts), so a charm it
 * would refuse is refused before anything is sent (a bundle checks all of its charms this way
 * before it changes anything: cli/bundle/apply.ts).
 */
export async function packCheckedCharm(charm: CharmDir): Promise<Buffer> {
  const archive = await packCharm(charm.dir);
  let problem: string | undefined;
  try {
    // Read as the controller reads an upload: streamed, within the same bounds.
    const { entries } = await readCharmArchiveStream(
      (async function* () {
        yield archive;
      })(),
    );
    charmEntries(entries);
  } catch (e) {
    problem = errorMessage(e).replace(/^charm archive: /, '');
  }
  if (problem) throw new CliError(`charm "${charm.dir}": invalid charm archive: ${problem}`);
  return archive;
}

export async function charmRequest(client: ApiClient, charm: CharmDir, packed?: Buffer): Promise<RequestOf<'deploy'>['charm']> {
  const upload = await uploadCharm(client, packed ?? (await packCheckedCharm(charm)));
  return {
    metadata: charm.metadata,
    ...(charm.config !== undefined ? { config: charm.config } : {}),
    ...(charm.actions !== undefined ? { actions: charm.actions } : {}),
    ...baseFiles(charm),
    upload,
  };
}
