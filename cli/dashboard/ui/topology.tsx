// The model as a picture: elkjs lays the applications out (layered, left to right, the layers far
// enough apart for the widest relation label), SVG draws them, each label above its edge's longest
// segment. A node shows its status as colour, icon and word, its units
// at each level, "dying", and what holds it when it is stuck; an edge its endpoints and interface
// (a subordinate relation dashed and so labelled), a peer relation a loop on its node. Nodes,
// edges and loops open their details on a click or Enter. Nodes and edges go to elkjs sorted by
// name, so the same model is always drawn the same way, and a layout changes only when
// applications or relations come or go.
import ELK, { type ElkExtendedEdge, type ElkNode } from 'elkjs/lib/elk.bundled.js';
import { useEffect, useState } from 'preact/hooks';
import { shapeOf, type Graph, type RelationEdge } from './graph.js';
import { ICON } from './severity.js';

const NODE_W = 200;
const NODE_H = 96;
/** Characters of a message a node has room for; the whole message is in its tooltip and label. */
const MESSAGE_ROOM = 27;
/** An edge label's line height, and the width of one of its characters (a guess elkjs lays out by). */
const LABEL_LINE = 14;
const LABEL_CHAR = 6.6;
const elk = new ELK();

interface Point {
  x: number;
  y: number;
}

interface Placed {
  positions: Record<string, Point>;
  routes: Record<string, Point[]>;
  width: number;
  height: number;
}

/** The middle of a route's longest segment: where its label goes. */
function labelPoint(route: Point[]): Point {
  let best = { x: route[0]!.x, y: route[0]!.y, length: -1 };
  for (let i = 1; i < route.length; i++) {
    const [a, b] = [route[i - 1]!, route[i]!];
    const length = Math.hypot(b.x - a.x, b.y - a.y);
    if (length > best.length) best = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, length };
  }
  return best;
}

const byName =
  <T,>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a).localeCompare(key(b));
const edgeLines = (e: RelationEdge) => [
  e.label,
  `${e.interface || 'relation'}${e.scope === 'container' ? ' · subordinate' : ''}${e.stuck.length ? ' · ⚠ stuck' : ''}`,
];
const labelWidth = (lines: string[]) => Math.max(...lines.map((l) => l.length)) * LABEL_CHAR + 8;

