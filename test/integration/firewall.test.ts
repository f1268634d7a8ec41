// `expose` on AWS, end to end but for EC2: state in DynamoDB Local as the API leaves it (a hook's
// open-port and close-port through the agent route set-unit-ports, signed by the unit's machine;
// expose and unexpose through the user routes), the provisioner's full reconcile
// (shared/provisioner/reconcile-all.ts) running the firewall step, and EC2 a mock that keeps the
// groups and instances it is told about, so each run sees what the last one did.
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  DeleteSecurityGroupCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  EC2ServiceException,
  ModifyInstanceAttributeCommand,
  RevokeSecurityGroupIngressCommand,
  type DescribeSecurityGroupsCommandInput,
  type Filter,
  type IpPermission,
  type SecurityGroup,
} from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../functions/api/handler.js';
import { localCharmStore } from '#shared/charmstore/local-charm-store.js';
import type { PortChange } from '#shared/domain/plans/unit-ports.js';
import { Ec2Firewall } from '#shared/provider/ec2/firewall.js';
import type { InstanceInfo, Provider } from '#shared/provider/provider.js';
import type { MachineQueues, ProvisionerDeps } from '#shared/provisioner/deps.js';
import { reconcileAll } from '#shared/provisioner/reconcile-all.js';
import { hashAgentCredential, setAgentCredentialHash } from '#shared/state/operations/agent-credential.js';
import { deploy } from '#shared/state/operations/deploy.js';
import { setExposed } from '#shared/state/operations/application-config.js';
import { addModel, ensureModel } from '#shared/state/operations/model.js';
import { recordInstance } from '#shared/state/operations/provisioning.js';
import { storeForModel, type Store } from '#shared/state/engine/store.js';
import { agentEvent, testAgentKeys } from '../support/agent-events.js';
import { apiEvent } from '../support/api-events.js';
import { charms } from '../support/charms.js';
import { freshStore } from '../support/table.js';
import { silentLogger } from '../support/silent-logger.js';

const CONTROLLER = 'fw-ctl';
const SHARED = 'sg-shared';
const VPC = 'vpc-machines';
const ec2Mock = mockClient(EC2Client);

/** EC2's security groups and instances, as far as the firewall sees them. */
class FakeEc2 {
  readonly groups = new Map<string, SecurityGroup>([
    [SHARED, { GroupId: SHARED, GroupName: 'machines', VpcId: VPC, IpPermissions: [], Tags: [] }],
  ]);
  readonly instanceGroups = new Map<string, string[]>();
  /** The model and machine of an instance not of `default` (whose machine id follows `i-`). */
  readonly instanceMachines = new Map<string, { model: string; machineId: string }>();
  private next = 1;

  constructor() {
    const refuse = (name: string) => new EC2ServiceException({ name, message: name, $fault: 'client', $metadata: { httpStatusCode: 400 } });
    ec2Mock.on(DescribeSecurityGroupsCommand).callsFake((input: DescribeSecurityGroupsCommandInput) => ({
      SecurityGroups: [...this.groups.values()]
        .filter((g) => (input.Filters ?? []).every((f) => matches(g, f)))
        .map((g) => structuredClone(g)),
    }));
    ec2Mock.on(CreateSecurityGroupCommand).callsFake((input) => {
      if ([...this.groups.values()].some((g) => g.GroupName === input.GroupName && g.VpcId === input.VpcId))
        throw refuse('InvalidGroup.Duplicate');
      const GroupId = `sg-app${this.next++}`;
      this.groups.set(GroupId, {
        GroupId,
        GroupName: input.GroupName,
        VpcId: input.VpcId,
        IpPermissions: [],
        Tags: input.TagSpecifications?.[0]?.Tags ?? [],
      });
      return { GroupId };
    });
    ec2Mock.on(AuthorizeSecurityGroupIngressCommand).callsFake((input) => {
      const group = this.groups.get(input.GroupId)!;
      for (const p of input.IpPermissions ?? []) {
        if (group.IpPermissions!.some((q) => ruleKey(q) === ruleKey(p))) throw refuse('InvalidPermission.Duplicate');
        group.IpPermissions!.push(p);
      }
      return {};
    });
    ec2Mock.on(RevokeSecurityGroupIngressCommand).callsFake((input) => {
      const group = this.groups.get(input.GroupId)!;
      for (const p of input.IpPermissions ?? []) {
        if (!group.IpPermissions!.some((q) => ruleKey(q) === ruleKey(p))) throw refuse('InvalidPermission.NotFound');
        group.IpPermissions = group.IpPermissions!.filter((q) => ruleKey(q) !== ruleKey(p));
      }
      return {};
    });
    ec2Mock.on(ModifyInstanceAttributeCommand).callsFake((input) => {
      this.instanceGroups.set(input.InstanceId, input.Groups ?? []);
      return {};
    });
    ec2Mock.on(DescribeInstancesCommand).callsFake(() => ({
      Reservations: [
        {
          Instances: [...this.instanceGroups].map(([InstanceId, groups]) => ({
            InstanceId,
            State: { Name: 'running' as const },
            SecurityGroups: groups.map((GroupId) => ({ GroupId })),
          })),
        },
      ],
    }));
    ec2Mock.on(DeleteSecurityGroupCommand).callsFake((input) => {
      if ([...this.instanceGroups.values()].some((groups) => groups.includes(input.GroupId!))) throw refuse('DependencyViolation');
      this.groups.delete(input.GroupId!);
      return {};
    });
  }

