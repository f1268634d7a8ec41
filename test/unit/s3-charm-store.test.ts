// The charm store on AWS (shared/charmstore/s3-charm-store.ts): what it sends S3, and the presigned
// URLs it hands agents, checked offline (signed with fixed credentials; nothing is sent).
import { Readable } from 'node:stream';
import { CopyObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { adoptCheckedUpload } from '../../functions/api/uploaded-charm.js';
import { packEntries } from '#shared/charmstore/charm-archive.js';
import { archiveKey } from '#shared/charmstore/charm-store.js';
import { s3CharmStore } from '#shared/charmstore/s3-charm-store.js';

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

describe('charm uploads to S3', () => {
  const good = packEntries([{ path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from('name: x\n') }]);
  const hostile = packEntries([{ path: 'hooks', type: 'symlink', mode: 0o777, linkTarget: '/etc' }]);
  /** GetObject of uploads/<sha256> answers these bytes, in small pieces as a stream does. */
  const uploaded = (bytes: Buffer) =>
    s3.on(GetObjectCommand, { Bucket: 'charm-bucket', Key: `uploads/${archiveKey(bytes)}` }).resolves({
      Body: Readable.from([bytes.subarray(0, 10), bytes.subarray(10)]) as never,
    });

  it('hands the CLI a presigned PUT to uploads/<sha256>, its checksum and length signed, sending S3 nothing', async () => {
    const { url, headers } = await store.uploadTarget(key, 4096);
    const parsed = new URL(url);
    expect(parsed.host).toBe('charm-bucket.s3.eu-west-1.amazonaws.com');
    expect(parsed.pathname).toBe(`/uploads/${key}`);
    expect(parsed.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;host;x-amz-checksum-sha256');
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(headers).toEqual({ 'content-length': '4096', 'x-amz-checksum-sha256': Buffer.from(key, 'hex').toString('base64') });
    expect(s3.calls()).toHaveLength(0);
  });

  it('refuses a size over the bound', async () => {
    await expect(store.uploadTarget(key, 2 ** 30 + 1)).rejects.toThrow(`not a charm archive size: ${2 ** 30 + 1}`);
  });

  it('checks an upload as it streams from uploads/, then copies it to charms/ inside S3', async () => {
    uploaded(good);
    s3.on(CopyObjectCommand).resolves({});
    expect(await adoptCheckedUpload(store, archiveKey(good))).toBe(archiveKey(good));
    expect(s3.commandCalls(CopyObjectCommand).map((c) => c.args[0].input)).toEqual([
      {
        Bucket: 'charm-bucket',
        CopySource: `charm-bucket/uploads/${archiveKey(good)}`,
        Key: `charms/${archiveKey(good)}.tar.gz`,
        ContentType: 'application/gzip',
        MetadataDirective: 'REPLACE',
      },
    ]);
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
  });

  it('copies nothing of a hostile upload, or of one that is missing', async () => {
    uploaded(hostile);
    await expect(adoptCheckedUpload(store, archiveKey(hostile))).rejects.toThrow('invalid charm archive: symlink "hooks" leaves the charm');
    s3.on(GetObjectCommand, { Key: `uploads/${key}` }).rejects(new NoSuchKey({ message: 'no such key', $metadata: {} }));
    await expect(adoptCheckedUpload(store, key)).rejects.toThrow(`no charm upload with sha256 ${key}`);
    expect(s3.commandCalls(CopyObjectCommand)).toHaveLength(0);
  });
});
