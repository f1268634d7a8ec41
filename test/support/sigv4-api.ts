// An API Gateway stand-in for the CLI's AWS path: it checks each request's SigV4 signature (the
// access key AKIDTEST and the secret given) and answers a one-page, empty status of model
// `default`. `seen` records each request as "METHOD url signed|BAD SIGNATURE [in <model>]".
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';

/** An API Gateway stand-in that checks each request's SigV4 signature by signing it again. */
export async function signatureCheckingServer(region: string, secret: string) {
  class Sha256 {
    private h;
    constructor(key?: string | Uint8Array) {
      this.h = key ? createHmac('sha256', key) : createHash('sha256');
    }
    update(d: string | Uint8Array) {
      this.h.update(d);
    }
    async digest() {
      return new Uint8Array(this.h.digest());
    }
  }
  const seen: string[] = [];
  const verify = async (req: IncomingMessage, body: string) => {
    const auth = String(req.headers.authorization ?? '');
    const signedHeaders = auth.match(/SignedHeaders=([^,]+)/)?.[1]?.split(';') ?? [];
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const amzDate = String(req.headers['x-amz-date']);
    const signingDate = new Date(
      `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13)}`,
    );
    const signer = new SignatureV4({
      service: 'execute-api',
      region,
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: secret },
      sha256: Sha256 as never,
    });
    const signed = await signer.sign(
      {
        method: req.method ?? 'GET',
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port),
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: Object.fromEntries(signedHeaders.map((h) => [h, String(req.headers[h])])),
        ...(body ? { body } : {}),
      },
      { signingDate },
    );
    return signed.headers.authorization === auth;
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const ok = await verify(req, body);
      // The model a request names is signed with it, so nothing on the way can change it.
      const signedModel = (req.headers.authorization ?? '').match(/SignedHeaders=[^,]*\bx-drover-model\b/)
        ? ` in ${req.headers['x-drover-model']}`
        : '';
      seen.push(`${req.method} ${req.url} ${ok ? 'signed' : 'BAD SIGNATURE'}${signedModel}`);
      res.writeHead(ok ? 200 : 403, { 'content-type': 'application/json' });
      res.end(
        ok
          ? JSON.stringify({
              model: { name: 'default', controller: 'aws' },
              machines: {},
              applications: {},
              controller: { timestamp: '10:00:00Z' },
            })
          : JSON.stringify({ message: 'The request signature we calculated does not match the signature you provided.' }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
