// The periodic full reconcile: the resync that covers lost or failed stream records (docs/architecture.md,
// 'State is the truth; messages are hints'), the only place strays are found, where the
// firewall follows `expose` and open-port (reconcile-firewall.ts says why here), and where
// storage volumes are made, attached and deleted (reconcile-volumes.ts).
//
// what-we-run-and-why.txt: the provisioner makes sure "that non-Dead machine entities in state
// have agents running on live instances; and ... that Dead machines, and stray instances, are
// removed and cleaned up".
//
// Order matters for safety. The provider is listed first and state read after, so:
// - an instance is a stray only if, read later, its machine is gone (machine ids are never reused,
//   so it cannot come back) or has a different instance recorded (recordInstance never replaces
//   one). An instance of a machine with no instance recorded may be mid-provisioning, and is
//   left to reconcileMachine, which adopts it (same attempt) or supersedes it; an instance of a
//   model that is gone (its name's item read after the listing; models-to-sweep.ts says why
//   `default` is always swept) is a stray too;
// - a recorded instance is missing only if it was recorded before the listing began (less a
//   grace for EC2's eventually consistent DescribeInstances), so one started meanwhile is not.
import type { Machine } from '../domain/entities.js';
import type { FirewallReport, InstanceInfo } from '../provider/provider.js';
import { collections } from '../state/engine/keys.js';
import { markInstanceMissing } from '../state/operations/machine-status.js';
import { getMany, getModel, listCollection } from '../state/engine/reads.js';
import { storeForModel, type Store } from '../state/engine/store.js';
import { storesToSweep } from '../state/queries/models-to-sweep.js';
import { forEachBounded } from '../domain/bounded.js';
import { logOf, machineLabel, policyOf, type ProvisionerDeps } from './deps.js';
import { reconcileFirewall } from './reconcile-firewall.js';
import { reconcileMachine, type ReconcileOutcome } from './reconcile-machine.js';
import { reviveAgents } from './revive-agents.js';
import { reapVolumes } from './reap-volumes.js';
import { reconcileVolumes } from './reconcile-volumes.js';
import { errorMessage } from '../domain/errors.js';

const PAGE = 100;

/** Every model's machines; machines are named as machineLabel says (deps.ts). */
export interface ReconcileAllResult {
  machines: number;
  outcomes: Partial<Record<ReconcileOutcome, number>>;
  /** Instances stopped because no machine in state owns them. */
  strays: string[];
  /** Machines whose recorded instance the provider no longer has. */
  missing: string[];
  /** Orphaned volumes deleted (reap-volumes.ts); only where the provider has volumes and state is read for them. */
  reapedVolumes: string[];
  /**
   * Storage instances whose volume was recorded (made and attached, or detached), and Dead ones
   * removed once their volume was deleted (reconcile-volumes.ts); only where the provider has volumes.
   */
  recordedVolumes: string[];
  removedStorage: string[];
  /** Machines whose dead agent was started again (providers that can: revive-agents.ts). */
  revived: string[];
  /** What the firewall step changed (reconcile-firewall.ts); absent where the provider has no firewall. */
  firewall?: FirewallReport;
  failures: { machineId?: string; error: string }[];
  /** Machines and storage instances left for the next run: the deadline came first. */
  unfinished: number;
}

export interface ReconcileAllOptions {
  /**
   * No machine's reconcile starts after this (ms since the epoch): a run cut short by its host's
   * timeout would leave its work half done and report nothing; the next run does the rest.
   */
  deadline?: number;
}

