// The remote units a unit observes in each relation it is in, and their settings versions, read
// through the agent API's `relation-units` (a page at a time) only when a hint says a relation's
// scope changed, or after a resync. A hint that one unit's settings changed re-reads just that
// unit's version. Between hints nothing is read: an idle agent costs no reads.
import type { Relation, Unit } from '#shared/domain/entities.js';
import type { AgentApi } from '../api-client.js';

interface RelationUnitsPage {
  members: { unit: string; version: number }[];
  cursor?: string;
  /** The version of the other side's application bag (absent from an older controller). */
  appVersion?: number;
}

export class RelationMembers {
  private readonly known = new Map<string, Record<string, number>>();
  /** The version of the other side's application bag, per relation key, as last read. */
  private readonly appVersionOf = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private settingsHints: { relationId: number; unit: string }[] = [];
  private everythingDirty = true;

  markDirty(relationKey: string): void {
    this.dirty.add(relationKey);
  }

  markAllDirty(): void {
    this.everythingDirty = true;
  }

  settingsChanged(relationId: number, unit: string): void {
    this.settingsHints.push({ relationId, unit });
  }

  /** The members of every relation in `unit.scopes`, read where needed. */
  async sync(api: AgentApi, unit: Unit, relations: Relation[]): Promise<Record<string, Record<string, number>>> {
    const inScope = relations.filter((r) => unit.scopes.includes(r.key));
    for (const key of [...this.known.keys()]) {
      if (!unit.scopes.includes(key)) {
        this.known.delete(key);
        this.appVersionOf.delete(key);
      }
    }
    const toRead = new Set(
      inScope.filter((r) => this.everythingDirty || this.dirty.has(r.key) || !this.known.has(r.key)).map((r) => r.key),
    );
    this.everythingDirty = false;
    const hints = this.settingsHints;
    this.settingsHints = [];
    for (const hint of hints) {
      if (hint.unit === unit.name) continue;
      const relation = inScope.find((r) => r.id === hint.relationId);
      const members = relation && !toRead.has(relation.key) ? this.known.get(relation.key) : undefined;
      // Not a member yet: its arrival comes with its own (scope) hint.
      if (!relation || !members || !Object.hasOwn(members, hint.unit)) continue;
      try {
        const answer = await api.call<{ version: number }>('read-settings', {
          unit: unit.name,
          relationId: hint.relationId,
          of: hint.unit,
        });
        members[hint.unit] = answer.version;
      } catch {
        toRead.add(relation.key);
      }
    }
    for (const key of toRead) {
      this.dirty.delete(key); // before the read: a hint arriving during it marks it again
      this.known.set(key, await this.readAll(api, unit.name, key));
    }
    return Object.fromEntries(this.known);
  }

  /** The other side's application bag versions, for the relations read so far. */
  appVersions(): Record<string, number> {
    return Object.fromEntries(this.appVersionOf);
  }

  private async readAll(api: AgentApi, unit: string, relation: string): Promise<Record<string, number>> {
    const members: Record<string, number> = {};
    let cursor: string | undefined;
    do {
      const page = await api.call<RelationUnitsPage>('relation-units', { unit, relation, ...(cursor ? { cursor } : {}) });
      for (const m of page.members) members[m.unit] = m.version;
      if (page.appVersion !== undefined) this.appVersionOf.set(relation, page.appVersion);
      cursor = page.cursor;
    } while (cursor);
    return members;
  }
}
