// The topology as a graph: an application a node, a relation an edge labelled with its endpoints
// and interface. A peer relation has one endpoint and draws as a loop on its node; a
// container-scoped one joins a subordinate to its principal and draws dashed. What `drover stuck`
// lists marks its application (for itself or a unit of it) or its relation, with what holds it.
import { allUnits, type StatusDoc } from '#shared/domain/status-document.js';
import type { StuckEntity } from '#shared/domain/stuck-entity.js';
import { levelOf, RANK, unitLevel, worst, type Level } from './severity.js';

export interface PeerRelation {
  key: string;
  endpoint: string;
  interface: string;
}

export interface AppNode {
  name: string;
  charm: string;
  level: Level;
  /** The worst unit's message, or the application's. */
  message: string;
  units: number;
  /** How many of its units are at each level, worst first; only levels some unit is at. */
  counts: { level: Level; units: number }[];
  dying: boolean;
  peers: PeerRelation[];
  /** Why it, or a unit of it, is stuck (`drover stuck`'s reasons, each with what it is of). */
  stuck: string[];
}

export interface RelationEdge {
  id: number;
  key: string;
  from: string;
  to: string;
  scope: 'regular' | 'container';
  /** `wordpress:db ⟷ mysql:server`. */
  label: string;
  interface: string;
  dying: boolean;
  stuck: string[];
}

export interface Graph {
  nodes: AppNode[];
  edges: RelationEdge[];
}

const applicationOf = (endpoint: string) => endpoint.split(':')[0]!;

/** `unit mysql/0` and `application mysql` are mysql's; `relation <key>` is the relation's. */
function stuckReasons(stuck: readonly StuckEntity[]) {
  const ofApplication = new Map<string, string[]>();
  const ofRelation = new Map<string, string[]>();
  for (const s of stuck) {
    const [kind, ...rest] = s.entity.split(' ');
    const name = rest.join(' ');
    const reasons = s.reasons.length ? s.reasons.map((r) => `${s.entity}: ${r}`) : [`${s.entity} is ${s.life}`];
    if (kind === 'relation') ofRelation.set(name, [...(ofRelation.get(name) ?? []), ...reasons]);
    else if (kind === 'unit' || kind === 'application') {
      const application = name.split('/')[0]!;
      ofApplication.set(application, [...(ofApplication.get(application) ?? []), ...reasons]);
    }
  }
  return { ofApplication, ofRelation };
}

export function graphOf(doc: StatusDoc, stuck: readonly StuckEntity[] = []): Graph {
  const units = allUnits(doc);
  const { ofApplication, ofRelation } = stuckReasons(stuck);
  const nodes = Object.entries(doc.applications).map(([name, app]): AppNode => {
    const mine = units.filter((u) => u.application === name);
    const levels = mine.map((u) => unitLevel(u.unit));
    const level = mine.length ? worst(levels) : levelOf(app['application-status']);
    const worstUnit = mine.find((u) => unitLevel(u.unit) === level)?.unit;
    const message = worstUnit?.['juju-status'].message ?? worstUnit?.['workload-status'].message ?? app['application-status'].message ?? '';
    const counts = RANK.map((l) => ({ level: l, units: levels.filter((x) => x === l).length })).filter((c) => c.units > 0);
    return {
      name,
      charm: app['charm-name'],
      level,
      message,
      units: mine.length,
      counts,
      dying: app.life === 'dying',
      peers: [],
      stuck: ofApplication.get(name) ?? [],
    };
  });
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const edges: RelationEdge[] = [];
  for (const relation of doc.relations ?? []) {
    const endpoints = relation.key.split(' ');
    if (endpoints.length === 1) {
      byName
        .get(applicationOf(endpoints[0]!))
        ?.peers.push({ key: relation.key, endpoint: endpoints[0]!.split(':')[1] ?? '', interface: relation.interface ?? '' });
      continue;
    }
    const [from, to] = endpoints.map(applicationOf) as [string, string];
    if (!byName.has(from) || !byName.has(to)) continue;
    edges.push({
      id: relation.id,
      key: relation.key,
      from,
      to,
      scope: relation.scope === 'container' ? 'container' : 'regular',
      label: endpoints.join(' ⟷ '),
      interface: relation.interface ?? '',
      dying: relation.life === 'dying',
      stuck: ofRelation.get(relation.key) ?? [],
    });
  }
  return { nodes, edges };
}

/** What changes the layout: names and edges, not statuses. */
export const shapeOf = (graph: Graph) => JSON.stringify([graph.nodes.map((n) => n.name), graph.edges.map((e) => e.key)]);