  /** What reaches the instance from anywhere: `<port>/<protocol>` of every rule of every group it has. */
  reachable(instanceId: string): string[] {
    return (this.instanceGroups.get(instanceId) ?? [])
      .flatMap((id) => this.groups.get(id)?.IpPermissions ?? [])
      .filter((p) => p.IpRanges?.some((r) => r.CidrIp === '0.0.0.0/0'))
      .map((p) => `${p.FromPort === p.ToPort ? p.FromPort : `${p.FromPort}-${p.ToPort}`}/${p.IpProtocol}`)
      .sort();
  }

  appGroups(): SecurityGroup[] {
    return [...this.groups.values()].filter((g) => g.GroupId !== SHARED);
  }
}

function matches(group: SecurityGroup, filter: Filter): boolean {
  const values = filter.Values ?? [];
  const name = filter.Name ?? '';
  if (name.startsWith('tag:')) return group.Tags?.some((t) => t.Key === name.slice(4) && values.includes(t.Value ?? '')) ?? false;
  if (name === 'tag-key') return group.Tags?.some((t) => values.includes(t.Key ?? '')) ?? false;
  if (name === 'vpc-id') return values.includes(group.VpcId ?? '');
  if (name === 'group-name') return values.includes(group.GroupName ?? '');
  throw new Error(`the fake EC2 has no filter ${name}`);
}

const ruleKey = (p: IpPermission) => `${p.IpProtocol} ${p.FromPort}-${p.ToPort} ${p.IpRanges?.map((r) => r.CidrIp).join(',')}`;

/** The provider the provisioner sees: the instances recorded in state, and the ec2 firewall on the mock. */
function providerFor(fake: FakeEc2): Provider {
  const firewall = new Ec2Firewall({
    client: new EC2Client({ region: 'us-east-1' }),
    deploymentId: 'dep-1',
    vpcId: VPC,
    sharedGroupIds: [SHARED],
  });
  return {
    startInstance: () => Promise.reject(new Error('no machine should need starting here')),
    stopInstances: async () => undefined,
    listInstances: async (): Promise<InstanceInfo[]> =>
      [...fake.instanceGroups.keys()].map((instanceId) => ({
        instanceId,
        ...(fake.instanceMachines.get(instanceId) ?? { model: 'default', machineId: instanceId.slice(2) }),
        state: 'running',
        addresses: [],
      })),
    firewall,
  };
}

const noQueues: MachineQueues = {
  ensure: () => Promise.reject(new Error('no queue should be needed here')),
  remove: async () => undefined,
  admitOnly: async () => undefined,
};

const TOKEN = 'token';
let store: Store;
let fake: FakeEc2;
let deps: ProvisionerDeps;
let api: ReturnType<typeof createApiHandler>;

/** A user's request (expose, unexpose), which must succeed. */
async function user(operation: 'expose' | 'unexpose', application: string) {
  const res = await api(apiEvent('POST', `/v1/${operation}`, { application }, TOKEN));
  expect(res.statusCode, String(res.body)).toBe(200);
}

