// `config <app> key=value ... --reset k1,k2` and `expose`/`unexpose`: what changes on the
// application, decided from the application as read.
import { configDefaults, parseConfigValues } from '../charm.js';
import type { Application, ConfigValue } from '../entities.js';
import { invalidArgument, notAlive, notFound } from '../errors.js';
import { checkConfigSize } from '../item-size.js';
import { ownValue, sameEntries } from '../own-keys.js';
import { done, refs, type Plan } from '../plan.js';

export interface ConfigChange {
  set?: Record<string, string>;
  reset?: string[];
}

/** The application, which must exist and be Alive for `action`. */
function aliveApplication(app: Application | undefined, name: string, action: string): Application {
  if (!app) throw notFound(`application "${name}" not found`);
  if (app.life !== 'alive') throw notAlive(`cannot ${action}: application "${name}" is not alive`);
  return app;
}

const sameConfig = (a: Record<string, ConfigValue>, b: Record<string, ConfigValue>) => sameEntries(a, b);

/**
 * Sets and resets configuration. A change bumps configVersion, which is what tells every unit
 * agent to run config-changed (Juju's "Charms in action", docs/lifecycle-rules.md "Sources":
 * "whenever the service configuration changes"); a change that changes nothing bumps nothing, so
 * no hook runs needlessly.
 */
export function planSetApplicationConfig(found: Application | undefined, name: string, change: ConfigChange): Plan<{ changed: boolean }> {
  const app = aliveApplication(found, name, 'set config');
  const values = parseConfigValues(app.charm, change.set ?? {});
  const defaults = configDefaults(app.charm);
  const next: Record<string, ConfigValue> = { ...app.config, ...values };
  for (const key of change.reset ?? []) {
    if (!Object.hasOwn(app.charm.config, key)) throw invalidArgument(`unknown option "${key}" for charm "${app.charm.name}"`);
    const fallback = ownValue(defaults, key);
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
}

/** trust / trust --remove: Juju's application-config `trust`. */
export function planSetTrust(found: Application | undefined, name: string, trust: boolean): Plan<void> {
  const app = aliveApplication(found, name, 'update trust');
  if ((app.trust ?? false) === trust) return done(undefined);
  return { changes: [{ op: 'update', ref: refs.application(name), set: { trust }, expect: { life: 'alive' } }], result: undefined };
}

/** expose / unexpose: opened ports become reachable only while the application is exposed. */
export function planSetExposed(found: Application | undefined, name: string, exposed: boolean): Plan<void> {
  const app = aliveApplication(found, name, exposed ? 'expose' : 'unexpose');
  if (app.exposed === exposed) return done(undefined);
  return { changes: [{ op: 'update', ref: refs.application(name), set: { exposed }, expect: { life: 'alive' } }], result: undefined };
}
