// A charm as deploy and upgrade-charm send it: its metadata files, and the charm packed.
import type { RequestOf } from '../shared/api/requests.js';
import { baseFiles, packCharm, type CharmDir } from './charm-dir.js';

export async function charmRequest(charm: CharmDir): Promise<RequestOf<'deploy'>['charm']> {
  const archive = await packCharm(charm.dir);
  return {
    metadata: charm.metadata,
    ...(charm.config !== undefined ? { config: charm.config } : {}),
    ...(charm.actions !== undefined ? { actions: charm.actions } : {}),
    ...baseFiles(charm),
    archive: archive.toString('base64'),
  };
}
