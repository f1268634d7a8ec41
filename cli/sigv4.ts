// SigV4 for AWS controllers: API Gateway checks IAM, so every request is signed for the
// `execute-api` service with credentials from the standard AWS chain (environment, profile,
// SSO, instance role), exactly as the AWS CLI would find them.
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '#shared/aws/node-sha256.js';
import { signRequest, SIGNING_SERVICE } from '#shared/aws/sign-request.js';
import type { RequestSigner } from './request-signer.js';
import { CliError } from './errors.js';
import { errorMessage } from '#shared/domain/errors.js';

export function sigv4Signer(name: string, region: string | undefined): RequestSigner {
  if (!region) {
    throw new CliError(`controller "${name}" has no region; register it again with "drover register <api-url> ${name} --region <region>"`);
  }
  const signer = new SignatureV4({ service: SIGNING_SERVICE, region, credentials: defaultProvider(), sha256: NodeSha256 });
  return async (request) => {
    try {
      return await signRequest(signer, request);
    } catch (e) {
      throw new CliError(
        `cannot sign the request to controller "${name}": ${errorMessage(e)}; configure AWS credentials (aws configure, AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY)`,
      );
    }
  };
}
