// The controller's charm store: charm archives by content hash. The CLI uploads a charm packed as
// a tar.gz straight to the store, with a short-lived URL the store makes (`charm-upload`); deploy
// checks the upload and keeps it as the archive; agents download it from another short-lived URL.
// So no archive passes through the API's requests or responses (API Gateway and Lambda bound them
// at a few megabytes). S3 on AWS (./s3-charm-store.ts), the data directory locally
// (./local-charm-store.ts). Charm resources' files travel and are kept the same way, under the
// sha256 of their bytes beside the archives (functions/api/resource-upload.ts): content is
// stored once, whatever names it.
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
  /**
   * Where a client PUTs an archive of this sha256 and size, for a few minutes, without
   * credentials: the URL (relative to the API's locally) and the headers to send as they are.
   * Any other bytes or length are refused.
   */
  uploadTarget(sha256: string, size: number): Promise<UploadTarget>;
  /** The bytes uploaded under this sha256, as they stream; undefined when there is no such upload. */
  openUpload(sha256: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** Keeps an upload, once checked, as the archive of the same sha256; returns its key. */
  adoptUpload(sha256: string): Promise<string>;
  /** Deletes an upload refused by its check: nothing of a refused upload is kept. */
  discardUpload(sha256: string): Promise<void>;
}

export interface UploadTarget {
  url: string;
  headers: Record<string, string>;
}

/** The headers an upload carries: its length and its checksum as S3 spells it (base64 of the digest). */
export const uploadHeaders = (sha256: string, size: number): Record<string, string> => ({
  'content-length': String(size),
  'x-amz-checksum-sha256': Buffer.from(sha256, 'hex').toString('base64'),
});

export const archiveKey = (archive: Buffer) => createHash('sha256').update(archive).digest('hex');
export const VALID_KEY = /^[0-9a-f]{64}$/;
