// Where the topology's nodes and edges go: elkjs lays the applications out (layered, left to right,
// the layers far enough apart for the widest relation label), and each label goes above its edge's
// longest segment. Nodes and edges go to elkjs sorted by name, so the same model is always drawn
// the same way whatever order its status lists them in.
import ElkModule, { type ELK, type ELKConstructorArguments, type ElkExtendedEdge, type ElkNode } from 'elkjs/lib/elk.bundled.js';
import type { Graph, RelationEdge } from './graph.js';

export const NODE_W = 200;
export const NODE_H = 96;
/** An edge label's line height, and the width of one of its characters (a guess elkjs lays out by). */
export const LABEL_LINE = 14;
const LABEL_CHAR = 6.6;
/**
 * The class itself: a bundler (the page's) types the CommonJS module's default as the class, Node's
 * rules (the unit tests') as the module, which at run time is the class too.
 */
const Elk = ElkModule as unknown as new (args?: ELKConstructorArguments) => ELK;
const elk = new Elk();

export interface Point {
  x: number;
  y: number;
}

export interface Placed {
  positions: Record<string, Point>;
  routes: Record<string, Point[]>;
  width: number;
  height: number;
}

/** The middle of a route's longest segment: where its label goes. */
export function labelPoint(route: Point[]): Point {
  let best = { x: route[0]!.x, y: route[0]!.y, length: -1 };
  for (let i = 1; i < route.length; i++) {
    const [a, b] = [route[i - 1]!, route[i]!];
    const length = Math.hypot(b.x - a.x, b.y - a.y);
    if (length > best.length) best = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, length };
  }
  return best;
}

const byName =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a).localeCompare(key(b));
export const edgeLines = (e: RelationEdge) => [
  e.label,
  `${e.interface || 'relation'}${e.scope === 'container' ? ' · subordinate' : ''}${e.stuck.length ? ' · ⚠ stuck' : ''}`,
];
export const labelWidth = (lines: string[]) => Math.max(...lines.map((l) => l.length)) * LABEL_CHAR + 8;

export async function layout(graph: Graph): Promise<Placed> {
  const request: ElkNode = {
    id: 'model',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '48',
      'elk.layered.spacing.nodeNodeBetweenLayers': String(Math.max(90, ...graph.edges.map((e) => labelWidth(edgeLines(e)) + 24))),
      // Keep the (sorted) order given: the same shape is always drawn the same way.
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
    },
    children: [...graph.nodes].sort(byName((n) => n.name)).map((n) => ({ id: n.name, width: NODE_W, height: NODE_H })),
    edges: [...graph.edges].sort(byName((e) => e.key)).map((e): ElkExtendedEdge => ({ id: e.key, sources: [e.from], targets: [e.to] })),
  };
  const result = await elk.layout(request);
  const positions: Placed['positions'] = {};
  for (const child of result.children ?? []) positions[child.id] = { x: child.x ?? 0, y: child.y ?? 0 };
  const routes: Placed['routes'] = {};
  for (const edge of result.edges ?? []) {
    const section = edge.sections?.[0];
    if (section) routes[edge.id] = [section.startPoint, ...(section.bendPoints ?? []), section.endPoint];
  }
  return { positions, routes, width: result.width ?? 0, height: result.height ?? 0 };
}
