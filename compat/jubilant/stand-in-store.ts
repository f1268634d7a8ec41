// The Charmhub jubilant's test_deployment.py and test_machine.py deploy from, for a host that cannot
// reach charmhub.io: the local Charmhub-API server (test/support/charmhub-server.ts) serving
// drover's own stand-in charms under the names the tests ask for (stand-ins/README.md says what
// each does). The run points the controller's model defaults at it, so every model jubilant adds
// takes it as its charmhub-url.
import { fileURLToPath } from 'node:url';
import { startCharmhubServer, type CharmhubServer } from '../../test/support/charmhub-server.js';
import { packDotCharm } from '../../test/support/dot-charm.js';

const STAND_INS = fileURLToPath(new URL('./stand-ins/', import.meta.url));

export async function startStandInStore(): Promise<CharmhubServer> {
  const pack = (name: string) => packDotCharm(`${STAND_INS}${name}`);
  return startCharmhubServer([
    {
      name: 'snappass-test',
      summary: "drover's stand-in for snappass-test",
      // Two bases, as test_deploy_with_resources asks for ubuntu@20.04 and the setup for none.
      revisions: [{ revision: 1, file: pack('snappass-test'), bases: ['ubuntu@22.04', 'ubuntu@20.04'], channels: ['latest/stable'] }],
    },
    {
      name: 'ubuntu',
      summary: "drover's stand-in for ubuntu",
      revisions: [{ revision: 1, file: pack('ubuntu'), bases: ['ubuntu@22.04'], channels: ['latest/stable'] }],
    },
  ]);
}
