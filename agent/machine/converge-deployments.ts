// Carrying out a deployer's plan (deployments.ts) for a machine agent or a principal's agent.
// One unit that cannot be deployed (a charm archive the agent refuses) must not hold up the
// others: its failure shows as an error on that unit, and the rest of the plan goes on. A
// failure that a retry may cure (the API out of reach) still fails the convergence, after the
// others, so the agent tries again.
import { isDroverErrorCode } from './refusals.js';
import { AgentApiError, type AgentApi } from '../api-client.js';
import type { AgentLog } from '../log/agent-log.js';
import type { AgentView } from '../view.js';
import type { Deployer } from './deployer.js';
import type { DeploymentAction } from './deployments.js';
import { errorMessage } from '#shared/domain/errors.js';

/** Returns true if anything changed state (so the view should be read again). */
export async function applyDeployments(
  actions: DeploymentAction[],
  view: AgentView,
  deps: { api: AgentApi; deployer: Deployer; log: AgentLog },
): Promise<boolean> {
  let changedState = false;
  let retry: unknown;
  for (const action of actions) {
    switch (action.kind) {
      case 'deploy':
        try {
          await deps.deployer.deploy(
            action.unit,
            view.applications.find((a) => a.name === action.unit.application),
          );
        } catch (e) {
          if (mayPassByItself(e)) retry ??= e;
          else await reportDeployFailure(deps, action.unit.name, e);
        }
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
  if (retry !== undefined) throw retry;
  return changedState;
}

/** The API out of reach or failing on its side: the same deployment may well work next time. */
const mayPassByItself = (e: unknown) => (e instanceof AgentApiError && !e.refused) || e instanceof TypeError;

async function reportDeployFailure(deps: { api: AgentApi; log: AgentLog }, unit: string, e: unknown): Promise<void> {
  const message = `cannot deploy unit "${unit}": ${errorMessage(e)}`.slice(0, 1000);
  deps.log.log(undefined, 'ERROR', 'juju.worker.deployer', message);
  // Best effort: the status only tells the user; the next convergence tries the deployment again.
  await deps.api.call('set-unit-status', { unit, agent: { current: 'error', message } }).catch(() => undefined);
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
