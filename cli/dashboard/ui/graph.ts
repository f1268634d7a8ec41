// The topology as a graph: an application a node, a relation an edge. A peer relation has one
// endpoint and draws as a mark on its node; a container-scoped one joins a subordinate to its
// principal and draws dashed.
import { allUnits, type StatusDoc } from '#shared/domain/status-document.js';
import { levelOf, unitLevel, worst, type Level } from './severity.js';

export interface AppNode {
  name: string;
  charm: string;
  level: Level;
  /** The worst unit's message, or the application's. */
  message: string;
  units: number;
  dying: boolean;
  peers: string[];
}

export interface RelationEdge {
  id: number;
  key: string;
  from: string;
  to: string;
  scope: 'regular' | 'container';
  dying: boolean;
}

export interface Graph {
  nodes: AppNode[];
  edges: RelationEdge[];
}

const applicationOf = (endpoint: string) => endpoint.split(':')[0]!;

export function graphOf(doc: StatusDoc): Graph {
  const units = allUnits(doc);
  const nodes = Object.entries(doc.applications).map(([name, app]): AppNode => {
    const mine = units.filter((u) => u.application === name);
    const levels = mine.map((u) => unitLevel(u.unit));
    const level = mine.length ? worst(levels) : levelOf(app['application-status']);
    const worstUnit = mine.find((u) => unitLevel(u.unit) === level)?.unit;
    const message = worstUnit?.['juju-status'].message ?? worstUnit?.['workload-status'].message ?? app['application-status'].message ?? '';
    return { name, charm: app['charm-name'], level, message, units: mine.length, dying: app.life === 'dying', peers: [] };
  });
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const edges: RelationEdge[] = [];
  for (const relation of doc.relations ?? []) {
    const endpoints = relation.key.split(' ');
    if (endpoints.length === 1) {
      byName.get(applicationOf(endpoints[0]!))?.peers.push(endpoints[0]!.split(':')[1] ?? '');
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
      dying: relation.life === 'dying',
    });
  }
  return { nodes, edges };
}

/** What changes the layout: names and edges, not statuses. */
export const shapeOf = (graph: Graph) => JSON.stringify([graph.nodes.map((n) => n.name), graph.edges.map((e) => e.key)]);
