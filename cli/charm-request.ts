// A charm as deploy and upgrade-charm send it: its metadata files, and the charm packed and
// uploaded beforehand (cli/charm-upload.ts), named by its sha256: an archive of any size up to
// MAX_CHARM_ARCHIVE_BYTES, which no API request could carry.
import type { RequestOf } from '#shared/api/requests.js';
import { baseFiles, packCharm, type CharmDir } from './charm-dir.js';
import { uploadCharm } from './charm-upload.js';
import type { ApiClient } from './client.js';

export async function charmRequest(client: ApiClient, charm: CharmDir): Promise<RequestOf<'deploy'>['charm']> {
  const upload = await uploadCharm(client, await packCharm(charm.dir));
  return {
    metadata: charm.metadata,
    ...(charm.config !== undefined ? { config: charm.config } : {}),
    ...(charm.actions !== undefined ? { actions: charm.actions } : {}),
    ...baseFiles(charm),
    upload,
  };
}
