// The drover API: an API Gateway HTTP API (payload v2, what functions/api/handler.ts reads) in
// front of the api function. Every route is IAM-authorized (SigV4): API Gateway checks the
// signature and the caller's execute-api:Invoke permission before the function runs, and passes
// the caller's ARN in the request context (docs/architecture.md, 'Agents are least-privileged').
//   ANY /v1/{proxy+}        users: those given the user policy below (functions/api/auth.ts).
//   ANY /v1/agent/{proxy+}  machine agents: the agent role may invoke these routes and no other.
//                           The role's session name is the instance id, which the handler maps to
//                           the one machine whose instance it is (functions/api/agent-identity.ts).
// Nothing is open to unauthenticated callers, so a flood of unsigned requests is refused by API
// Gateway before it reaches the function or the stage's throttle budget of signed callers.
import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { setEnvironment } from './functions.js';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export const USER_ROUTE = '/v1/{proxy+}';
export const AGENT_ROUTE = '/v1/agent/{proxy+}';

/**
 * Each route's own throttle (requests a second, and the burst): every machine's agent speaks at
 * each resync and after each hook, users only when they type; neither may use up the other's.
 */
export const ROUTE_THROTTLES = {
  [USER_ROUTE]: { rateLimit: 50, burstLimit: 100 },
  [AGENT_ROUTE]: { rateLimit: 200, burstLimit: 400 },
} as const;

export interface DroverApiProps {
  controllerId: string;
  handler: lambda.Function;
  /** The machine agents' instance role: it may call the agent routes, and the handler is told its name. */
  agentRole: iam.Role;
}

export class DroverApi extends Construct {
  readonly httpApi: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  readonly accessLogs: logs.LogGroup;
  /** Attach to the IAM users or roles that may drive this controller with the drover CLI. */
  readonly userPolicy: iam.ManagedPolicy;

  constructor(scope: Construct, id: string, props: DroverApiProps) {
    super(scope, id);
    this.httpApi = new apigwv2.HttpApi(this, 'HttpApi', {
      apiName: `drover-${props.controllerId}`,
      description: `drover controller ${props.controllerId}`,
      createDefaultStage: false,
    });
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new apigwv2.HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      // A ceiling against runaway clients and loops, far above what a CLI and agents need; each
      // route has its own (ROUTE_THROTTLES, below), so agents cannot starve users of it nor users
      // agents. A throttled agent waits and tries again (agent/api-client.ts).
      throttle: { rateLimit: 100, burstLimit: 200 },
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            time: '$context.requestTime',
            method: '$context.httpMethod',
            path: '$context.path',
            route: '$context.routeKey',
            status: '$context.status',
            bytes: '$context.responseLength',
            user: '$context.identity.userArn',
            latency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });

    (this.stage.node.defaultChild as apigwv2.CfnStage).routeSettings = Object.fromEntries(
      Object.entries(ROUTE_THROTTLES).map(([path, limit]) => [
        `ANY ${path}`,
        // A JSON property: CloudFormation's own (Pascal-case) names, which CDK passes on as they are.
        { ThrottlingRateLimit: limit.rateLimit, ThrottlingBurstLimit: limit.burstLimit },
      ]),
    );

    const integration = new HttpLambdaIntegration('ApiFunction', props.handler);
    const routes = this.httpApi.addRoutes({
      path: USER_ROUTE,
      methods: [apigwv2.HttpMethod.ANY],
      integration,
      authorizer: new HttpIamAuthorizer(),
    });
    routes.push(
      ...this.httpApi.addRoutes({
        path: AGENT_ROUTE,
        methods: [apigwv2.HttpMethod.ANY],
        integration,
        authorizer: new HttpIamAuthorizer(),
      }),
    );
    // A stage's route settings must name routes that exist: CloudFormation refuses the stage
    // ("Unable to find Route by key") if it is created before them.
    for (const route of routes) this.stage.node.addDependency(route);
    props.agentRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'InvokeAgentRoutes',
        actions: ['execute-api:Invoke'],
        resources: [this.httpApi.arnForExecuteApi('*', '/v1/agent/*', '*')],
      }),
    );
    setEnvironment(props.handler, { AGENT_ROLE_NAME: props.agentRole.roleName });

    this.userPolicy = new iam.ManagedPolicy(this, 'UserPolicy', {
      description: `Lets a drover CLI user call the user routes of controller ${props.controllerId}`,
      statements: [
        new iam.PolicyStatement({
          sid: 'InvokeUserRoutes',
          actions: ['execute-api:Invoke'],
          resources: [this.httpApi.arnForExecuteApi('*', '/v1/*', '*')],
        }),
      ],
    });
  }

  /** The URL clients use, e.g. https://abc123.execute-api.eu-west-1.amazonaws.com */
  get url(): string {
    return this.httpApi.apiEndpoint;
  }
}
