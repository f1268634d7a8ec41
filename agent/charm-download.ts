// One charm archive from the URL the API handed out, checked against its sha256
// (agent/verified-download.ts): a cut-off or corrupted download is never mistaken for the charm.
import { downloadVerified } from './verified-download.js';
import type { HttpSend } from './http.js';

export async function downloadCharm(url: string, sha256: string, destination: string, send: HttpSend): Promise<void> {
  await downloadVerified(
    {
      url,
      algorithm: 'sha256',
      digest: sha256,
      destination,
      mode: 0o600,
      failed: (status, body) => `cannot download charm archive ${sha256}: HTTP ${status} ${body}`,
      corrupted: (actual) => `charm archive ${sha256} arrived corrupted (sha256 ${actual})`,
    },
    send,
  );
}
