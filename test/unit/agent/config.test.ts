import { describe, expect, it } from 'vitest';
import { ConfigError, configFromEnv } from '../../../agent/config.js';

const BASE = {
  DROVER_CONTROLLER_ID: 'c',
  DROVER_MACHINE_ID: '3',
  DROVER_API_URL: 'http://127.0.0.1:1',
  DROVER_AGENT_CREDENTIAL: 'secret',
};

describe('the machine agent heartbeat setting', () => {
  it('is 24 minutes, 1.2 × the 20-minute resync, unless DROVER_HEARTBEAT_SECONDS says otherwise', () => {
    // At 1.2 × the resync the resync always comes first: the heartbeat rides on it (agent/config.ts).
    expect(configFromEnv(BASE).resyncMs).toBe(1_200_000);
    expect(configFromEnv(BASE).heartbeatMs).toBe(1_440_000);
    expect(configFromEnv({ ...BASE, DROVER_HEARTBEAT_SECONDS: '2' }).heartbeatMs).toBe(2_000);
  });

  it('refuses a value that is not a positive number, naming the variable', () => {
    for (const bad of ['0', '-1', 'soon']) {
      expect(() => configFromEnv({ ...BASE, DROVER_HEARTBEAT_SECONDS: bad })).toThrow(ConfigError);
      expect(() => configFromEnv({ ...BASE, DROVER_HEARTBEAT_SECONDS: bad })).toThrow(
        `machine agent: DROVER_HEARTBEAT_SECONDS must be a positive number of seconds, not "${bad}"`,
      );
    }
  });
});

describe('the machine agent credential', () => {
  const { DROVER_AGENT_CREDENTIAL: _, ...noCredential } = BASE;

  it('is read from standard input under DROVER_AGENT_CREDENTIAL_STDIN=1, before any variable', () => {
    const config = configFromEnv({ ...BASE, DROVER_AGENT_CREDENTIAL_STDIN: '1' }, () => 'from-the-pipe\n'.trim());
    expect(config.credential).toBe('from-the-pipe');
  });

  it('is taken from DROVER_AGENT_CREDENTIAL where nothing else is set', () => {
    expect(configFromEnv(BASE, () => 'unused').credential).toBe('secret');
  });

  it('set nowhere, there is none: the agent signs with its instance role (EC2)', () => {
    expect(configFromEnv(noCredential, () => 'unused').credential).toBeUndefined();
  });

  it('promised on standard input and missing there is a ConfigError', () => {
    const env = { ...noCredential, DROVER_AGENT_CREDENTIAL_STDIN: '1' };
    expect(() => configFromEnv(env, () => '')).toThrow(ConfigError);
    expect(() => configFromEnv(env, () => '')).toThrow('machine agent: DROVER_AGENT_CREDENTIAL_STDIN=1 but standard input held no key');
  });
});

describe("the machine agent's model", () => {
  it('is the key DROVER_MODEL names, and `default` where it names none (agents started before there were many models)', () => {
    expect(configFromEnv({ ...BASE, DROVER_MODEL: '5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70' }).model).toBe(
      '5d2c4a8e-0d3b-4f7e-9c1a-2b3c4d5e6f70',
    );
    expect(configFromEnv(BASE).model).toBe('default');
  });
});

describe("the machine's authorized_keys file", () => {
  it("is the ubuntu user's on EC2, the machine directory's locally, or where DROVER_AUTHORIZED_KEYS_FILE says", () => {
    expect(configFromEnv(BASE).authorizedKeysFile).toBe('/home/ubuntu/.ssh/authorized_keys');
    expect(configFromEnv({ ...BASE, DROVER_MACHINE_DIR: '/data/machines/3' }).authorizedKeysFile).toBe(
      '/data/machines/3/.ssh/authorized_keys',
    );
    expect(configFromEnv({ ...BASE, DROVER_MACHINE_DIR: '/m', DROVER_AUTHORIZED_KEYS_FILE: '/k' }).authorizedKeysFile).toBe('/k');
  });
});

describe('where units’ storage goes on the machine', () => {
  it('under the local provider’s machine directory; on EC2, Juju’s /var/lib/juju/storage', () => {
    expect(configFromEnv({ ...BASE, DROVER_MACHINE_DIR: '/data/default/machine-3' }).storage).toEqual({
      dir: '/data/default/machine-3/storage',
      provider: 'local',
    });
    expect(configFromEnv(BASE).storage).toEqual({ dir: '/var/lib/juju/storage', provider: 'ec2' });
  });
});

describe("the local provider's settings for the agent", () => {
  it('take the hook sandbox and the queue key from the environment, and leave them out on EC2', () => {
    const sandbox = { kind: 'bwrap' as const, hidden: ['/srv/drover'] };
    const config = configFromEnv({ ...BASE, DROVER_HOOK_SANDBOX: JSON.stringify(sandbox), DROVER_SQS_ACCESS_KEY: 'agent:q:00' });
    expect(config).toMatchObject({ hookSandbox: sandbox, sqsAccessKey: 'agent:q:00' });
    expect(configFromEnv(BASE)).not.toHaveProperty('hookSandbox');
    expect(configFromEnv(BASE)).not.toHaveProperty('sqsAccessKey');
  });

  it('refuse a sandbox they cannot read: the agent stops rather than run hooks unconfined', () => {
    expect(() => configFromEnv({ ...BASE, DROVER_HOOK_SANDBOX: 'yes' })).toThrow(ConfigError);
    expect(() => configFromEnv({ ...BASE, DROVER_HOOK_SANDBOX: 'yes' })).toThrow(
      'machine agent: DROVER_HOOK_SANDBOX is not a sandbox: yes',
    );
  });
});
