// Carrying out a deployer's plan (deployments.ts) for a machine agent or a principal's agent.
import { isDroverErrorCode } from './refusals.js';
import type { AgentApi } from '../api-client.js';
import type { AgentLog } from '../log/agent-log.js';
import type { AgentView } from '../view.js';
import type { Deployer } from './deployer.js';
import type { DeploymentAction } from './deployments.js';

/** Returns true if anything changed state (so the view should be read again). */
export async function applyDeployments(
  actions: DeploymentAction[],
  view: AgentView,
  deps: { api: AgentApi; deployer: Deployer; log: AgentLog },
): Promise<boolean> {
  let changedState = false;
  for (const action of actions) {
    switch (action.kind) {
      case 'deploy':
        await deps.deployer.deploy(
          action.unit,
          view.applications.find((a) => a.name === action.unit.application),
        );
        break;
      case 'remove':
        // Never deployed, so nothing of it holds it up: Dead (if it is only Dying), then removed.
        if (action.unit.life === 'dying') await deps.api.call('unit-dead', { unit: action.unit.name });
        await removeUnit(deps.api, action.unit.name, deps.log);
        changedState = true;
        break;
      case 'recall-and-remove':
        await deps.deployer.recall(action.unit.name);
        await removeUnit(deps.api, action.unit.name, deps.log);
        changedState = true;
        break;
      case 'recall':
        await deps.deployer.recall(action.name);
        break;
    }
  }
  return changedState;
}

async function removeUnit(api: AgentApi, unit: string, log: AgentLog): Promise<void> {
  // The controller takes a unit's log lines only while the unit exists: send its last ones first.
  await log.flush().catch(() => undefined);
  try {
    await api.call('remove-unit', { unit });
  } catch (e) {
    // Removed already: the API no longer finds it on this machine.
    if (!isDroverErrorCode(e, 'not-found') && !isDroverErrorCode(e, 'unauthorized')) throw e;
  }
}
