// A presigned S3 GET URL: how a new instance downloads the agent bundle from the controller's
// private asset bucket before it has any AWS credentials of its own (the user data fetches it
// with plain curl). Signed with the provisioner's role, valid for an hour: long enough for an
// instance to boot, short enough to be useless later.
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../../aws/node-sha256.js';

export const PRESIGNED_URL_SECONDS = 3600;
const PAYLOAD_HEADER = 'x-amz-content-sha256';

export function presignedS3Url(options: {
  bucket: string;
  key: string;
  region: string;
  credentials?: AwsCredentialIdentityProvider;
  expiresIn?: number;
  /** Overrides for tests against AWS's published example. */
  hostname?: string;
  signingDate?: () => Date;
}): () => Promise<string> {
  // S3's rules: the path is not escaped twice, and the payload is "UNSIGNED-PAYLOAD" — carried
  // in a header that is neither signed nor moved into the query, as AWS's own presigner does.
  const signer = new SignatureV4({
    service: 's3',
    region: options.region,
    credentials: options.credentials ?? defaultProvider(),
    sha256: NodeSha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const hostname = options.hostname ?? `${options.bucket}.s3.${options.region}.amazonaws.com`;
  const path = `/${options.key.split('/').map(encodeURIComponent).join('/')}`;
  return async () => {
    const signed = await signer.presign(
      { method: 'GET', protocol: 'https:', hostname, path, headers: { host: hostname, [PAYLOAD_HEADER]: 'UNSIGNED-PAYLOAD' }, query: {} },
      {
        expiresIn: options.expiresIn ?? PRESIGNED_URL_SECONDS,
        unsignableHeaders: new Set([PAYLOAD_HEADER]),
        unhoistableHeaders: new Set([PAYLOAD_HEADER]),
        ...(options.signingDate ? { signingDate: options.signingDate() } : {}),
      },
    );
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(signed.query ?? {}))
      for (const value of [v].flat()) if (typeof value === 'string') query.append(k, value);
    return `https://${hostname}${path}?${query.toString()}`;
  };
}
