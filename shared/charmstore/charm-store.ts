// The controller's charm store: charm archives by content hash. `deploy` stores the charm packed
// as a tar.gz; agents download it to install the charm, from a short-lived URL the store makes, so
// no archive passes through the API's responses (Lambda's are bounded at 6 MB). S3 on AWS
// (./s3-charm-store.ts), the data directory locally (./local-charm-store.ts).
import { createHash } from 'node:crypto';

export interface CharmStore {
  /** Stores an archive; returns its key (the sha256 of its bytes), so storing twice is harmless. */
  put(archive: Buffer): Promise<string>;
  get(key: string): Promise<Buffer | undefined>;
  /**
   * A URL any HTTP client may GET the archive from for a few minutes, without credentials: a
   * presigned S3 URL, or a signed path on the local API server (relative to the API's URL).
   */
  downloadUrl(key: string): Promise<string>;
}

export const archiveKey = (archive: Buffer) => createHash('sha256').update(archive).digest('hex');
export const VALID_KEY = /^[0-9a-f]{64}$/;
