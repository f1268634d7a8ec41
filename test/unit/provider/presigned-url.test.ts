import { describe, expect, it } from 'vitest';
import { presignedS3Url } from '../../../shared/provider/ec2/presigned-url.js';

describe('presigned agent bundle URL', () => {
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
