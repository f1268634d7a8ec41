// `config <app> key=value ... --reset k1,k2` and `expose`/`unexpose`.
import { configDefaults, parseConfigValues } from '../../domain/charm.js';
import type { Application, ConfigValue } from '../../domain/entities.js';
import { invalidArgument, notAlive, notFound } from '../../domain/errors.js';
import { checkConfigSize } from '../../domain/item-size.js';
import { done, refs } from '../../domain/plan.js';
import { getApplication } from '../engine/reads.js';
import { runOperation } from '../engine/run-operation.js';
import type { Store } from '../engine/store.js';

async function requireAliveApplication(store: Store, name: string, action: string): Promise<Application> {
  const app = await getApplication(store, name);
  if (!app) throw notFound(`application "${name}" not found`);
  if (app.life !== 'alive') throw notAlive(`cannot ${action}: application "${name}" is not alive`);
  return app;
}

const sameConfig = (a: Record<string, ConfigValue>, b: Record<string, ConfigValue>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/**
 * Sets and resets configuration. A change bumps configVersion, which is what tells every unit
 * agent to run config-changed (charms-in-action.txt: "whenever the service configuration
 * changes"); a change that changes nothing bumps nothing, so no hook runs needlessly.
 */
export async function setApplicationConfig(
  store: Store,
  name: string,
  change: { set?: Record<string, string>; reset?: string[] },
): Promise<{ changed: boolean }> {
  return runOperation<{ changed: boolean }>(store, `cannot update application "${name}" config`, async () => {
    const app = await requireAliveApplication(store, name, 'set config');
    const values = parseConfigValues(app.charm, change.set ?? {});
    const defaults = configDefaults(app.charm);
    const next: Record<string, ConfigValue> = { ...app.config, ...values };
    for (const key of change.reset ?? []) {
      if (!Object.hasOwn(app.charm.config, key)) throw invalidArgument(`unknown option "${key}" for charm "${app.charm.name}"`);
      const fallback = defaults[key];
      if (fallback === undefined) delete next[key];
      else next[key] = fallback;
    }
    if (sameConfig(next, app.config)) return done({ changed: false });
    checkConfigSize(next, name);
    return {
      changes: [
        {
          op: 'update',
          ref: refs.application(name),
          set: { config: next, configVersion: app.configVersion + 1 },
          expect: { life: 'alive', equals: { configVersion: app.configVersion } },
        },
      ],
      result: { changed: true },
    };
  });
}

/** expose / unexpose: opened ports become reachable only while the application is exposed. */
export async function setExposed(store: Store, name: string, exposed: boolean): Promise<void> {
  await runOperation(store, `cannot ${exposed ? 'expose' : 'unexpose'} application "${name}"`, async () => {
    const app = await requireAliveApplication(store, name, exposed ? 'expose' : 'unexpose');
    if (app.exposed === exposed) return done(undefined);
    return { changes: [{ op: 'update', ref: refs.application(name), set: { exposed }, expect: { life: 'alive' } }], result: undefined };
  });
}