async function layout(graph: Graph): Promise<Placed> {
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

/** Enter or Space acts as a click does, as on a button. */
const onActivate = (act: () => void) => (ev: KeyboardEvent) => {
  if (ev.key !== 'Enter' && ev.key !== ' ') return;
  ev.preventDefault();
  act();
};

export function Topology({
  graph,
  onSelect,
  onSelectRelation,
}: {
  graph: Graph;
  onSelect: (application: string) => void;
  onSelectRelation: (key: string) => void;
}) {
  const [placed, setPlaced] = useState<Placed | undefined>();
  const shape = shapeOf(graph);
  useEffect(() => {
    let current = true;
    void layout(graph).then((p) => current && setPlaced(p));
    return () => void (current = false);
  }, [shape]);
  if (!graph.nodes.length) return <p class="empty">No applications in this model.</p>;
  if (!placed) return <p class="empty">Laying out…</p>;
  // Room above for the peer loops.
  const pad = 16;
  const top = 34;
  return (
    <svg
      class="topology"
      role="group"
      aria-label="Applications and their relations"
      viewBox={`${-pad} ${-top} ${placed.width + 2 * pad} ${placed.height + top + pad}`}
      style={{ maxWidth: `${placed.width + 2 * pad}px` }}
    >
      {graph.edges.map((e) => {
        const route = placed.routes[e.key];
        if (!route) return null;
        const at = labelPoint(route);
        const lines = edgeLines(e);
        const description = `relation ${e.label}, interface ${e.interface || 'unknown'}, ${e.scope === 'container' ? 'subordinate' : 'regular'}${e.dying ? ', dying' : ''}${e.stuck.length ? `; stuck: ${e.stuck.join('; ')}` : ''}`;
        return (
          <g
            key={e.key}
            class={`relation${e.stuck.length ? ' held' : ''}`}
            data-relation={e.key}
            tabindex={0}
            role="button"
            aria-label={description}
            onClick={() => onSelectRelation(e.key)}
            onKeyDown={onActivate(() => onSelectRelation(e.key))}
          >
            <title>{description}</title>
            <polyline
              class={`edge ${e.scope}${e.dying ? ' dying' : ''}`}
              data-relation={e.key}
              points={route.map((p) => `${p.x},${p.y}`).join(' ')}
            />
            <text class="edge-label" text-anchor="middle" x={at.x} y={at.y - LABEL_LINE - 5}>
              <tspan x={at.x}>{lines[0]}</tspan>
              <tspan x={at.x} dy={LABEL_LINE}>
                {lines[1]}
              </tspan>
            </text>
          </g>
        );
      })}
      {graph.nodes.map((n) => {
        const at = placed.positions[n.name];
        if (!at) return null;
        const counts = n.counts.map((c) => `${ICON[c.level]} ${c.units} ${c.level}`).join(' · ');
        const label = `${n.name}: ${n.level}${n.dying ? ', dying' : ''}, ${n.units} unit${n.units === 1 ? '' : 's'}${counts ? ` (${counts})` : ''}${n.message ? `, ${n.message}` : ''}${n.stuck.length ? `; stuck: ${n.stuck.join('; ')}` : ''}`;
        const shown = n.stuck.length ? `⚠ ${n.stuck[0]}` : n.message;
        return (
          <g
            key={n.name}
            class={`node level-${n.level}${n.dying ? ' dying' : ''}${n.stuck.length ? ' held' : ''}`}
            data-application={n.name}
            data-level={n.level}
            transform={`translate(${at.x},${at.y})`}
            // SVG's attributes keep their case: `tabIndex` would be an unknown attribute, and the
            // node out of the Tab order.
            tabindex={0}
            role="button"
            aria-label={label}
            onClick={() => onSelect(n.name)}
            onKeyDown={onActivate(() => onSelect(n.name))}
          >
            <title>{label}</title>
            <rect width={NODE_W} height={NODE_H} rx={8} />
            <text x={10} y={22} class="name">
              {ICON[n.level]} {n.name}
            </text>
            <text x={10} y={42} class="detail">
              {`${n.units} unit${n.units === 1 ? '' : 's'} · ${n.dying ? 'dying' : n.level}`}
            </text>
            {counts ? (
              <text x={10} y={62} class="counts">
                {counts}
              </text>
            ) : null}
            {shown ? (
              <text x={10} y={82} class={n.stuck.length ? 'message held' : 'message'}>
                {shown.length > MESSAGE_ROOM ? `${shown.slice(0, MESSAGE_ROOM - 1)}…` : shown}
              </text>
            ) : null}
          </g>
        );
      })}
      {graph.nodes.flatMap((n) => {
        const at = placed.positions[n.name];
        if (!at) return [];
        return n.peers.map((p, i) => {
          // A loop above the node's right end, one per peer relation, each further left.
          const x = at.x + NODE_W - 24 - i * 70;
          const description = `peer relation ${p.key}, interface ${p.interface || 'unknown'}`;
          return (
            <g
              key={p.key}
              class="peer"
              data-relation={p.key}
              tabindex={0}
              role="button"
              aria-label={description}
              onClick={() => onSelectRelation(p.key)}
              onKeyDown={onActivate(() => onSelectRelation(p.key))}
            >
              <title>{description}</title>
              <path class="edge peer-loop" d={`M ${x} ${at.y} C ${x - 14} ${at.y - 30}, ${x + 30} ${at.y - 30}, ${x + 16} ${at.y}`} />
              <text class="edge-label" x={x - 44} y={at.y - 22}>
                ⟲ {p.endpoint}
              </text>
            </g>
          );
        });
      })}
    </svg>
  );
}
