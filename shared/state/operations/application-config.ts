// `config <app> key=value ... --reset k1,k2` and `expose`/`unexpose`
// (shared/domain/plans/application-config.ts decides).
import { planSetApplicationConfig, planSetExposed, planSetTrust, type ConfigChange } from '../../domain/plans/application-config.js';
import { getApplication } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

export async function setApplicationConfig(store: Store, name: string, change: ConfigChange): Promise<{ changed: boolean }> {
  return runOperation(store, `cannot update application "${name}" config`, async (store) =>
    planSetApplicationConfig(await getApplication(store, name), name, change),
  );
}

export async function setTrust(store: Store, name: string, trust: boolean): Promise<void> {
  await runOperation(store, `cannot update application "${name}" trust`, async (store) =>
    planSetTrust(await getApplication(store, name), name, trust),
  );
}

export async function setExposed(store: Store, name: string, exposed: boolean): Promise<void> {
  await runOperation(store, `cannot ${exposed ? 'expose' : 'unexpose'} application "${name}"`, async (store) =>
    planSetExposed(await getApplication(store, name), name, exposed),
  );
}