/** A hook's open-port and close-port, as the unit's agent commits them, signed by its machine (of `model`, a key). */
async function hookPorts(unit: string, machine: string, changes: PortChange[], model?: string) {
  const res = await api(await agentEvent('POST', '/v1/agent/set-unit-ports', { unit, changes }, { machine, ...(model ? { model } : {}) }));
  expect(res.statusCode, String(res.body)).toBe(200);
}

const mutatingCalls = () =>
  [
    CreateSecurityGroupCommand,
    AuthorizeSecurityGroupIngressCommand,
    RevokeSecurityGroupIngressCommand,
    ModifyInstanceAttributeCommand,
    DeleteSecurityGroupCommand,
  ]
    .map((command) => ec2Mock.commandCalls(command as never).length)
    .reduce((a, b) => a + b, 0);

async function reconcile() {
  const result = await reconcileAll(deps);
  expect(result.failures).toEqual([]);
  return result;
}

beforeEach(async () => {
  ec2Mock.reset();
  fake = new FakeEc2();
  store = await freshStore();
  await ensureModel(store);
  // wordpress/0 and /1 on machines 0 and 1, mysql/0 on machine 2: each started as an instance
  // that has the machines' shared group.
  await deploy(store, { charm: charms.wordpress, numUnits: 2 });
  await deploy(store, { charm: charms.mysql, numUnits: 1 });
  for (const machine of ['0', '1', '2']) {
    await setAgentCredentialHash(store, machine, hashAgentCredential(`secret-${machine}`), 0);
    await recordInstance(store, machine, { instanceId: `i-${machine}`, attempt: 0 });
    fake.instanceGroups.set(`i-${machine}`, [SHARED]);
  }
  deps = { store, provider: providerFor(fake), queues: noQueues, controllerId: CONTROLLER, apiUrl: 'http://127.0.0.1:1/api' };
  api = createApiHandler({
    store,
    charms: localCharmStore(join(await mkdtemp(join(tmpdir(), 'drover-firewall-')), 'charms')),
    auth: { kind: 'token', token: TOKEN },
    agents: { kind: 'machine-keys', keys: testAgentKeys },
    controller: 'test',
    logger: silentLogger,
  });
  await hookPorts('wordpress/0', '0', [{ action: 'open', range: '80' }]);
  await hookPorts('wordpress/1', '1', [
    { action: 'open', range: '80' },
    { action: 'open', range: '443/tcp' },
  ]);
  await hookPorts('mysql/0', '2', [{ action: 'open', range: '3306' }]);
});

