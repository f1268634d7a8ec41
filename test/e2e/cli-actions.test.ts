// `drover actions`, `run`, `show-task`, `operations`, `show-operation` and `exec` against a real
// API over DynamoDB Local, with a real machine agent running the action-box charm's actions.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSequence } from '#shared/state/engine/reads.js';
import { startAgentHarness, unitOf, type AgentHarness } from '../support/agents.js';
import { waitFor } from '../support/wait-for.js';
import { charmDir, runCli, writeClientConfig, type CliResult } from '../support/cli.js';

let h: AgentHarness;
let env: Record<string, string>;
const drover = (args: string[]): Promise<CliResult> => runCli(args, env);

beforeAll(async () => {
  h = await startAgentHarness();
  const home = mkdtempSync(join(tmpdir(), 'drover-cli-actions-'));
  await writeClientConfig(home, 'test', { test: { type: 'local', apiUrl: h.api.url, token: 'test-token' } });
  env = { DROVER_HOME: home };
  const deployed = await drover(['deploy', charmDir('action-box'), 'box']);
  expect(deployed.code, deployed.stderr).toBe(0);
  await h.startAgent('0');
  await waitFor(
    'box/0 idle',
    () => unitOf(h, 'box/0'),
    (u) => u?.agentStatus.current === 'idle',
  );
});
afterAll(async () => {
  await h?.stop();
});

describe('actions', () => {
  it("lists the charm's actions, and their schemas with --schema", async () => {
    const listed = await drover(['actions', 'box']);
    expect(listed.stdout).toMatch(/^Action\s+Description\ncrash\s+Exit 3 after writing to stderr\.\ngreet\s+Say hello/);
    const schema = await drover(['actions', 'box', '--schema', '--format', 'json']);
    expect(JSON.parse(schema.stdout).greet).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { name: { type: 'string', default: 'world' } },
    });
  });

  it('a bad actions.yaml fails deploy, with its message, before anything is sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bad-actions-'));
    writeFileSync(join(dir, 'metadata.yaml'), 'name: bad\nseries: [jammy]\n');
    writeFileSync(join(dir, 'actions.yaml'), 'Backup: {}\n');
    const res = await drover(['deploy', dir]);
    expect(res).toMatchObject({ code: 1, stderr: 'ERROR actions.yaml: bad action name Backup\n' });
  });
});

