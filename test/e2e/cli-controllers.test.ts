// Controllers from the CLI: bootstrap local (a detached, supervised controller process, recorded and
// made current; restarted after a crash; started again on its data once stopped), kill-controller, register (an AWS controller, SigV4-signed), controllers, switch,
// unregister; and how the CLI fails when a controller cannot be reached — a clear message, exit
// 1, never a stack trace — and on usage errors (exit 2), run as a real process.
import { MAX_PAGE_ENTITIES } from '#shared/domain/status-page.js';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO, runCli, spawnCli, writeClientConfig } from '../support/cli.js';
import { signatureCheckingServer } from '../support/sigv4-api.js';
import { dynamoEndpoint } from '../support/dynamodb.js';
import { processesOfDataDir } from '../support/data-dir-processes.js';
import { waitFor } from '../support/wait-for.js';

const FAKE_CONTROLLER = join(REPO, 'test', 'support', 'fake-controller.ts');

let home: string;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function newHome(): Promise<Record<string, string>> {
  home = await mkdtemp(join(tmpdir(), 'drover-cli-home-'));
  return { DROVER_HOME: home, DROVER_CONTROLLER_MAIN: FAKE_CONTROLLER, DROVER_TEST_DYNAMODB_ENDPOINT: await dynamoEndpoint() };
}

const readConfig = async () => JSON.parse(await readFile(join(home, 'controllers.json'), 'utf8'));
/** Running, not merely a zombie (on a host whose init is slow to reap, an exited process lingers). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8'));
/** Leaves nothing of a test's controller running, supervisor first so it restarts nothing. */
const killEverythingOf = (dataDir: string) => async () => {
  const processes = processesOfDataDir(dataDir).sort(
    (a, b) => Number(b.command.includes('supervisor')) - Number(a.command.includes('supervisor')),
  );
  for (const { pid } of processes) if (alive(pid)) process.kill(pid, 'SIGKILL');
};

