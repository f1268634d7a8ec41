import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { ProviderError } from '../../../shared/provider/provider.js';
import { renderUserData, renderUserDataScript, shellQuote, type MachineAgentUserData } from '../../../shared/provider/ec2/user-data.js';

const data: MachineAgentUserData = {
  controllerId: 'ctl-1',
  machineId: '7',
  region: 'us-east-1',
  arch: 'amd64',
  apiUrl: 'https://api.example.com/prod',
  queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/drover-ctl-1-machine-7',
  agentBundleUrl: "https://bucket.s3.amazonaws.com/agent.tgz?X-Amz-Signature=abc&x=it's",
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

  it('installs Node.js 22 for the instance arch, verified by checksum', () => {
    expect(renderUserDataScript(data)).toContain('-linux-x64\\.tar\\.xz');
    expect(renderUserDataScript({ ...data, arch: 'arm64' })).toContain('-linux-arm64\\.tar\\.xz');
    expect(renderUserDataScript(data)).toContain('https://nodejs.org/dist/latest-v22.x/SHASUMS256.txt');
  });

  it('downloads the agent bundle from the given URL, shell-quoted', () => {
    expect(renderUserDataScript(data)).toContain(`fetch ${shellQuote(data.agentBundleUrl)} "$work/agent.tgz"`);
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
    expect(() => renderUserData({ ...data, agentBundleUrl: `https://x/${'a'.repeat(17_000)}` })).toThrow('user data exceeds 16384 bytes');
  });
});
