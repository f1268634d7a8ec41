// The charm store on AWS (shared/charmstore/s3-charm-store.ts): what it sends S3, and the presigned
// URLs it hands agents, checked offline (signed with fixed credentials; nothing is sent).
import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { archiveKey } from '../../shared/charmstore/charm-store.js';
import { s3CharmStore } from '../../shared/charmstore/s3-charm-store.js';

const client = new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } });
const s3 = mockClient(client);
const store = s3CharmStore(client, 'charm-bucket');
const key = 'ab'.repeat(32);

beforeEach(() => s3.reset());

describe('the S3 charm store', () => {
  it('stores an archive under charms/<sha256>.tar.gz', async () => {
    s3.on(PutObjectCommand).resolves({});
    const archive = Buffer.from('a tar.gz');
    expect(await store.put(archive)).toBe(archiveKey(archive));
    expect(s3.commandCalls(PutObjectCommand).map((c) => [c.args[0].input.Bucket, c.args[0].input.Key])).toEqual([
      ['charm-bucket', `charms/${archiveKey(archive)}.tar.gz`],
    ]);
  });

  it('answers undefined for an archive it does not have, and asks S3 nothing for a key that is no sha256', async () => {
    s3.on(GetObjectCommand).rejects(new NoSuchKey({ message: 'no such key', $metadata: {} }));
    expect(await store.get(key)).toBeUndefined();
    expect(await store.get('../secrets')).toBeUndefined();
    expect(s3.commandCalls(GetObjectCommand).map((c) => c.args[0].input.Key)).toEqual([`charms/${key}.tar.gz`]);
  });

  it('hands agents a presigned GET of the archive, valid for five minutes, sending S3 nothing', async () => {
    const url = new URL(await store.downloadUrl(key));
    expect(url.host).toBe('charm-bucket.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe(`/charms/${key}.tar.gz`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
    expect(s3.calls()).toHaveLength(0);
  });

  it('makes no URL for a key that is no sha256', async () => {
    await expect(store.downloadUrl('../../etc/passwd')).rejects.toThrow('not a charm archive key: ../../etc/passwd');
  });
});
