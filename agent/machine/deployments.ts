// What a deployer (the machine agent for principals, a principal's unit agent for its
// subordinates) must do to converge, from the units it is responsible for and the units it has
// deployed. Pure. lifecycles.txt, "Agents":
// - "detecting undeployed Alive principals assigned to it and deploying them";
// - "detecting undeployed non-Alive principals assigned to it and removing them";
// - "detecting deployed Dead principals assigned to it, recalling them, and removing them";
// - "detecting deployed principals not assigned to it, and recalling them";
// and the same of a unit agent for its subordinates.
import type { Unit } from '#shared/domain/entities.js';

export type DeploymentAction =
  | { kind: 'deploy'; unit: Unit }
  /** Never deployed and not Alive: nothing of it runs, so it can go (set Dead first if Dying). */
  | { kind: 'remove'; unit: Unit }
  | { kind: 'recall-and-remove'; unit: Unit }
  | { kind: 'recall'; name: string };

export function planDeployments(responsibleFor: Unit[], deployed: string[]): DeploymentAction[] {
  const isDeployed = new Set(deployed);
  const actions: DeploymentAction[] = [];
  for (const unit of [...responsibleFor].sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }))) {
    if (!isDeployed.has(unit.name)) {
      if (unit.life === 'alive') actions.push({ kind: 'deploy', unit });
      else actions.push({ kind: 'remove', unit });
    } else if (unit.life === 'dead') actions.push({ kind: 'recall-and-remove', unit });
    // A deployed Dying unit is its own agent's business: it departs, stops and sets itself Dead.
  }
  const wanted = new Set(responsibleFor.map((u) => u.name));
  for (const name of [...deployed].sort()) if (!wanted.has(name)) actions.push({ kind: 'recall', name });
  return actions;
}
