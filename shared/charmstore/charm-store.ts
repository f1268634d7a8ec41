// The controller's charm store: charm archives by content hash. `deploy` uploads the charm
// directory packed as a tar.gz; agents download it to install the charm. S3 on AWS, the data
// directory locally.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

export interface CharmStore {
  /** Stores an archive; returns its key (the sha256 of its bytes), so storing twice is harmless. */
  put(archive: Buffer): Promise<string>;
  get(key: string): Promise<Buffer | undefined>;
}

export const archiveKey = (archive: Buffer) => createHash('sha256').update(archive).digest('hex');
const VALID_KEY = /^[0-9a-f]{64}$/;

export function localCharmStore(directory: string): CharmStore {
  return {
    async put(archive) {
      const key = archiveKey(archive);
      await mkdir(directory, { recursive: true });
      // Write then rename: a reader never sees half an archive.
      const temporary = join(directory, `${key}.${process.pid}.tmp`);
      await writeFile(temporary, archive);
      await rename(temporary, join(directory, `${key}.tar.gz`));
      return key;
    },
    async get(key) {
      if (!VALID_KEY.test(key)) return undefined;
      return readFile(join(directory, `${key}.tar.gz`)).catch(() => undefined);
    },
  };
}

export function s3CharmStore(client: S3Client, bucket: string): CharmStore {
  return {
    async put(archive) {
      const key = archiveKey(archive);
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: `charms/${key}.tar.gz`, Body: archive, ContentType: 'application/gzip' }),
      );
      return key;
    },
    async get(key) {
      if (!VALID_KEY.test(key)) return undefined;
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `charms/${key}.tar.gz` }));
        return Buffer.from(await out.Body!.transformToByteArray());
      } catch (e) {
        if (e instanceof NoSuchKey) return undefined;
        throw e;
      }
    },
  };
}
