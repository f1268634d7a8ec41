// Where to look when something is stuck, in CloudWatch Logs Insights: saved queries (free, at
// rest and in use) over the log groups CloudFormation names, and the same stuck-entities query the
// dashboard's table runs. The fields are those the code logs: the watchdog's "stuck" lines
// (functions/watchdog/handler.ts), the agents' records under `debugLog` in the api function's group
// (shared/logs/lambda-log-sink.ts), and the API's access log (infra/api.ts).
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** One row per stuck entity: what holds it and what to run, newest report first. */
export const STUCK_ENTITIES_QUERY = [
  'filter message = "stuck"',
  'stats latest(life) as life, max(ageSeconds) as seconds, latest(blockedBy) as blocked_by, latest(remedy) as remedy, max(@timestamp) as last_reported by model, entity',
  'sort last_reported desc, seconds desc',
];

/** Hooks that failed, by unit: the agents' error records. */
export const HOOK_ERRORS_QUERY = [
  'filter debugLog.level = "ERROR" and debugLog.entity like /^unit-/',
  'stats count(*) as errors, latest(debugLog.message) as last_error, max(@timestamp) as last_seen by debugLog.model, debugLog.entity',
  'sort errors desc',
];

/** Agent requests the API refused or failed (4xx, 5xx; 429 is its throttle), by status and path. */
export const AGENT_REFUSALS_QUERY = [
  'filter route like "/v1/agent/" and status >= 400',
  'stats count(*) as requests, max(@timestamp) as last_seen by status, path',
  'sort requests desc',
];

export interface LogQueriesProps {
  controllerId: string;
  watchdogLogs: logs.ILogGroup;
  apiLogs: logs.ILogGroup;
  accessLogs: logs.ILogGroup;
}

export class LogQueries extends Construct {
  constructor(scope: Construct, id: string, props: LogQueriesProps) {
    super(scope, id);
    for (const [name, title, lines, group] of [
      ['StuckEntities', 'stuck entities with what holds them', STUCK_ENTITIES_QUERY, props.watchdogLogs],
      ['HookErrors', 'hook errors by unit', HOOK_ERRORS_QUERY, props.apiLogs],
      ['AgentRefusals', 'agent requests refused', AGENT_REFUSALS_QUERY, props.accessLogs],
    ] as const) {
      new logs.CfnQueryDefinition(this, name, {
        // The console lists saved queries in folders by `/`: one folder per controller.
        name: `drover/${props.controllerId}/${title}`,
        queryString: lines.join('\n| '),
        logGroupNames: [group.logGroupName],
      });
    }
  }
}
