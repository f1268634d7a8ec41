// Presigned S3 URLs, signed with @smithy/signature-v4 (the signer the AWS SDK itself uses):
// - a GET, how an agent downloads a charm archive (shared/charmstore/s3-charm-store.ts) with
//   plain HTTPS and no credentials of its own;
// - a PUT whose checksum and length are signed headers, how the CLI uploads a charm archive: S3
//   then refuses any other bytes or any other length, so the URL uploads that one archive only.
// Query-string signing: https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from './node-sha256.js';
import { dnsSuffixOf } from './partition.js';

export const PRESIGNED_URL_SECONDS = 3600;
const PAYLOAD_HEADER = 'x-amz-content-sha256';

export interface PresignOptions {
  bucket: string;
  key: string;
  region: string;
  credentials?: AwsCredentialIdentityProvider;
  expiresIn?: number;
  /** Overrides for tests against AWS's published example. */
  hostname?: string;
  signingDate?: () => Date;
}

/** What a presigned PUT binds the upload to: these headers must be sent exactly as given. */
export interface SignedPutBody {
  /** The sha256 of the bytes, hex; sent base64 as `x-amz-checksum-sha256`. */
  sha256: string;
  size: number;
}

export interface PresignedPut {
  url: string;
  /** The headers the PUT must carry, as they were signed. */
  headers: Record<string, string>;
}

function signerFor(options: PresignOptions): SignatureV4 {
  // S3's rules: the path is not escaped twice, and the payload is "UNSIGNED-PAYLOAD" — carried
  // in a header that is neither signed nor moved into the query, as AWS's own presigner does.
  return new SignatureV4({
    service: 's3',
    region: options.region,
    credentials: options.credentials ?? defaultProvider(),
    sha256: NodeSha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
}

async function presign(options: PresignOptions, method: 'GET' | 'PUT', signedHeaders: Record<string, string>): Promise<string> {
  const hostname = options.hostname ?? `${options.bucket}.s3.${options.region}.${dnsSuffixOf(options.region)}`;
  const path = `/${options.key.split('/').map(encodeURIComponent).join('/')}`;
  const signed = await signerFor(options).presign(
    {
      method,
      protocol: 'https:',
      hostname,
      path,
      headers: { host: hostname, ...signedHeaders, [PAYLOAD_HEADER]: 'UNSIGNED-PAYLOAD' },
      query: {},
    },
    {
      expiresIn: options.expiresIn ?? PRESIGNED_URL_SECONDS,
      unsignableHeaders: new Set([PAYLOAD_HEADER]),
      // Left as headers, not hoisted into the query: the client must send them, and S3 checks them.
      unhoistableHeaders: new Set([PAYLOAD_HEADER, ...Object.keys(signedHeaders)]),
      ...(options.signingDate ? { signingDate: options.signingDate() } : {}),
    },
  );
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(signed.query ?? {}))
    for (const value of [v].flat()) if (typeof value === 'string') query.append(k, value);
  return `https://${hostname}${path}?${query.toString()}`;
}

/** A GET of one object; a function, so each call signs afresh. */
export function presignedS3Url(options: PresignOptions): () => Promise<string> {
  return () => presign(options, 'GET', {});
}

/**
 * A PUT of one object that S3 accepts only with exactly these bytes: `x-amz-checksum-sha256`
 * (S3 computes the checksum of what arrives and refuses a mismatch) and `content-length`, both
 * signed, so neither can be changed without breaking the signature.
 */
export async function presignedS3Put(options: PresignOptions & { body: SignedPutBody }): Promise<PresignedPut> {
  const headers = {
    'content-length': String(options.body.size),
    'x-amz-checksum-sha256': Buffer.from(options.body.sha256, 'hex').toString('base64'),
  };
  return { url: await presign(options, 'PUT', headers), headers };
}
