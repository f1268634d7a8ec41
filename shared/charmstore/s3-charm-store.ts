// The charm store on AWS: `charms/<sha256>.tar.gz` in the controller's charm bucket
// (infra/charm-store.ts), downloaded by agents from presigned URLs; uploads arrive in
// `uploads/<sha256>` by presigned PUTs, whose checksum and length S3 enforces, and are copied to
// `charms/` once checked (the bucket expires what is left in `uploads/` after a day).
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { presignedS3Put, presignedS3Url } from '../aws/presigned-s3-url.js';
import { MAX_CHARM_ARCHIVE_BYTES } from './charm-archive-stream.js';
import { archiveKey, VALID_KEY, type CharmStore } from './charm-store.js';
import { CHARM_UPLOAD_URL_SECONDS, CHARM_URL_SECONDS } from './signed-local-url.js';

export const charmObjectKey = (key: string) => `charms/${key}.tar.gz`;
export const uploadObjectKey = (sha256: string) => `uploads/${sha256}`;

function checkedKey(key: string): string {
  if (!VALID_KEY.test(key)) throw new Error(`not a charm archive key: ${key}`);
  return key;
}

export function s3CharmStore(client: S3Client, bucket: string): CharmStore {
  return {
    async put(archive) {
      const key = archiveKey(archive);
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: charmObjectKey(key), Body: archive, ContentType: 'application/gzip' }));
      return key;
    },
    async get(key) {
      if (!VALID_KEY.test(key)) return undefined;
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: charmObjectKey(key) }));
        return Buffer.from(await out.Body!.transformToByteArray());
      } catch (e) {
        if (e instanceof NoSuchKey) return undefined;
        throw e;
      }
    },
    async downloadUrl(key) {
      // Signed with the API function's role, as the client's own requests are.
      return presignedS3Url({
        bucket,
        key: charmObjectKey(checkedKey(key)),
        region: await client.config.region(),
        credentials: client.config.credentials,
        expiresIn: CHARM_URL_SECONDS,
      })();
    },
    async uploadTarget(sha256, size) {
      if (!Number.isInteger(size) || size < 1 || size > MAX_CHARM_ARCHIVE_BYTES) throw new Error(`not a charm archive size: ${size}`);
      return presignedS3Put({
        bucket,
        key: uploadObjectKey(checkedKey(sha256)),
        region: await client.config.region(),
        credentials: client.config.credentials,
        expiresIn: CHARM_UPLOAD_URL_SECONDS,
        body: { sha256, size },
      });
    },
    async openUpload(sha256) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: uploadObjectKey(checkedKey(sha256)) }));
        return out.Body as AsyncIterable<Uint8Array>;
      } catch (e) {
        if (e instanceof NoSuchKey) return undefined;
        throw e;
      }
    },
    async discardUpload(sha256) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: uploadObjectKey(checkedKey(sha256)) }));
    },
    async adoptUpload(sha256) {
      // A copy inside S3 (up to 5 GB in one request): the archive's bytes never pass through the function.
      await client.send(
        new CopyObjectCommand({
          Bucket: bucket,
          CopySource: `${bucket}/${uploadObjectKey(checkedKey(sha256))}`,
          Key: charmObjectKey(sha256),
          ContentType: 'application/gzip',
          MetadataDirective: 'REPLACE',
        }),
      );
      return sha256;
    },
  };
}
