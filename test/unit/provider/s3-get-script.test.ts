// The program a new instance runs to read the agent bundle with its instance role
// (shared/provider/ec2/s3-get-script.ts), run by a real python3 against a stand-in for the
// instance metadata service and S3 that checks its signature with the AWS SDK's own SigV4 signer.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeSha256 } from '#shared/aws/node-sha256.js';
import { S3_GET_PROGRAM } from '#shared/provider/ec2/s3-get-script.js';

const CREDENTIALS = { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'instance-role-secret', sessionToken: 'instance-role-session' };
const IMDS_TOKEN = 'imds-v2-token';
const BUNDLE = Buffer.from('the agent bundle');

/** The Authorization S3 would expect for this request, by the SDK's signer. */
async function expectedAuthorization(req: IncomingMessage, secretAccessKey: string): Promise<string> {
  const amzDate = String(req.headers['x-amz-date']);
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const signer = new SignatureV4({
    service: 's3',
    region: 'eu-west-1',
    credentials: { ...CREDENTIALS, secretAccessKey },
    sha256: NodeSha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: 'GET',
      protocol: 'http:',
      hostname: '127.0.0.1',
      path: req.url!,
      headers: { host: String(req.headers.host), 'x-amz-content-sha256': String(req.headers['x-amz-content-sha256']) },
    },
    { signingDate },
  );
  return String(signed.headers.authorization);
}

/** IMDSv2 and S3 on one port: S3 answers only a request signed as the SDK signs it with `secret`. */
async function standIn(secret: string): Promise<{ server: Server; base: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/latest/api/token' && req.method === 'PUT') return res.end(IMDS_TOKEN);
      if (req.url!.startsWith('/latest/meta-data/')) {
        if (req.headers['x-aws-ec2-metadata-token'] !== IMDS_TOKEN) return res.writeHead(401).end();
        if (req.url === '/latest/meta-data/iam/security-credentials/') return res.end('drover-agent-role\n');
        return res.end(
          JSON.stringify({
            AccessKeyId: CREDENTIALS.accessKeyId,
            SecretAccessKey: CREDENTIALS.secretAccessKey,
            Token: CREDENTIALS.sessionToken,
          }),
        );
      }
      const ok = req.headers.authorization === (await expectedAuthorization(req, secret));
      if (!ok || req.headers['x-amz-security-token'] !== CREDENTIALS.sessionToken) return res.writeHead(403).end('SignatureDoesNotMatch');
      res.end(BUNDLE);
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** Runs the program as the user data does (its source on stdin), without blocking the stand-in's event loop. */
function run(base: string, out: string): Promise<{ status: number | null; stderr: string }> {
  const child = spawn('python3', ['-', 'bundle-bucket', 'assets/0123abcd.tgz', 'eu-west-1', out, base, base]);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(S3_GET_PROGRAM);
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

describe('the agent bundle download with the instance role', () => {
  let dir: string;
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('signs its GET exactly as the AWS SDK does, with the role credentials from IMDSv2', async () => {
    dir = mkdtempSync(join(tmpdir(), 's3-get-'));
    const stand = await standIn(CREDENTIALS.secretAccessKey);
    server = stand.server;
    const result = await run(stand.base, join(dir, 'agent.tgz'));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(readFileSync(join(dir, 'agent.tgz'))).toEqual(BUNDLE);
    expect(stand.seen).toEqual([
      'PUT /latest/api/token',
      'GET /latest/meta-data/iam/security-credentials/',
      'GET /latest/meta-data/iam/security-credentials/drover-agent-role',
      'GET /assets/0123abcd.tgz',
    ]);
  });

  it('fails, writing nothing, when S3 refuses the signature', async () => {
    dir = mkdtempSync(join(tmpdir(), 's3-get-'));
    const stand = await standIn('another-secret');
    server = stand.server;
    const result = await run(stand.base, join(dir, 'agent.tgz'));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('403');
    expect(() => readFileSync(join(dir, 'agent.tgz'))).toThrow();
  });
});
