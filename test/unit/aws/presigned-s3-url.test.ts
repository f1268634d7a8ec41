import { describe, expect, it } from 'vitest';
import { presignedS3Put, presignedS3Url } from '#shared/aws/presigned-s3-url.js';

describe('presigned S3 GET', () => {
  it("matches AWS's published SigV4 query-string example (S3 developer guide, examplebucket/test.txt)", async () => {
    const url = await presignedS3Url({
      bucket: 'examplebucket',
      key: 'test.txt',
      region: 'us-east-1',
      hostname: 'examplebucket.s3.amazonaws.com',
      expiresIn: 86400,
      signingDate: () => new Date('2013-05-24T00:00:00Z'),
      credentials: async () => ({ accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' }),
    })();
    const parsed = new URL(url);
    expect(parsed.host).toBe('examplebucket.s3.amazonaws.com');
    expect(parsed.pathname).toBe('/test.txt');
    expect(parsed.searchParams.get('X-Amz-Credential')).toBe('AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request');
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('86400');
    expect(parsed.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(parsed.searchParams.get('X-Amz-Signature')).toBe('aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404');
  });

  it('is valid for an hour by default, on the regional S3 endpoint', async () => {
    const url = new URL(
      await presignedS3Url({
        bucket: 'assets',
        key: 'a/b.tar.gz',
        region: 'eu-west-1',
        credentials: async () => ({ accessKeyId: 'A', secretAccessKey: 'S' }),
      })(),
    );
    expect(url.host).toBe('assets.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/a/b.tar.gz');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
  });
});

describe('presigned S3 PUT', () => {
  const sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
  const put = (expiresIn?: number) =>
    presignedS3Put({
      bucket: 'charms-bucket',
      key: `uploads/${sha256}`,
      region: 'eu-west-1',
      ...(expiresIn !== undefined ? { expiresIn } : {}),
      signingDate: () => new Date('2026-01-02T03:04:05Z'),
      credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
      body: { sha256, size: 1234 },
    });

  it('signs the checksum and the length, so S3 refuses any other bytes or length', async () => {
    const { url, headers } = await put(600);
    const parsed = new URL(url);
    expect(parsed.host).toBe('charms-bucket.s3.eu-west-1.amazonaws.com');
    expect(parsed.pathname).toBe(`/uploads/${sha256}`);
    expect(parsed.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;host;x-amz-checksum-sha256');
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(parsed.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20260102/eu-west-1/s3/aws4_request');
    expect(parsed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    // The client must send them as headers: hoisted into the query, S3 would not check the body against them.
    expect([...parsed.searchParams.keys()].filter((k) => /checksum|content-length/i.test(k))).toEqual([]);
    // The checksum header is the base64 of the hex digest's bytes, as S3 spells it.
    expect(headers).toEqual({ 'content-length': '1234', 'x-amz-checksum-sha256': '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' });
  });

  it('signs differently for another length or checksum', async () => {
    const signature = async (body: { sha256: string; size: number }) =>
      new URL(
        (
          await presignedS3Put({
            bucket: 'b',
            key: 'uploads/x',
            region: 'eu-west-1',
            signingDate: () => new Date('2026-01-02T03:04:05Z'),
            credentials: async () => ({ accessKeyId: 'A', secretAccessKey: 'S' }),
            body,
          })
        ).url,
      ).searchParams.get('X-Amz-Signature');
    const base = await signature({ sha256, size: 1 });
    expect(await signature({ sha256, size: 2 })).not.toBe(base);
    expect(await signature({ sha256: 'ab'.repeat(32), size: 1 })).not.toBe(base);
  });

  it('is valid for an hour by default', async () => {
    expect(new URL((await put()).url).searchParams.get('X-Amz-Expires')).toBe('3600');
  });
});