describe('expose on AWS', () => {
  it("a second model's application of the same name gets a group of its own, on its own instance, and no run deletes either", async () => {
    // wordpress/0 of model `other`, on that model's machine 0, with port 8080 open.
    const other = storeForModel(store, (await addModel(store, { name: 'other' })).uuid!);
    await deploy(other, { charm: charms.wordpress, numUnits: 1 });
    await setAgentCredentialHash(other, '0', hashAgentCredential('secret-0'), 0);
    await recordInstance(other, '0', { instanceId: 'i-other-0', attempt: 0 });
    fake.instanceGroups.set('i-other-0', [SHARED]);
    fake.instanceMachines.set('i-other-0', { model: other.model, machineId: '0' });
    await hookPorts('wordpress/0', '0', [{ action: 'open', range: '8080' }], other.model);
    await user('expose', 'wordpress');
    await setExposed(other, 'wordpress', true);

    const result = await reconcile();
    expect(result.strays).toEqual([]);
    expect(
      fake
        .appGroups()
        .map((g) => g.GroupName)
        .sort(),
    ).toEqual([`drover-${CONTROLLER}-wordpress`, `drover-${CONTROLLER}-${other.model}.wordpress`].sort());
    expect(fake.reachable('i-0')).toEqual(['443/tcp', '80/tcp']);
    expect(fake.reachable('i-other-0')).toEqual(['8080/tcp']);
    // A second run finds nothing to change: each model's group is the other's no stray.
    ec2Mock.resetHistory();
    await reconcile();
    expect(mutatingCalls()).toBe(0);
  });

  it('opens nothing while no application is exposed, whatever ports the units opened', async () => {
    await reconcile();
    expect(mutatingCalls()).toBe(0);
    for (const instance of ['i-0', 'i-1', 'i-2']) expect(fake.reachable(instance)).toEqual([]);
  });

  it("exposing opens the application's ports on its instances only, through a group of its own", async () => {
    await user('expose', 'wordpress');
    const result = await reconcile();

    expect(result.firewall).toMatchObject({ created: ['wordpress'], attached: ['i-0', 'i-1'] });
    const [group, ...others] = fake.appGroups();
    expect(others).toEqual([]);
    expect(group).toMatchObject({ GroupName: `drover-${CONTROLLER}-wordpress`, VpcId: VPC });
    expect(group!.Tags).toEqual(
      expect.arrayContaining([
        { Key: 'drover:controller', Value: CONTROLLER },
        { Key: 'drover:application', Value: 'wordpress' },
      ]),
    );
    // The union of both units' ports on both instances; mysql's instance, unexposed, gets nothing.
    expect(fake.reachable('i-0')).toEqual(['443/tcp', '80/tcp']);
    expect(fake.reachable('i-1')).toEqual(['443/tcp', '80/tcp']);
    expect(fake.reachable('i-2')).toEqual([]);
    expect(fake.instanceGroups.get('i-0')).toEqual([SHARED, group!.GroupId]);
    // The shared group is never given a rule.
    expect(fake.groups.get(SHARED)!.IpPermissions).toEqual([]);
    for (const call of ec2Mock.commandCalls(AuthorizeSecurityGroupIngressCommand)) expect(call.args[0].input.GroupId).not.toBe(SHARED);

    // A second run finds nothing to change.
    ec2Mock.resetHistory();
    await reconcile();
    expect(mutatingCalls()).toBe(0);
  });

  it("a unit's close-port closes the port, once no other unit of the application has it open", async () => {
    await user('expose', 'wordpress');
    await reconcile();
    await hookPorts('wordpress/1', '1', [{ action: 'close', range: '443' }]);
    await reconcile();
    expect(fake.reachable('i-0')).toEqual(['80/tcp']);
    expect(fake.reachable('i-1')).toEqual(['80/tcp']);
    await hookPorts('wordpress/0', '0', [{ action: 'close', range: '80' }]);
    ec2Mock.resetHistory();
    await reconcile();
    // wordpress/1 still has 80 open.
    expect(ec2Mock.commandCalls(RevokeSecurityGroupIngressCommand)).toHaveLength(0);
    expect(fake.reachable('i-0')).toEqual(['80/tcp']);
  });

  it('unexposing revokes every rule and keeps the group, so exposing again only adds rules', async () => {
    await user('expose', 'wordpress');
    await reconcile();
    const groupId = fake.appGroups()[0]!.GroupId;

    await user('unexpose', 'wordpress');
    ec2Mock.resetHistory();
    await reconcile();
    expect(ec2Mock.commandCalls(RevokeSecurityGroupIngressCommand).map((c) => c.args[0].input)).toEqual([
      { GroupId: groupId, IpPermissions: [{ IpProtocol: 'tcp', FromPort: 80, ToPort: 80, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }] },
      { GroupId: groupId, IpPermissions: [{ IpProtocol: 'tcp', FromPort: 443, ToPort: 443, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }] },
    ]);
    for (const instance of ['i-0', 'i-1', 'i-2']) expect(fake.reachable(instance)).toEqual([]);
    expect(fake.instanceGroups.get('i-0')).toEqual([SHARED, groupId]);

    await user('expose', 'wordpress');
    ec2Mock.resetHistory();
    await reconcile();
    expect(ec2Mock.commandCalls(CreateSecurityGroupCommand)).toHaveLength(0);
    expect(fake.reachable('i-1')).toEqual(['443/tcp', '80/tcp']);
  });

  it('two reconciles at once converge on one group with each rule once', async () => {
    await user('expose', 'wordpress');
    await Promise.all([reconcileAll(deps), reconcileAll(deps)]);
    await reconcile();
    expect(fake.appGroups()).toHaveLength(1);
    expect(fake.reachable('i-0')).toEqual(['443/tcp', '80/tcp']);
  });
});