describe('bootstrap local and kill-controller', () => {
  it('starts the controller in the background, records it and switches to it; kill-controller stops and forgets it', async () => {
    const env = await newHome();
    const dataDir = join(home, 'ctl');
    const boot = await runCli(['bootstrap', 'local', '--data-dir', dataDir], env);
    expect(boot.stderr).toContain('Bootstrap complete, controller "local" is now available at http://127.0.0.1:');
    expect(boot.code).toBe(0);
    const config = await readConfig();
    expect(config.current).toBe('local');
    expect(config.controllers.local).toMatchObject({ type: 'local', dataDir, token: expect.any(String), pid: expect.any(Number) });
    const pid: number = config.controllers.local.pid;
    cleanups.push(killEverythingOf(dataDir));
    // The controller runs under its supervisor, which names itself in the data directory.
    const supervisor: number = (await readJson(join(dataDir, 'supervisor.json'))).pid;
    expect(alive(supervisor)).toBe(true);
    expect(supervisor).not.toBe(pid);
    // The token is a secret: the config is private.
    expect((await stat(join(home, 'controllers.json'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dataDir, 'controller.log'), 'utf8')).toContain('fake controller listening');

    const status = await runCli(['status'], env);
    expect(status.stdout).toMatch(/^Model +Controller .*\ndefault +fake /);
    expect((await runCli(['controllers'], env)).stdout).toMatch(/\nlocal\* +default +local +http:\/\/127\.0\.0\.1:\d+\n$/);
    const again = await runCli(['bootstrap', 'local', '--data-dir', join(home, 'other')], env);
    expect(again).toMatchObject({ code: 1, stderr: 'ERROR controller "local" already exists\n' });

    const declined = await runCli(['kill-controller', 'local'], env, { stdin: ['n'] });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain('Continue? (y/N): ERROR controller destruction aborted\n');
    expect(alive(pid)).toBe(true);

    const kill = await runCli(['kill-controller', 'local', '-y'], env);
    expect(kill).toMatchObject({ code: 0, stderr: 'Stopped controller "local"\n' });
    expect(alive(pid)).toBe(false);
    expect(alive(supervisor)).toBe(false);
    expect(processesOfDataDir(dataDir)).toEqual([]);
    await expect(stat(join(dataDir, 'controller.json'))).rejects.toThrow();
    await expect(stat(join(dataDir, 'supervisor.json'))).rejects.toThrow();
    expect(await readConfig()).toEqual({ controllers: {} });
  });

  it("prints the controller's warnings once bootstrapped (hooks not sandboxed, where bwrap cannot run)", async () => {
    const env = { ...(await newHome()), FAKE_CONTROLLER_WARNING: 'hooks are not sandboxed: bwrap is not installed' };
    const dataDir = join(home, 'ctl');
    // Its supervisor first: killed alone, the controller would be started again and outlive the test.
    cleanups.push(killEverythingOf(dataDir));
    const boot = await runCli(['bootstrap', 'local', '--data-dir', dataDir], env);
    expect(boot.code).toBe(0);
    expect(boot.stderr).toMatch(
      /\nModel "default" is ready; its data and log are in .*\nWARNING hooks are not sandboxed: bwrap is not installed\n$/,
    );
  });

  it('a controller that fails to start is reported with its log, and not recorded', async () => {
    const env = await newHome();
    const res = await runCli(['bootstrap', 'local', '--data-dir', join(home, 'ctl')], { ...env, FAKE_CONTROLLER_FAIL: 'port in use' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^ERROR the local controller stopped during startup \(exit code 3\); its log is .*controller\.log\n {2}fake controller: port in use\n$/,
    );
    expect((await runCli(['controllers'], env)).stderr).toMatch(/^No controllers registered/);
  });

  it('only the local cloud bootstraps here', async () => {
    const env = await newHome();
    const res = await runCli(['bootstrap', 'aws'], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^ERROR unknown cloud "aws": drover bootstraps "local"; .*drover register <api-url>/);
  });
});

describe('a supervised local controller', () => {
  it('killed (-9), it is restarted on its data at once, said in its log and debug-log, and answers again', async () => {
    const env = await newHome();
    const dataDir = join(home, 'ctl');
    expect((await runCli(['bootstrap', 'local', '--data-dir', dataDir], env)).code).toBe(0);
    cleanups.push(killEverythingOf(dataDir));
    const before = await readJson(join(dataDir, 'controller.json'));
    process.kill(before.pid, 'SIGKILL');
    const after = await waitFor(
      'the controller to be restarted',
      () => readJson(join(dataDir, 'controller.json')).catch(() => undefined),
      (f) => f !== undefined && f.pid !== before.pid && alive(f.pid),
      30_000,
    );
    expect(after).toMatchObject({ controllerId: before.controllerId, apiUrl: before.apiUrl });
    // The client recorded before the crash reaches the controller after it.
    expect((await runCli(['status'], env)).code).toBe(0);
    const said = `the controller (pid ${before.pid}) stopped unexpectedly (signal SIGKILL); restarting it now on the same data`;
    expect(await readFile(join(dataDir, 'controller.log'), 'utf8')).toContain(said);
    const debugLog = (await readFile(join(dataDir, 'logs', 'debug-log.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(debugLog).toContainEqual(expect.objectContaining({ entity: 'controller', level: 'ERROR', message: said }));

    expect(await runCli(['kill-controller', 'local', '-y'], env)).toMatchObject({ code: 0, stderr: 'Stopped controller "local"\n' });
    expect(processesOfDataDir(dataDir)).toEqual([]);
  });

  it('its supervisor killed (-9), it stops; bootstrap on its data directory starts it again, and says it runs once it does', async () => {
    const env = await newHome();
    const dataDir = join(home, 'ctl');
    expect((await runCli(['bootstrap', 'local', 'dev', '--data-dir', dataDir], env)).code).toBe(0);
    cleanups.push(killEverythingOf(dataDir));
    const first = await readJson(join(dataDir, 'controller.json'));
    process.kill((await readJson(join(dataDir, 'supervisor.json'))).pid, 'SIGKILL');
    await waitFor(
      'the controller to stop with its supervisor',
      () => processesOfDataDir(dataDir),
      (p) => p.length === 0,
      30_000,
    );

    // The connection error names the command that starts it again...
    const down = await runCli(['status'], env);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      new RegExp(`; is it running\\? start it again with "drover bootstrap local dev --data-dir ${dataDir}"\\n$`),
    );
    // ...and so does the name's owner's data directory alone: the controller recorded with it.
    const again = await runCli(['bootstrap', 'local', '--data-dir', dataDir], env);
    expect(again).toMatchObject({ code: 0 });
    expect(again.stderr).toBe(
      `Controller "dev" (${first.controllerId}) started again on its data in ${dataDir}; it is available at ${first.apiUrl}\n` +
        'Its models carry on, and its machine agents resume\n',
    );
    expect(Object.keys((await readConfig()).controllers)).toEqual(['dev']);
    expect((await runCli(['status'], env)).code).toBe(0);

    // Running: Juju's words for a controller that exists, and where it runs.
    const running = await runCli(['bootstrap', 'local', 'dev', '--data-dir', dataDir], env);
    const { pid } = await readJson(join(dataDir, 'controller.json'));
    expect(running).toMatchObject({
      code: 1,
      stderr: `ERROR controller "dev" already exists and is running from ${dataDir} (pid ${pid})\n`,
    });
    // Under another name, the running controller is to be registered, not started twice.
    const twice = await runCli(['bootstrap', 'local', 'other', '--data-dir', dataDir], env);
    expect(twice).toMatchObject({
      code: 1,
      stderr: `ERROR a controller is already running from ${dataDir} (pid ${pid}); add it with "drover register-local ${dataDir}", or bootstrap with another --data-dir\n`,
    });
    // Another directory under a name in use is refused as Juju refuses it.
    expect(await runCli(['bootstrap', 'local', 'dev', '--data-dir', join(home, 'elsewhere')], env)).toMatchObject({
      code: 1,
      stderr: 'ERROR controller "dev" already exists\n',
    });

    expect((await runCli(['kill-controller', 'dev', '-y'], env)).code).toBe(0);
    expect(processesOfDataDir(dataDir)).toEqual([]);
  });
});

describe('controllers, switch, unregister', () => {
  it('lists, switches and forgets controllers', async () => {
    const env = await newHome();
    await writeClientConfig(home, 'one', {
      one: { type: 'local', apiUrl: 'http://127.0.0.1:1', token: 't' },
      two: { type: 'aws', apiUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com', region: 'eu-west-1' },
    });
    expect((await runCli(['controllers'], env)).stdout).toBe(
      'Controller  Model    Type   Region     API URL\n' +
        'one*        default  local             http://127.0.0.1:1\n' +
        'two         default  aws    eu-west-1  https://abc.execute-api.eu-west-1.amazonaws.com\n',
    );
    const json = JSON.parse((await runCli(['controllers', '--format', 'json'], env)).stdout);
    expect(json['current-controller']).toBe('one');
    expect(JSON.stringify(json)).not.toContain('"t"'); // tokens are never printed
    expect((await runCli(['switch'], env)).stdout).toBe('one:default\n');
    expect((await runCli(['switch', 'two'], env)).stderr).toBe('one:default -> two:default\n');
    expect((await readConfig()).current).toBe('two');
    // A controller that is not known (a model name is looked for on the controller: test/e2e/cli-models.test.ts).
    expect(await runCli(['switch', 'three:default'], env)).toMatchObject({
      code: 1,
      stderr: 'ERROR "three:default" is not the name of a model or controller\n',
    });
    const kill = await runCli(['kill-controller', 'two', '-y'], env);
    expect(kill.stderr).toMatch(/^ERROR controller "two" runs on AWS: destroy it with "cdk destroy"/);
    await runCli(['unregister', 'two', '--no-prompt'], env);
    expect(await readConfig()).toEqual({ controllers: { one: { type: 'local', apiUrl: 'http://127.0.0.1:1', token: 't' } } });
    const none = await runCli(['status'], env);
    expect(none).toMatchObject({
      code: 1,
      stderr: 'ERROR no controller selected; use "drover switch <name>" (see "drover controllers")\n',
    });
    // -m picks a controller for one command.
    expect((await runCli(['-m', 'one:default', 'status'], env)).stderr).toMatch(/^ERROR cannot connect to controller "one"/);
  });
});

describe('register (an AWS controller)', () => {
  it('signs every request with SigV4 for execute-api, with credentials from the AWS chain', async () => {
    const env = await newHome();
    const api = await signatureCheckingServer('eu-west-1', 'secret-key');
    cleanups.push(api.close);
    const aws = { ...env, AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'secret-key', AWS_EC2_METADATA_DISABLED: 'true' };
    const reg = await spawnCli(['register', api.url, 'prod', '--region', 'eu-west-1'], aws);
    expect(reg.stderr).toBe('Registered controller "prod" (eu-west-1); it is now the current controller\n');
    expect((await readConfig()).controllers.prod).toEqual({ type: 'aws', apiUrl: api.url, region: 'eu-west-1' });
    const status = await spawnCli(['status'], aws);
    expect(status.stdout).toMatch(/^Model +Controller/);
    // register asks for the controller's models; status acts in the current model, `default`
    // (its page of entities, and its offers and consumed offers).
    expect(api.seen.sort()).toEqual([
      'GET /v1/cross-model-status signed in default',
      'GET /v1/models signed',
      `GET /v1/status?limit=${MAX_PAGE_ENTITIES} signed in default`,
    ]);

    const wrong = await spawnCli(['status'], { ...aws, AWS_SECRET_ACCESS_KEY: 'wrong' });
    expect(wrong).toMatchObject({ code: 1 });
    expect(wrong.stderr).toBe(
      'ERROR permission denied by controller "prod": The request signature we calculated does not match the signature you provided.\n',
    );
  });

  it('without AWS credentials, says how to configure them', async () => {
    const env = await newHome();
    const api = await signatureCheckingServer('eu-west-1', 'secret-key');
    cleanups.push(api.close);
    const res = await spawnCli(['register', api.url, '--region', 'eu-west-1'], {
      ...env,
      HOME: home,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: join(home, 'none'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^ERROR cannot sign the request to controller "aws": .*; configure AWS credentials/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe('as a process', () => {
  it('an unreachable controller gets a clear message, exit 1, and no stack trace', async () => {
    const env = await newHome();
    const port = await closedPort();
    await writeClientConfig(home, 'gone', { gone: { type: 'local', apiUrl: `http://127.0.0.1:${port}`, token: 't' } });
    const res = await spawnCli(['status'], env);
    expect(res).toEqual({
      code: 1,
      stdout: '',
      stderr: `ERROR cannot connect to controller "gone" at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}; is it running? (drover bootstrap local / drover controllers)\n`,
    });
  });

  it('usage errors exit 2; help lists every verb and exits 0', async () => {
    const env = await newHome();
    const usage = await spawnCli(['remove-unit', 'nonsense'], env);
    expect(usage).toEqual({ code: 2, stdout: '', stderr: 'ERROR invalid unit name "nonsense"\n' });
    expect((await spawnCli(['frobnicate'], env)).code).toBe(2);

    const help = await spawnCli(['help'], env);
    expect(help.code).toBe(0);
    for (const verb of [
      'bootstrap',
      'register',
      'controllers',
      'switch',
      'kill-controller',
      'deploy',
      'export-bundle',
      'diff-bundle',
      'add-unit',
      'add-machine',
      'remove-unit',
      'destroy-unit',
      'remove-application',
      'destroy-service',
      'remove-machine',
      'destroy-machine',
      'relate',
      'add-relation',
      'remove-relation',
      'destroy-relation',
      'set-constraints',
      'get-constraints',
      'set-model-constraints',
      'get-model-constraints',
      'model-config',
      'config',
      'resolved',
      'retry-provisioning',
      'expose',
      'unexpose',
      'status',
      'show-machine',
      'show-unit',
      'show-application',
      'debug-log',
      'show-status-log',
      'stuck',
    ]) {
      expect(help.stdout).toMatch(new RegExp(`(\\n  |Alias: (.*, )?)${verb}\\b`));
    }
    const verbHelp = await spawnCli(['deploy', '--help'], env);
    expect(verbHelp.code).toBe(0);
    expect(verbHelp.stdout).toContain(
      'Examples:\n  drover deploy postgresql --channel 14/stable   # from Charmhub\n  drover deploy ./charms/mysql\n',
    );
  });
});

describe('register-local (a controller started with npm start)', () => {
  it('records the controller running from a data directory', async () => {
    const env = await newHome();
    const dataDir = join(home, 'ctl');
    await runCli(['bootstrap', 'local', 'first', '--data-dir', dataDir], env);
    const pid: number = (await readConfig()).controllers.first.pid;
    cleanups.push(killEverythingOf(dataDir));
    const res = await runCli(['register-local', dataDir, 'again'], env);
    expect(res.stderr).toMatch(/^Registered controller "again" at http:\/\/127\.0\.0\.1:\d+; it is now the current controller\n$/);
    expect((await runCli(['status'], env)).code).toBe(0);
    const missing = await runCli(['register-local', join(home, 'nothing')], env);
    expect(missing.stderr).toMatch(/^ERROR no running controller in .*nothing \(no controller.json\)/);
    await runCli(['kill-controller', 'again', '-y'], env);
    expect(alive(pid)).toBe(false);
    expect(processesOfDataDir(dataDir)).toEqual([]);
  });
});