describe('run', () => {
  it('waits and prints the results as YAML, the action-log lines on stderr', async () => {
    const res = await drover(['run', 'box/0', 'greet', 'name=drover', 'times=2']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/^Running operation \d+ with 1 task\n {2}- task \d+ on unit-box-0\n\nWaiting for task \d+\.\.\.\n/);
    expect(res.stderr).toMatch(/ \+0000 UTC greeting drover\n/);
    expect(res.stdout).toContain('greeting: hello drover\n');
    expect(res.stdout).toContain('times: "2"\n');
    expect(res.stdout).toContain('said hello to drover\n');
    expect(res.stdout).not.toContain('return-code');
  });

  it('--background prints the operation and task ids and how to check them; show-task and show-operation show them', async () => {
    const res = await drover(['run', 'box/0', 'refuse', '--background']);
    expect(res.code, res.stderr).toBe(0);
    const [, operation, task] = /^Scheduled operation (\d+) with task (\d+)\n/.exec(res.stdout) ?? [];
    expect(res.stdout).toBe(
      `Scheduled operation ${operation} with task ${task}\nCheck operation status with 'drover show-operation ${operation}'\nCheck task status with 'drover show-task ${task}'\n`,
    );
    expect(Number(task)).toBe(Number(operation) + 1);
    await waitFor(
      'the task to fail',
      () => drover(['show-task', task!, '--format', 'json']),
      (r) => JSON.parse(r.stdout).status === 'failed',
    );
    const shown = await drover(['show-task', task!]);
    expect(shown.code).toBe(1);
    expect(shown.stdout).toBe('partial: yes\n');
    expect(shown.stderr).toBe(`Action id ${task} failed: no way\n`);
    const yaml = await drover(['show-task', task!, '--format', 'yaml']);
    expect(yaml.stdout).toMatch(
      new RegExp(`^id: "${task}"\nmessage: no way\nresults:\n  partial: yes\n  return-code: 0\nstatus: failed\ntiming:\n`),
    );
    const op = await drover(['show-operation', operation!]);
    expect(op.stdout).toContain('summary: refuse run on unit-box-0\nstatus: failed\naction:\n  name: refuse\n');
    expect(op.stdout).toContain(`tasks:\n  "${task}":\n    host: box/0\n    status: failed\n`);
    const listed = await drover(['operations']);
    expect(listed.stdout).toMatch(/^ID\s+Status\s+Started\s+Finished\s+Task IDs\s+Summary\n/);
    expect(listed.stdout).toMatch(new RegExp(`\\n${operation}\\s+failed\\s+\\S+\\s+\\S+\\s+${task}\\s+refuse run on unit-box-0\\n`));
    expect((await drover(['list-operations'])).stdout).toBe(listed.stdout);
    // Juju's filters: by status, action, application, unit.
    expect((await drover(['operations', '--status', 'completed'])).stdout).not.toContain('refuse run');
    expect((await drover(['operations', '--actions', 'refuse', '--apps', 'box'])).stdout).toContain('refuse run on unit-box-0');
    expect((await drover(['operations', '--units', 'box/1'])).stderr).toBe('No operations to display.\n');
    expect(await drover(['operations', '--status', 'done'])).toMatchObject({ code: 2 });
  });

  it('an undefined action, params failing the schema or an unknown unit schedule nothing, as Juju 3.6 says (exit 0, nothing on stdout); usage errors exit 2', async () => {
    const before = await getSequence(h.store, 'task');
    const unscheduled = (message: string) => ({ code: 0, stdout: '', stderr: `Operation failed to schedule any tasks:\n${message}\n` });
    expect(await drover(['run', 'box/0', 'dance'])).toEqual(unscheduled('action "dance" not defined on unit "box/0"'));
    expect(await drover(['run', 'box/0', 'greet', 'times=0', '--format', 'json'])).toEqual(
      unscheduled('validation failed: times : must be >= 1'),
    );
    expect(await drover(['run', 'box/7', 'greet', '--format', 'json'])).toEqual(unscheduled('unit "box/7" not found'));
    expect(await drover(['exec', '--unit', 'box/7', '--format', 'json', '--', 'true'])).toEqual(unscheduled('unit "box/7" not found'));
    expect(await drover(['run', 'box/0', 'greet', 'Name=x'])).toMatchObject({ code: 2 });
    expect(await drover(['run', 'box/0', 'db/0', 'greet'])).toMatchObject({
      code: 2,
      stderr: 'ERROR all units must be of the same application\n',
    });
    expect(await drover(['run'])).toMatchObject({ code: 2, stderr: 'ERROR no unit specified\n' });
    expect(await drover(['run', 'box/0'])).toMatchObject({ code: 2, stderr: 'ERROR no action specified\n' });
    expect(await getSequence(h.store, 'task')).toBe(before);
  });

  it("--format json is Juju 3.6's document by unit, as jubilant reads it; a process exiting non-zero fails with Juju's words", async () => {
    const ok = await drover(['run', '--format', 'json', 'box/leader', 'greet', 'name=json']);
    expect(ok.code, ok.stderr).toBe(0);
    const task = JSON.parse(ok.stdout)['box/0'];
    expect(task).toMatchObject({ id: expect.stringMatching(/^\d+$/), status: 'completed', unit: 'box/0' });
    expect(task.results).toMatchObject({ greeting: 'hello json', 'return-code': 0 });
    expect(Object.keys(task.timing)).toEqual(['completed', 'enqueued', 'started']);
    // action-fail: the task failed but its process exited 0, so the command succeeds (jubilant raises on the status).
    const refused = await drover(['run', '--format', 'json', 'box/0', 'refuse']);
    expect(refused.code, refused.stderr).toBe(0);
    expect(JSON.parse(refused.stdout)['box/0']).toMatchObject({ status: 'failed', message: 'no way' });
    const crashed = await drover(['run', '--format', 'json', 'box/0', 'crash']);
    const id = JSON.parse(crashed.stdout)['box/0'].id;
    expect(crashed.code).toBe(1);
    expect(crashed.stderr).toContain(
      `ERROR the following task failed:\n - id "${id}" with return code 3\n\nuse 'drover show-task' to inspect the failure\n`,
    );
  });
});

