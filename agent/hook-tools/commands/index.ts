// The hook tools drover provides: Juju 3.6's, as docs/juju-compat.md lists them with what drover
// does with each.
// Each runs inside the agent, which has the hook's context; the executable a hook calls only
// forwards its arguments (agent/hook-tools/hook-tool.bash).
import type { ToolContext, ToolIO, ToolResult } from '../tool-context.js';
import { ToolError } from '../tool-errors.js';
import type { ToolCommand } from './command.js';
import { actionFail, actionGet, actionLog, actionSet } from './actions.js';
import { applicationVersionSet } from './application-version-set.js';
import { stateDelete, stateGet, stateSet } from './charm-state.js';
import { configGet } from './config-get.js';
import { goalState } from './goal-state.js';
import { jujuLog } from './juju-log.js';
import { networkGet } from './network-get.js';
import { openedPorts } from './opened-ports.js';
import { isLeader, leaderGet, leaderSet } from './leader.js';
import { closePort, openPort } from './ports.js';
import { relationGet } from './relation-get.js';
import { relationIds } from './relation-ids.js';
import { relationList } from './relation-list.js';
import { relationModelGet } from './relation-model-get.js';
import { relationSet } from './relation-set.js';
import { SECRET_TOOLS } from './secrets.js';
import { statusGet, statusSet } from './status.js';
import { storageAdd } from './storage-add.js';
import { storageGet } from './storage-get.js';
import { storageList } from './storage-list.js';
import { unitGet } from './unit-get.js';
import { credentialGet, jujuReboot } from './unsupported.js';
import { resourceGet } from './resource-get.js';
import { errorMessage } from '#shared/domain/errors.js';

const COMMANDS: ToolCommand[] = [
  jujuLog,
  unitGet,
  openPort,
  closePort,
  configGet,
  relationGet,
  relationSet,
  relationIds,
  relationList,
  relationModelGet,
  statusSet,
  statusGet,
  actionGet,
  actionSet,
  actionLog,
  actionFail,
  openedPorts,
  networkGet,
  goalState,
  applicationVersionSet,
  stateGet,
  stateSet,
  stateDelete,
  storageList,
  storageGet,
  storageAdd,
  credentialGet,
  resourceGet,
  jujuReboot,
  isLeader,
  leaderGet,
  leaderSet,
  ...SECRET_TOOLS,
];

export const TOOL_NAMES = COMMANDS.map((c) => c.name);

export async function runTool(ctx: ToolContext, name: string, args: string[], io: ToolIO): Promise<ToolResult> {
  const command = COMMANDS.find((c) => c.name === name);
  // Juju's jujuc server refuses a name it has no command for before running anything, and the
  // tool prints the refusal as `error: ...`, exit 1 (jujuc/server.go, cmd/jujud/main.go).
  if (!command) return { code: 1, stdout: '', stderr: `error: bad request: unknown hook command: ${name}\n` };
  const own: ToolIO = { ...io }; // the command's output slot is this call's alone
  try {
    const stdout = await command.run(ctx, args, own);
    return { code: 0, stdout, stderr: own.stderr ?? '', ...(own.output ? { file: own.output } : {}) };
  } catch (e) {
    // What the tool wrote to stderr before it failed comes first, as cmd.Main writes the error after.
    const before = own.stderr ?? '';
    if (e instanceof ToolError) return { code: e.exitCode, stdout: '', stderr: `${before}ERROR ${e.message}\n` };
    // The sandbox's own failures (say, the API refused a read) are runtime errors too.
    return { code: 1, stdout: '', stderr: `${before}ERROR ${errorMessage(e)}\n` };
  }
}
