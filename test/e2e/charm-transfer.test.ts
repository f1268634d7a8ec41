// Charms travel outside the API's requests and responses (docs/architecture.md, 'Charms'), on the
// real local controller (embedded/controller.ts): the CLI uploads a charm larger than any API
// request could carry to a signed URL, deploys it by reference, and its unit's agent downloads it
// from another signed URL and starts it. A hostile upload deploys nothing; a URL that is changed,
// expired, or given other bytes than it was signed for is refused.
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController } from '../../embedded/controller.js';
import { packEntries } from '#shared/charmstore/charm-archive.js';
import { archiveKey } from '#shared/charmstore/charm-store.js';
import { signLocalUrl } from '#shared/charmstore/signed-local-url.js';
import { CHARMS } from '../support/agents.js';
import { waitFor } from '../support/wait-for.js';
import { runCli, writeClientConfig } from '../support/cli.js';
import { silentLogger } from '../support/silent-logger.js';

const BLOB_BYTES = 12 * 2 ** 20;

let controller: Awaited<ReturnType<typeof startController>>;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'drover-e2e-charms-'));
  controller = await startController({ dataDir, logger: silentLogger, timers: { reconcileMs: 2_000 } });
  const home = mkdtempSync(join(tmpdir(), 'drover-e2e-charms-home-'));
  await writeClientConfig(home, 'local', { local: { type: 'local', apiUrl: controller.apiUrl, token: controller.token } });
  env = { DROVER_HOME: home };
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function userCall(
  op: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> & { error?: { message: string } } }> {
  const res = await fetch(`${controller.apiUrl}/v1/${op}`, {
    method: op === 'status' ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${controller.token}`, 'content-type': 'application/json' },
    ...(op === 'status' ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as never };
}

async function uploadTarget(bytes: Buffer): Promise<{ url: string; headers: Record<string, string> }> {
  const res = await userCall('charm-upload', { sha256: archiveKey(bytes), size: bytes.length });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as never;
}

const put = (url: string, headers: Record<string, string>, body: Buffer) =>
  fetch(new URL(url, controller.apiUrl), { method: 'PUT', headers, body: new Uint8Array(body) });

/** The unit's directory on whichever machine it landed. */
function unitDir(unit: string): string | undefined {
  const machines = join(dataDir, 'machines');
  if (!existsSync(machines)) return undefined;
  return readdirSync(machines)
    .map((m) => join(machines, m, 'units', unit.replace('/', '-')))
    .find((dir) => existsSync(dir));
}

describe('charms on the local controller', () => {
  it('a charm larger than 10 MB deploys through the CLI, and its unit starts', { timeout: 180_000 }, async () => {
    const charm = mkdtempSync(join(tmpdir(), 'drover-e2e-large-charm-'));
    cpSync(join(CHARMS, 'database'), charm, { recursive: true });
    // Random bytes do not compress: the archive is as large as they are.
    writeFileSync(join(charm, 'blob'), randomBytes(BLOB_BYTES));
    const deployed = await runCli(['deploy', charm, 'big'], env);
    expect(deployed, deployed.stderr).toMatchObject({ code: 0 });
    const hookLog = await waitFor(
      'big/0 to start',
      () => {
        const dir = unitDir('big/0');
        return dir && existsSync(join(dir, 'hook-log')) ? readFileSync(join(dir, 'hook-log'), 'utf8') : '';
      },
      (log) => log.includes('hook=start'),
      150_000,
    );
    expect(hookLog).toMatch(/hook=install[^\n]*\nhook=config-changed[^\n]*\nhook=start/);
    expect(statSync(join(unitDir('big/0')!, 'charm', 'blob')).size).toBe(BLOB_BYTES);
    const archives = readdirSync(join(dataDir, 'charms')).filter((f) => f.endsWith('.tar.gz'));
    expect(archives.map((f) => statSync(join(dataDir, 'charms', f)).size).some((size) => size > 10 * 2 ** 20)).toBe(true);
  });

  it('a hostile tar.gz upload is refused, and nothing is deployed', { timeout: 60_000 }, async () => {
    const metadata = 'name: hostile\nseries: [jammy]\n';
    const hostile = packEntries([
      { path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from(metadata) },
      { path: 'hooks', type: 'symlink', mode: 0o777, linkTarget: '/etc' },
    ]);
    const { url, headers } = await uploadTarget(hostile);
    expect((await put(url, headers, hostile)).status).toBe(200);
    const res = await userCall('deploy', { charm: { metadata, upload: archiveKey(hostile) } });
    expect(res.status).toBe(400);
    expect(res.body.error?.message).toBe('invalid charm archive: symlink "hooks" leaves the charm');
    const status = await userCall('status', {});
    expect(Object.keys(status.body.applications as object)).not.toContain('hostile');
    expect(existsSync(join(dataDir, 'charms', `${archiveKey(hostile)}.tar.gz`))).toBe(false);
  });

  it('an upload or download URL with a bad signature, or expired, is refused', { timeout: 60_000 }, async () => {
    const bytes = packEntries([{ path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from('name: x\n') }]);
    const { url, headers } = await uploadTarget(bytes);
    const tampered = url.replace(/signature=(.)/, (_, c: string) => `signature=${c === '0' ? '1' : '0'}`);
    const badPut = await put(tampered, headers, bytes);
    expect(badPut.status).toBe(403);
    const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as { charmUrlKey: string };
    const past = { now: new Date(Date.now() - 3_600_000) };
    const expiredPut = signLocalUrl(
      secrets.charmUrlKey,
      'PUT',
      `/charm-uploads/${archiveKey(bytes)}`,
      { size: String(bytes.length) },
      past,
    );
    const expired = await put(expiredPut, headers, bytes);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as { error: { message: string } }).error.message).toBe(
      'permission denied: the URL has expired; ask the API for a new one',
    );
    expect(existsSync(join(dataDir, 'charms', 'uploads', archiveKey(bytes)))).toBe(false);
    // Downloads too: the key in the data directory signs them, and nothing else does.
    expect((await put(url, headers, bytes)).status).toBe(200);
    const deployed = await userCall('deploy', {
      charm: { metadata: 'name: x\nseries: [jammy]\n', upload: archiveKey(bytes) },
      numUnits: 0,
    });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
    const archive = archiveKey(bytes);
    const good = signLocalUrl(secrets.charmUrlKey, 'GET', `/charm-archives/${archive}`);
    expect((await fetch(new URL(good, controller.apiUrl))).status).toBe(200);
    const forged = signLocalUrl('not the key', 'GET', `/charm-archives/${archive}`);
    expect((await fetch(new URL(forged, controller.apiUrl))).status).toBe(403);
    const old = signLocalUrl(secrets.charmUrlKey, 'GET', `/charm-archives/${archive}`, {}, past);
    expect((await fetch(new URL(old, controller.apiUrl))).status).toBe(403);
  });

  it('a PUT of other bytes than the sha256 signed is refused, and nothing is kept', { timeout: 60_000 }, async () => {
    const bytes = packEntries([{ path: 'metadata.yaml', type: 'file', mode: 0o644, data: Buffer.from('name: y\n') }]);
    const { url, headers } = await uploadTarget(bytes);
    const other = Buffer.from(bytes);
    other[other.length - 1]! ^= 0xff;
    const res = await put(url, headers, other);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^the upload's sha256 is [0-9a-f]{64}, not /);
    expect(existsSync(join(dataDir, 'charms', 'uploads', archiveKey(bytes)))).toBe(false);
    const deploy = await userCall('deploy', { charm: { metadata: 'name: y\nseries: [jammy]\n', upload: archiveKey(bytes) } });
    expect(deploy.status).toBe(400);
    expect(deploy.body.error?.message).toMatch(/^no charm upload with sha256 /);
  });
});