describe('exec', () => {
  it("prints one unit's command output, its stderr too, and fails as Juju 3.6 when the command exits non-zero", async () => {
    const ok = await drover(['exec', '--unit', 'box/0', '--', 'echo', '$JUJU_UNIT_NAME', '&&', 'config-get', 'colour']);
    expect(ok).toEqual({ code: 0, stdout: 'box/0\nblue\n', stderr: '' });
    const bad = await drover(['exec', '--unit', 'box/0', '--', 'echo out; echo nope >&2; exit 3']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('out\nnope\n');
    expect(bad.stderr).toMatch(
      /^ERROR the following task failed:\n - id "\d+" with return code 3\n\nuse 'drover show-task' to inspect the failure\n$/,
    );
  });

  it('keys every object inherits are stored through the hook tools and read back; __proto__ is refused by the tool', async () => {
    const set = await drover(['exec', '--unit', 'box/0', '--', 'state-set constructor=a toString=b && leader-set constructor=c']);
    expect(set, set.stderr).toMatchObject({ code: 0 });
    const got = await drover(['exec', '--unit', 'box/0', '--', 'state-get constructor; state-get toString; leader-get constructor']);
    expect(got).toEqual({ code: 0, stdout: 'a\nb\nc\n', stderr: '' });
    const refused = await drover(['exec', '--unit', 'box/0', '--', 'state-set __proto__=x']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('key "__proto__" cannot be stored; choose another name');
  });

  it('--application targets every unit; --format yaml prints a document by unit', async () => {
    const res = await drover(['exec', '--application', 'box', '--format', 'yaml', '--', 'hostname >/dev/null; echo hi']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(
      /^box\/0:\n {2}id: "\d+"\n {2}results:\n {4}return-code: 0\n {4}stdout: \|\n {6}hi\n {2}status: completed\n/,
    );
  });

  it("--unit <app>/leader, --machine and --all, as jubilant calls them: JSON by receiver; a failing command fails with Juju's words", async () => {
    const leader = await drover(['exec', '--format', 'json', '--unit', 'box/leader', '--', 'echo $JUJU_UNIT_NAME']);
    expect(leader.code, leader.stderr).toBe(0);
    expect(JSON.parse(leader.stdout)['box/0']).toMatchObject({ status: 'completed', results: { 'return-code': 0, stdout: 'box/0\n' } });
    const machine = await drover(['exec', '--format', 'json', '--machine', '0', '--wait', '60s', '--', 'echo', 'on-machine']);
    expect(machine.code, machine.stderr).toBe(0);
    expect(JSON.parse(machine.stdout)['0']).toMatchObject({ results: { stdout: 'on-machine\n' } });
    const all = await drover(['exec', '--format', 'json', '--all', '--', 'true']);
    expect(Object.keys(JSON.parse(all.stdout))).toEqual(['0']);
    const failed = await drover(['exec', '--format', 'json', '--unit', 'box/0', '--', 'echo oops >&2; exit 2']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)['box/0']).toMatchObject({ status: 'failed', results: { 'return-code': 2, stderr: 'oops\n' } });
    expect(failed.stderr).toMatch(/ERROR the following task failed:\n - id "\d+" with return code 2\n/);
  });

  it("refuses a missing or bad target in Juju's words (exit 2), and a machine with no unit", async () => {
    expect(await drover(['exec', '--', 'true'])).toMatchObject({
      code: 2,
      stderr: 'ERROR You must specify a target, either through --all, --machine, --application or --unit\n',
    });
    expect(await drover(['exec', '--all', '--machine', '0', '--', 'true'])).toMatchObject({
      code: 2,
      stderr: 'ERROR You cannot specify --all and individual machines\n',
    });
    expect(await drover(['exec', '--unit', 'box', '--machine', 'x', '--', 'true'])).toMatchObject({
      code: 2,
      stderr: 'ERROR The following exec targets are not valid:\n  "x" is not a valid machine id\n  "box" is not a valid unit name\n',
    });
    expect(await drover(['exec', '--machine', '9', '--', 'true'])).toMatchObject({
      code: 0,
      stderr: 'Operation failed to schedule any tasks:\nmachine 9 not found\n',
    });
  });
});
