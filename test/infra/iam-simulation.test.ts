// Every role's grant, simulated against what the code sends with it (docs/deploy-to-aws.md,
// "What is proved offline, and what only an account proves"): the stack is synthesized once,
// each role's policy resolved for every partition cdk.json targets, and each request in
// test/infra/role-requests.ts evaluated by an IAM policy simulator (test/support/iam-simulation.ts).
// The lists are checked against the code: the SDK commands each function's bundled code refers to
// (test/support/sdk-calls.ts) must be the ones its list describes, so a new SDK call without a
// grant fails here, and so does a grant that no request uses.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT, createDroverApp, type DroverApp } from '../../infra/drover-app.js';
import { REPO_ROOT } from '../../infra/functions.js';
import {
  AWS_ENV,
  PARTITION_ENVS,
  decide,
  isWildcardOnly,
  refused,
  resolve,
  roleStatements,
  unused,
  unusedGrants,
  type PolicyStatement,
} from '../support/iam-simulation.js';
import { sdkCallsOf } from '../support/sdk-calls.js';
import { ROLES, SERVICES, worldOf, type RoleRequest } from './role-requests.js';

type Json = Record<string, any>;
const CONTROLLER = 'ci';
const OTHER_ACCOUNT = '210987654321';

let workDir: string;
let built: DroverApp;
let template: Json;
let roleIds: Record<string, string>;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'drover-iam-test-'));
  const agentEntry = join(workDir, 'agent', 'main.ts');
  mkdirSync(join(workDir, 'agent'), { recursive: true });
  writeFileSync(agentEntry, "console.log('stand-in machine agent');\n");
  const context = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')).context as Json;
  // The functions' code is read by sdk-calls.ts, not from their assets: bundling is skipped.
  built = createDroverApp(
    {
      outdir: join(workDir, 'cdk.out'),
      context: { ...context, 'aws:cdk:bundling-stacks': [], [CONTEXT.controllerId]: CONTROLLER, [CONTEXT.alarmEmail]: 'ops@example.com' },
    },
    { agentEntry },
  );
  template = built.app.synth().getStackByName(built.stack.stackName).template as Json;
  roleIds = Object.fromEntries(
    Object.entries(ROLES).map(([name, spec]) => [name, built.stack.getLogicalId(spec.role(built.stack).node.defaultChild as CfnElement)]),
  );
}, 120_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

const resources = () => template.Resources as Record<string, Json>;
const requestsOf = (name: string, env = AWS_ENV): RoleRequest[] => ROLES[name]!.requests(worldOf(built.stack, resources(), env));
const statementsOf = (name: string, env = AWS_ENV): PolicyStatement[] => roleStatements(template, roleIds[name]!, env);
const describeRequest = (r: RoleRequest) => `${r.by}: ${r.action} on ${r.resource}`;

describe('every role of the stack', () => {
  it('has a list of the requests made with it', () => {
    const roles = Object.entries(resources())
      .filter(([, r]) => r.Type === 'AWS::IAM::Role')
      .map(([id]) => id)
      .sort();
    expect(Object.values(roleIds).sort()).toEqual(roles);
  });
});

for (const [name, spec] of Object.entries(ROLES)) {
  describe(`the ${name} role`, () => {
    if (spec.code) {
      const code = spec.code;
      it(`is described for every SDK command its code (${code.entry}${code.handler ? `, ${code.handler}` : ''}) sends, and no other`, () => {
        const services: readonly string[] = SERVICES;
        const described = new Set(
          requestsOf(name)
            .map((r) => r.by)
            .filter((by) => !services.includes(by)),
        );
        const notSent = Object.keys(spec.notSent ?? {});
        for (const command of notSent) expect(described.has(command), `${command} is both sent and not sent`).toBe(false);
        expect(sdkCallsOf(code)).toEqual([...described, ...notSent].sort());
      });
    }

    for (const env of PARTITION_ENVS)
      it(`is allowed every request its code and AWS make with it, in ${env.partition}`, async () => {
        const requests = requestsOf(name, env);
        const statements = statementsOf(name, env);
        expect(
          await refused(
            statements,
            requests.filter((r) => !r.refusedBecause),
            env,
          ),
        ).toEqual([]);
        for (const r of requests.filter((r) => r.refusedBecause))
          expect(await decide(statements, r, env), `${describeRequest(r)} (${r.refusedBecause})`).not.toBe('Allowed');
      });

    it('is granted nothing that no request uses: no action, and no resource for an action', async () => {
      const requests = requestsOf(name).filter((r) => !r.refusedBecause);
      expect(unused(statementsOf(name), requests)).toEqual([]);
      expect(await unusedGrants(statementsOf(name), requests)).toEqual([]);
    });

    it('names resources wherever IAM authorizes the action by resource, and none of another account', async () => {
      for (const statement of statementsOf(name)) {
        const resourcesOf = [statement.Resource].flat();
        for (const action of [statement.Action].flat())
          if (!(await isWildcardOnly(action))) expect(resourcesOf, `${action} in ${statement.Sid ?? 'a statement'}`).not.toContain('*');
      }
      const statements = statementsOf(name);
      for (const r of requestsOf(name)) {
        if (r.refusedBecause || !r.resource.includes(`:${AWS_ENV.account}:`) || (await isWildcardOnly(r.action))) continue;
        const elsewhere = { ...r, resource: r.resource.replace(`:${AWS_ENV.account}:`, `:${OTHER_ACCOUNT}:`) };
        expect(await decide(statements, elsewhere), describeRequest(elsewhere)).not.toBe('Allowed');
      }
    });
  });
}

describe('the user policy (UserPolicyArn)', () => {
  for (const env of PARTITION_ENVS)
    it(`lets a drover CLI user call the user routes, and grants nothing else, in ${env.partition}`, async () => {
      const id = built.stack.getLogicalId(built.stack.api.userPolicy.node.defaultChild as CfnElement);
      const statements = resolve(resources()[id]!.Properties.PolicyDocument.Statement, resources(), env) as PolicyStatement[];
      const w = worldOf(built.stack, resources(), env);
      const requests = [{ by: 'drover CLI user', action: 'execute-api:Invoke', resource: w.userRoute }];
      expect(await refused(statements, requests, env)).toEqual([]);
      expect(await unusedGrants(statements, requests, env)).toEqual([]);
    });
});

describe('partitions', () => {
  it('builds every ARN of the template from the stack partition: no literal arn:aws:', () => {
    expect(JSON.stringify(template).match(/"arn:aws[a-z-]*:[^"]*"/g) ?? []).toEqual([]);
  });
});
