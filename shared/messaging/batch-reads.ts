// What one batch of stream records has read, shared by the batch's records of one model, so that
// a batch's reads grow with the relations and units it names, not with its records times the
// size of each scope (docs/architecture.md, "The notifier's reads").
//
// Why a batch may share reads: every record of a batch was committed before the batch was
// delivered, so the first read of a unit, a relation or a scope already sees what every record of
// the batch did; the batch's later records may take it as it is. A unit that left since costs one
// needless hint, which is harmless.
import type { Machine, Relation, Unit } from '../domain/entities.js';
import { refs } from '../domain/plan.js';
import { getEach } from '../state/engine/reads.js';
import type { Store } from '../state/engine/store.js';
import type { HintPlan } from './hint-plan.js';

/** Past this many remembered machines a scope or application is read again each time: bounded memory. */
const MAX_REMEMBERED_MACHINES = 100_000;

export class BatchReads {
  private readonly unitsRead = new Map<string, Unit | undefined>();
  private readonly relationsRead = new Map<string, Relation | undefined>();
  /** Whether each machine named by a record's images exists. */
  private readonly machinesRead = new Map<string, boolean>();
  private readonly machines = new Map<string, string[]>();
  private rememberedMachines = 0;

  /**
   * Reads at once (one request per 100 items) the machines, units and relations that the batch's
   * records name: a batch of 100 records costs a few requests, not one to three per record.
   */
  async prefetch(store: Store, plans: HintPlan[]): Promise<void> {
    const units = new Set<string>();
    const relations = new Set<string>();
    const machines = new Set<string>();
    for (const plan of plans) {
      if (plan.kind !== 'hint') continue;
      for (const lookup of plan.lookups) {
        if (lookup.kind === 'machines') for (const id of lookup.ids) machines.add(id);
        else if (lookup.kind === 'scopeChanged') {
          relations.add(lookup.relation);
          // An application's bag names the application where a unit would be.
          if (lookup.unit.includes('/')) units.add(lookup.unit);
        } else if (lookup.kind === 'settingsChanged') units.add(lookup.unit);
      }
    }
    await Promise.all([this.readUnits(store, [...units]), this.readMachines(store, [...machines])]);
    // A settings record names its relation by id; the writer's scopes name the relations' keys.
    for (const name of units) for (const key of this.unitsRead.get(name)?.scopes ?? []) relations.add(key);
    await this.readRelations(store, [...relations]);
  }

  /** The machines of `ids` that exist: ids from old images may name a machine removed since. */
  async existingMachines(store: Store, ids: string[]): Promise<string[]> {
    await this.readMachines(store, [...new Set(ids.filter((id) => !this.machinesRead.has(id)))]);
    return ids.filter((id) => this.machinesRead.get(id));
  }

  async unit(store: Store, name: string): Promise<Unit | undefined> {
    if (!this.unitsRead.has(name)) await this.readUnits(store, [name]);
    return this.unitsRead.get(name);
  }

  async relations(store: Store, keys: string[]): Promise<(Relation | undefined)[]> {
    await this.readRelations(store, [...new Set(keys.filter((k) => !this.relationsRead.has(k)))]);
    return keys.map((k) => this.relationsRead.get(k));
  }

  /** A relation the batch has read, by its id (settings records name their relation by id). */
  relationWithId(id: number): Relation | undefined {
    for (const relation of this.relationsRead.values()) if (relation?.id === id) return relation;
    return undefined;
  }

  /** The machines remembered for a scope or an application's units (`scopeKey`, `applicationKey`). */
  machinesOf(key: string): string[] | undefined {
    return this.machines.get(key);
  }

  /** Only what was read to its end may be remembered: a consumer that stopped early read part of it. */
  rememberMachines(key: string, machines: string[]): void {
    if (this.rememberedMachines + machines.length > MAX_REMEMBERED_MACHINES) return;
    this.machines.set(key, machines);
    this.rememberedMachines += machines.length;
  }

  private async readUnits(store: Store, names: string[]): Promise<void> {
    const found = await getEach<Unit>(store, names.map(refs.unit));
    names.forEach((name, i) => this.unitsRead.set(name, found[i]));
  }

  private async readMachines(store: Store, ids: string[]): Promise<void> {
    const found = await getEach<Machine>(store, ids.map(refs.machine));
    ids.forEach((id, i) => this.machinesRead.set(id, found[i] !== undefined));
  }

  private async readRelations(store: Store, keys: string[]): Promise<void> {
    const found = await getEach<Relation>(store, keys.map(refs.relation));
    keys.forEach((key, i) => this.relationsRead.set(key, found[i]));
  }
}

export const scopeKey = (relationKey: string) => `scope\u0000${relationKey}`;
export const applicationKey = (application: string) => `application\u0000${application}`;