export async function reconcileAll(deps: ProvisionerDeps, options: ReconcileAllOptions = {}): Promise<ReconcileAllResult> {
  const { store } = deps;
  const policy = policyOf(deps);
  const result: ReconcileAllResult = {
    machines: 0,
    outcomes: {},
    strays: [],
    reapedVolumes: [],
    recordedVolumes: [],
    removedStorage: [],
    missing: [],
    revived: [],
    failures: [],
    unfinished: 0,
  };

  // First, so an agent started again is listed below and not taken for a missing instance; one the
  // provider will start again later (its back-off) is not missing either, and its status says so.
  const revival = await reviveAgents(deps);
  result.revived = revival.revived;
  result.failures.push(...revival.failures);
  const restartsLater = new Set(revival.refused.map((r) => r.machineId));

  const listedAt = store.now().getTime();
  const instances = await deps.provider.listInstances(deps.controllerId);
  // Every model's machines, each under its label (machine ids repeat across models).
  const models = await modelsOf(store, instances);
  const recorded = new Map<string, RecordedMachine>();
  for (const modelStore of models) for (const m of await recordedMachines(modelStore)) recorded.set(machineLabel(m.store.model, m.id), m);
  result.machines = recorded.size;

  // Strays and missing instances before the machines: they are what only this run finds (the
  // stream covers the machines), so a run that reaches its deadline has done them.
  const strays = instances.filter((i) => isStray(i, recorded.get(machineLabel(i.model, i.machineId))));
  if (strays.length > 0) {
    result.strays = strays.map((i) => i.instanceId);
    try {
      await deps.provider.stopInstances(result.strays);
    } catch (e) {
      result.failures.push({ error: `cannot stop stray instances: ${errorMessage(e)}` });
    }
  }

  // Orphaned volumes, like strays: only this run finds them.
  if (deps.provider.volumes && deps.storageClaims) {
    const storageClaims = deps.storageClaims;
    const reaped = await reapVolumes({
      volumes: deps.provider.volumes,
      controllerId: deps.controllerId,
      readClaims: () => storageClaims(models),
      now: () => store.now().getTime(),
      graceMs: policy.orphanVolumeGraceMs,
    });
    result.reapedVolumes = reaped.deleted;
    result.failures.push(...reaped.failures.map((f) => ({ error: f.volumeId ? `volume ${f.volumeId}: ${f.error}` : f.error })));
  }

  const listed = new Set(instances.map((i) => i.instanceId));
  const missing = [...recorded].filter(
    ([machineId, r]) =>
      r.instanceId !== undefined &&
      !listed.has(r.instanceId) &&
      !restartsLater.has(machineId) &&
      r.recordedAt < listedAt - policy.missingInstanceGraceMs,
  );
  await forEachBounded(missing, policy.concurrency, async ([label, r]) => {
    try {
      if ((await markInstanceMissing(r.store, r.id, r.instanceId!)) !== 'not-applicable') result.missing.push(label);
    } catch (e) {
      result.failures.push({ machineId: label, error: errorMessage(e) });
    }
  });

  // Before the machines, whose starts may run into the deadline: this step is only done here.
  try {
    const firewall = await reconcileFirewall(models, deps.provider.firewall, deps.controllerId);
    if (firewall) {
      result.firewall = firewall;
      result.failures.push(...firewall.failures.map((error) => ({ error: `firewall: ${error}` })));
    }
  } catch (e) {
    result.failures.push({ error: `cannot reconcile the firewall: ${errorMessage(e)}` });
  }

  const now = () => store.now().getTime();
  await forEachBounded([...recorded], policy.concurrency, async ([label, machine]) => {
    if (options.deadline !== undefined && now() > options.deadline) {
      result.unfinished++;
      return;
    }
    try {
      const outcome = await reconcileMachine({ ...deps, store: machine.store }, machine.id);
      result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
    } catch (e) {
      result.failures.push({ machineId: label, error: errorMessage(e) });
    }
  });

  // After the machines, so a machine whose instance this run started gets its volumes in the same run.
  if (deps.provider.volumes) {
    const volumes = await reconcileVolumes({
      volumes: deps.provider.volumes,
      controllerId: deps.controllerId,
      models,
      concurrency: policy.concurrency,
      pastDeadline: () => options.deadline !== undefined && now() > options.deadline,
    });
    result.recordedVolumes = volumes.recorded;
    result.removedStorage = volumes.removed;
    result.failures.push(...volumes.failures);
    result.unfinished += volumes.unfinished;
  }

  const log = logOf(deps);
  if (result.failures.length > 0) log.error('full reconcile finished with failures', { ...result });
  else log.info('full reconcile finished', { ...result });
  return result;
}

/**
 * The models to reconcile: every model listed, and the model of any instance that the listing (an
 * index read, eventually consistent) does not show yet but whose model item is there, so that no
 * instance of a model made a moment ago is taken for a stray.
 */
async function modelsOf(store: Store, instances: InstanceInfo[]): Promise<Store[]> {
  const models = await storesToSweep(store);
  const listed = new Set(models.map((s) => s.model));
  for (const key of new Set(instances.map((i) => i.model))) {
    if (listed.has(key)) continue;
    const unlisted = storeForModel(store, key);
    if (await getModel(unlisted)) models.push(unlisted);
  }
  return models;
}

/** A machine as the full reconcile needs it: only ids, bounded by the number of machines, never by their size. */
interface RecordedMachine {
  store: Store;
  id: string;
  instanceId?: string;
  recordedAt: number;
}

async function recordedMachines(store: Store): Promise<RecordedMachine[]> {
  const found: RecordedMachine[] = [];
  for (const shard of collections.machineShards(store.model)) {
    let cursor: string | undefined;
    do {
      const page = await listCollection(store, shard, { limit: PAGE, ...(cursor ? { cursor } : {}) });
      cursor = page.cursor;
      for (const m of await getMany<Machine>(store, page.items))
        found.push({
          store,
          id: m.id,
          ...(m.instanceId ? { instanceId: m.instanceId } : {}),
          recordedAt: Date.parse(m.instanceStatus.since),
        });
    } while (cursor);
  }
  return found;
}

/** An instance of no machine (its model gone too), or of a machine that has another instance recorded. */
function isStray(instance: InstanceInfo, machine: { instanceId?: string } | undefined): boolean {
  if (!machine) return true;
  return machine.instanceId !== undefined && machine.instanceId !== instance.instanceId;
}
