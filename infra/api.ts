// The drover API: an API Gateway HTTP API (payload v2, what functions/api/handler.ts reads) in
// front of the api function. Two routes, two ways to authenticate (docs/architecture.md,
// 'Agents are least-privileged'; functions/api/auth.ts):
//   ANY /v1/{proxy+}        users: IAM (SigV4). API Gateway checks the signature and the caller's
//                           execute-api:Invoke permission before the function runs, and passes
//                           the caller's ARN in the request context, which the handler requires.
//   ANY /v1/agent/{proxy+}  machine agents: no IAM authorizer. An agent proves which machine it
//                           is with its per-machine bearer credential (`Bearer machine-<id>:<secret>`),
//                           which only the handler can check: it is stored hashed on the machine
//                           item. IAM could only say "some drover instance", and every instance
//                           shares one role — it would add nothing the credential does not, and
//                           would give every agent the right to call user routes too.
// API Gateway picks the most specific route, so /v1/agent/... never falls to the IAM route, and
// an agent's credential is worth nothing on a user route.
import { RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export const USER_ROUTE = '/v1/{proxy+}';
export const AGENT_ROUTE = '/v1/agent/{proxy+}';

export interface DroverApiProps {
  controllerId: string;
  handler: lambda.IFunction;
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
      // A ceiling against runaway clients and loops, far above what a CLI and agents need.
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

    const integration = new HttpLambdaIntegration('ApiFunction', props.handler);
    this.httpApi.addRoutes({
      path: USER_ROUTE,
      methods: [apigwv2.HttpMethod.ANY],
      integration,
      authorizer: new HttpIamAuthorizer(),
    });
    const agentRoutes = this.httpApi.addRoutes({
      path: AGENT_ROUTE,
      methods: [apigwv2.HttpMethod.ANY],
      integration,
      authorizer: new apigwv2.HttpNoneAuthorizer(),
    });
    for (const route of agentRoutes) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'Agent routes are authorised by the handler with the per-machine agent credential (functions/api/auth.ts), which an IAM ' +
          'authorizer cannot check; see infra/api.ts.',
      });
    }

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
    const apiId = Stack.of(this).getLogicalId(this.httpApi.node.defaultChild as CfnElement);
    Validations.of(this.userPolicy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${apiId}>/*/*/v1/*]`,
      reason: 'Users may call every user route (any method, any operation under /v1) of this API; the API id is fixed.',
    });
  }

  /** The URL clients use, e.g. https://abc123.execute-api.eu-west-1.amazonaws.com */
  get url(): string {
    return this.httpApi.apiEndpoint;
  }
}
