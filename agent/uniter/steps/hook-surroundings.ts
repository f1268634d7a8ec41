// What a hook or an action runs with: the environment every hook and task of the unit shares
// (hook-env.ts adds what runs), and the context its tools see (its relations, their members,
// config, addresses, status).
import { charmEndpoints } from '#shared/domain/charm.js';
import { counterpartApplications } from '#shared/domain/relation-counterparts.js';
import type { ActionToolContext, ToolRelation } from '../../hook-tools/tool-context.js';
import type { AgentView } from '../../view.js';
import { HookContext } from '../hook-context.js';
import { availabilityZoneOf, type HookEnvInput } from '../hook-env.js';
import { isRelationHook, isStorageHook, type Hook } from '../hooks.js';
import { unitStorageOf } from '../../storage/unit-storage.js';
import { networkInfoFor } from '../network-info.js';
import { resourceFetcher } from '../resource-files.js';
import type { UnitContext } from '../unit-context.js';

export function environmentOf(ctx: UnitContext, view: AgentView, contextId: string, secret: string, socketAddress: string): HookEnvInput {
  const { deps } = ctx;
  const unit = view.units.find((u) => u.name === deps.unitName);
  const zone = availabilityZoneOf(view.machine.hardware);
  return {
    base: deps.baseEnv,
    toolsDir: deps.toolsDir,
    charmDir: ctx.charmDir,
    unitName: deps.unitName,
    contextId,
    secret,
    socketAddress,
    apiAddresses: deps.apiAddresses,
    modelName: view.model,
    ...(view.modelUuid ? { modelUuid: view.modelUuid } : {}),
    machineId: deps.machineId,
    ...(zone ? { availabilityZone: zone } : {}),
    ...(unit?.principal !== undefined ? { principal: unit.principal } : {}),
  };
}

export function hookContextOf(
  ctx: UnitContext,
  what: Hook | undefined,
  id: string,
  view: AgentView,
  action?: ActionToolContext,
): HookContext {
  const { deps } = ctx;
  // A task runs outside any relation, as Juju's actions do.
  const hook = what && isRelationHook(what) ? what : undefined;
  const unit = view.units.find((u) => u.name === deps.unitName);
  const application = view.applications.find((a) => a.name === unit?.application);
  const leadership = view.leadership?.find((l) => l.application === unit?.application);
  const relations: ToolRelation[] = [];
  const hookRelation = hook ? view.relations.find((r) => r.key === hook.relation) : undefined;
  const hookRemoteApp = hookRelation && unit ? counterpartApplications(hookRelation, unit.application)[0] : undefined;
  const members: Record<number, string[]> = {};
  for (const [key, local] of Object.entries(ctx.local.relations)) {
    const relation = view.relations.find((r) => r.key === key);
    const remoteApplication = relation && unit ? (counterpartApplications(relation, unit.application)[0] ?? '') : '';
    relations.push({ id: local.id, endpoint: local.endpoint, remoteApplication });
    const known = new Set(Object.keys(local.members));
    // relation-list in -joined already lists the joining unit; in -departed no longer the departing one.
    if (hook && hook.relation === key && hook.remoteUnit !== undefined) {
      if (hook.kind === 'relation-joined') known.add(hook.remoteUnit);
      if (hook.kind === 'relation-departed') known.delete(hook.remoteUnit);
    }
    members[local.id] = [...known];
  }
  const log = deps.log;
  if (unit) {
    const { current, message } = unit.workloadStatus;
    ctx.status.knowWorkload({ current, ...(message ? { message } : {}) });
  }
  const workloadVersion = ctx.workloadVersion ?? unit?.workloadVersion;
  return new HookContext({
    id,
    unitName: deps.unitName,
    modelUuid: view.modelUuid ?? '',
    status: ctx.status,
    ...(hook ? { hookRelationId: hook.relationId } : {}),
    ...(hook?.remoteUnit !== undefined ? { remoteUnit: hook.remoteUnit } : {}),
    ...(hookRemoteApp !== undefined ? { remoteApplication: hookRemoteApp } : {}),
    ...(action ? { action } : {}),
    api: deps.api,
    log: (level, message) => log.log(deps.unitName, level, `unit.${deps.unitName}.juju-log`, message),
    relations,
    members,
    config: { values: application?.config ?? {}, options: Object.keys(application?.charm.config ?? {}) },
    addresses: ctx.addresses(view),
    workload: { status: unit?.workloadStatus.current ?? 'unknown', message: unit?.workloadStatus.message ?? '' },
    openPorts: unit?.openPorts ?? [],
    bindings: application ? charmEndpoints(application.charm).map((e) => e.name) : [],
    network: networkInfoFor(ctx.addresses(view).private),
    ...(workloadVersion !== undefined ? { workloadVersion } : {}),
    leadership: { tracker: ctx.leadership, ...(leadership ? { view: leadership } : {}) },
    resources: resourceFetcher(deps.api, deps.unitDir, deps.unitName),
    storage: {
      attachments: unitStorageOf(unit).map(({ id, kind, location }) => ({ id, kind, ...(location !== undefined ? { location } : {}) })),
      ...(what && isStorageHook(what) ? { hookStorageId: what.storage } : {}),
    },
  });
}
