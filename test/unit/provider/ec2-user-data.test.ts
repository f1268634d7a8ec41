import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_RELEASE, nodeTarball } from '#shared/provider/ec2/node-release.js';
import { ProviderError } from '#shared/provider/provider.js';
import { renderUserData, renderUserDataScript, shellQuote, type MachineAgentUserData } from '#shared/provider/ec2/user-data.js';

const data: MachineAgentUserData = {
  controllerId: 'ctl-1',
  model: 'default',
  machineId: '7',
  region: 'us-east-1',
  arch: 'amd64',
  apiUrl: 'https://api.example.com/prod',
  queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/drover-ctl-1-machine-7',
  agentBundle: { url: "https://bucket.s3.amazonaws.com/agent.tgz?X-Amz-Signature=abc&x=it's" },
};

describe('machine agent user data', () => {
  it('is base64 of the script, as RunInstances expects', () => {
    expect(Buffer.from(renderUserData(data), 'base64').toString('utf8')).toBe(renderUserDataScript(data));
  });

  it('restarts the agent only when it fails: an agent whose machine is Dead exits 0 and must not run again', () => {
    const script = renderUserDataScript(data);
    expect(script).toContain('Restart=on-failure');
    expect(script).not.toContain('Restart=always');
  });

  it('is a bash script that parses', () => {
    const result = spawnSync('bash', ['-n'], { input: renderUserDataScript(data) });
    expect(result.stderr.toString()).toBe('');
    expect(result.status).toBe(0);
  });

  it('writes the machine id, API URL and queue URL to a root-only env file', () => {
    const script = renderUserDataScript(data);
    const envFile = /<<'DROVER_ENV_END'\n([\s\S]*?)\nDROVER_ENV_END\n/.exec(script)?.[1];
    expect(envFile?.split('\n')).toEqual([
      'DROVER_CONTROLLER_ID=ctl-1',
      'DROVER_MACHINE_ID=7',
      'DROVER_API_URL=https://api.example.com/prod',
      `DROVER_QUEUE_URL=${data.queueUrl}`,
      'AWS_REGION=us-east-1',
    ]);
    expect(script).toContain('umask 077');
    expect(script).toContain('chmod 0600 /etc/drover/machine-agent.env');
    expect(script).toContain('EnvironmentFile=/etc/drover/machine-agent.env');
  });

  it("carries no credential: the instance role is the agent's identity", () => {
    const script = renderUserDataScript(data);
    expect(script).not.toMatch(/CREDENTIAL|SECRET|PASSWORD|TOKEN=/i);
  });

  it('installs the pinned Node.js release for the instance arch, from nodejs.org, never the latest', () => {
    const amd64 = renderUserDataScript(data);
    const arm64 = renderUserDataScript({ ...data, arch: 'arm64' });
    const v = NODE_RELEASE.version;
    expect(amd64).toContain(`fetch 'https://nodejs.org/dist/v${v}/node-v${v}-linux-x64.tar.xz' "$work/node.tar.xz"`);
    expect(arm64).toContain(`fetch 'https://nodejs.org/dist/v${v}/node-v${v}-linux-arm64.tar.xz' "$work/node.tar.xz"`);
    // The digest is the repository's: nothing downloaded decides what is trusted.
    expect(amd64).toContain(`'${NODE_RELEASE.sha256.x64}  node.tar.xz'`);
    expect(arm64).toContain(`'${NODE_RELEASE.sha256.arm64}  node.tar.xz'`);
    for (const script of [amd64, arm64]) expect(script).not.toMatch(/latest|SHASUMS256/);
  });

  it('pins a Node.js 22 release with one SHA-256 per arch', () => {
    expect(NODE_RELEASE.version).toMatch(/^22\.\d+\.\d+$/);
    expect(Object.keys(NODE_RELEASE.sha256).sort()).toEqual(['arm64', 'x64']);
    for (const digest of Object.values(NODE_RELEASE.sha256)) expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(NODE_RELEASE.sha256.x64).not.toBe(NODE_RELEASE.sha256.arm64);
    expect(nodeTarball('amd64').sha256).toBe(NODE_RELEASE.sha256.x64);
  });

  it('stops the boot when the Node.js tarball is not the pinned one', () => {
    const check = renderUserDataScript(data)
      .split('\n')
      .find((line) => line.includes('node.tar.xz') && line.includes('sha256sum'));
    expect(check).toBeDefined();
    const work = mkdtempSync(join(tmpdir(), 'drover-node-check-'));
    try {
      writeFileSync(join(work, 'node.tar.xz'), 'not the release');
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', check!], { env: { ...process.env, work } });
      expect(result.status).not.toBe(0);
      expect(result.stdout.toString() + result.stderr.toString()).toContain('FAILED');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('downloads the agent bundle from the given URL, shell-quoted', () => {
    const url = "https://bucket.s3.amazonaws.com/agent.tgz?X-Amz-Signature=abc&x=it's";
    expect(renderUserDataScript(data)).toContain(`fetch ${shellQuote(url)} "$work/agent.tgz"`);
  });

  it('or reads it from its bucket with the instance role, retrying, in a script bash accepts', () => {
    const script = renderUserDataScript({ ...data, agentBundle: { bucket: 'cdk-assets', key: "a'b.tgz" } });
    expect(script).toContain(`s3_get 'cdk-assets' ${shellQuote("a'b.tgz")} 'us-east-1' "$work/agent.tgz" && break`);
    expect(script).toContain('python3 - "$@" <<\'DROVER_S3_GET_END\'');
    expect(spawnSync('bash', ['-n', '-c', script]).status).toBe(0);
  });

  it('verifies the agent bundle when a checksum is given', () => {
    const sha = 'ab'.repeat(32);
    expect(renderUserDataScript({ ...data, agentBundleSha256: sha })).toContain(`'${sha}  agent.tgz'`);
    expect(() => renderUserDataScript({ ...data, agentBundleSha256: 'nope' })).toThrow(ProviderError);
  });

  it('starts the agent as an enabled systemd service', () => {
    const script = renderUserDataScript(data);
    expect(script).toContain('ExecStart=/opt/drover/node/bin/node /opt/drover/agent/machine-agent.js');
    expect(script).toContain('systemctl enable --now drover-machine-agent.service');
  });

  it('refuses a value an env file cannot carry', () => {
    let err: unknown;
    try {
      renderUserDataScript({ ...data, queueUrl: 'https://q/bad"value$(reboot)' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toContain('DROVER_QUEUE_URL');
    expect((err as ProviderError).transient).toBe(false);
  });

  it('refuses user data over the 16 KiB RunInstances allows', () => {
    expect(() => renderUserData({ ...data, agentBundle: { url: `https://x/${'a'.repeat(17_000)}` } })).toThrow(
      'user data exceeds 16384 bytes',
    );
  });
});
