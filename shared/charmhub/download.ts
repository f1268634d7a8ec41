// Downloads from Charmhub (a charm's .charm, a resource's file), bounded in size and time and
// checked against the digest the store announced before anything keeps them: the size Charmhub
// declared and an absolute cap are both enforced as bytes arrive, so a server that lies about
// content-length or never stops sending is cut off.
import { createHash } from 'node:crypto';
import { CharmhubError } from './client.js';

export interface DownloadLimits {
  maxBytes: number;
  timeoutMs: number;
}

export interface ExpectedDigest {
  /** Bytes Charmhub said the file has; more or fewer is refused. */
  size?: number;
  sha256?: string;
  sha384?: string;
}

export interface Downloaded {
  bytes: Buffer;
  sha256: string;
  sha384: string;
}

export async function downloadChecked(
  url: string,
  expected: ExpectedDigest,
  limits: DownloadLimits,
  fetcher: typeof fetch = fetch,
): Promise<Downloaded> {
  if (expected.size !== undefined && expected.size > limits.maxBytes)
    throw new CharmhubError(`cannot download "${url}": ${expected.size} bytes is more than the ${limits.maxBytes} allowed`);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const cap = Math.min(limits.maxBytes, expected.size ?? limits.maxBytes);
  const sha256 = createHash('sha256');
  const sha384 = createHash('sha384');
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    const response = await fetcher(url, { signal });
    if (!response.ok) throw new CharmhubError(`cannot download "${url}": HTTP ${response.status}`);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > cap) throw new CharmhubError(`cannot download "${url}": ${declared} bytes is more than the ${cap} expected`);
    for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (total > cap) throw new CharmhubError(`cannot download "${url}": more than the ${cap} bytes expected`);
      const bytes = Buffer.from(chunk);
      sha256.update(bytes);
      sha384.update(bytes);
      chunks.push(bytes);
    }
  } catch (e) {
    if (e instanceof CharmhubError) throw e;
    if (signal.aborted) throw new CharmhubError(`cannot download "${url}": not done in ${limits.timeoutMs / 1000}s`);
    throw new CharmhubError(`cannot download "${url}": ${((e as { cause?: Error }).cause ?? (e as Error)).message}`);
  }
  if (expected.size !== undefined && total !== expected.size)
    throw new CharmhubError(`cannot download "${url}": got ${total} bytes, expected ${expected.size}`);
  const got = { bytes: Buffer.concat(chunks), sha256: sha256.digest('hex'), sha384: sha384.digest('hex') };
  // Juju's words (core/charm/repository/charmhub.go Download, resource's SHA-384 fingerprint check).
  // A resource is checked by its SHA-384 first (Juju's fingerprint), a charm by its sha256.
  if (expected.sha384 !== undefined && got.sha384 !== expected.sha384)
    throw new CharmhubError(`resource fingerprint "${got.sha384}" does not match expected fingerprint "${expected.sha384}"`);
  if (expected.sha256 !== undefined && got.sha256 !== expected.sha256)
    throw new CharmhubError(`downloaded charm hash "${got.sha256}" does not match expected hash "${expected.sha256}"`);
  return got;
}
