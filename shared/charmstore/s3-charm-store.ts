// The charm store on AWS: `charms/<sha256>.tar.gz` in the controller's charm bucket
// (infra/charm-store.ts), downloaded by agents from presigned URLs.
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { presignedS3Url } from '../aws/presigned-s3-url.js';
import { archiveKey, VALID_KEY, type CharmStore } from './charm-store.js';
import { CHARM_URL_SECONDS } from './signed-local-url.js';

export const charmObjectKey = (key: string) => `charms/${key}.tar.gz`;

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
      if (!VALID_KEY.test(key)) throw new Error(`not a charm archive key: ${key}`);
      // Signed with the API function's role, as the client's own requests are.
      return presignedS3Url({
        bucket,
        key: charmObjectKey(key),
        region: await client.config.region(),
        credentials: client.config.credentials,
        expiresIn: CHARM_URL_SECONDS,
      })();
    },
  };
}
