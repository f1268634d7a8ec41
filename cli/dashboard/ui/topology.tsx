// The model as a picture: elkjs lays the applications out (layered, left to right), SVG draws
// them. A node shows its status as colour, icon and word, its unit count, and "dying".
import ELK, { type ElkExtendedEdge, type ElkNode } from 'elkjs/lib/elk.bundled.js';
import { useEffect, useState } from 'preact/hooks';
import { shapeOf, type Graph } from './graph.js';
import { ICON } from './severity.js';

const NODE_W = 190;
const NODE_H = 78;
/** Characters of a message a node has room for; the whole message is in its tooltip and label. */
const MESSAGE_ROOM = 26;
const elk = new ELK();

interface Placed {
  positions: Record<string, { x: number; y: number }>;
  routes: Record<string, { x: number; y: number }[]>;
  width: number;
  height: number;
}

async function layout(graph: Graph): Promise<Placed> {
  const request: ElkNode = {
    id: 'model',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '40',
      'elk.layered.spacing.nodeNodeBetweenLayers': '70',
    },
    children: graph.nodes.map((n) => ({ id: n.name, width: NODE_W, height: NODE_H })),
    edges: graph.edges.map((e): ElkExtendedEdge => ({ id: e.key, sources: [e.from], targets: [e.to] })),
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

export function Topology({ graph, onSelect }: { graph: Graph; onSelect: (application: string) => void }) {
  const [placed, setPlaced] = useState<Placed | undefined>();
  const shape = shapeOf(graph);
  useEffect(() => {
    let current = true;
    void layout(graph).then((p) => current && setPlaced(p));
    return () => void (current = false);
  }, [shape]);
  if (!graph.nodes.length) return <p class="empty">No applications in this model.</p>;
  if (!placed) return <p class="empty">Laying out…</p>;
  const pad = 16;
  return (
    <svg
      class="topology"
      role="group"
      aria-label="Applications and their relations"
      viewBox={`${-pad} ${-pad} ${placed.width + 2 * pad} ${placed.height + 2 * pad}`}
      style={{ maxWidth: `${placed.width + 2 * pad}px` }}
    >
      {graph.edges.map((e) => {
        const route = placed.routes[e.key];
        if (!route) return null;
        return (
          <polyline
            key={e.key}
            class={`edge ${e.scope}${e.dying ? ' dying' : ''}`}
            data-relation={e.key}
            points={route.map((p) => `${p.x},${p.y}`).join(' ')}
          >
            <title>{`${e.key} (${e.scope}${e.dying ? ', dying' : ''})`}</title>
          </polyline>
        );
      })}
      {graph.nodes.map((n) => {
        const at = placed.positions[n.name];
        if (!at) return null;
        const label = `${n.name}: ${n.level}${n.dying ? ', dying' : ''}, ${n.units} unit${n.units === 1 ? '' : 's'}${n.message ? `, ${n.message}` : ''}`;
        return (
          <g
            key={n.name}
            class={`node level-${n.level}${n.dying ? ' dying' : ''}`}
            data-application={n.name}
            data-level={n.level}
            transform={`translate(${at.x},${at.y})`}
            // SVG's attributes keep their case: `tabIndex` would be an unknown attribute, and the
            // node out of the Tab order.
            tabindex={0}
            role="button"
            aria-label={label}
            onClick={() => onSelect(n.name)}
            onKeyDown={(ev) => (ev.key === 'Enter' || ev.key === ' ') && onSelect(n.name)}
          >
            <title>{label}</title>
            <rect width={NODE_W} height={NODE_H} rx={8} />
            <text x={10} y={22} class="name">
              {ICON[n.level]} {n.name}
            </text>
            <text x={10} y={42} class="detail">
              {`${n.units} unit${n.units === 1 ? '' : 's'} · ${n.dying ? 'dying' : n.level}${n.peers.length ? ` · ⟲ ${n.peers.join(', ')}` : ''}`}
            </text>
            {n.message ? (
              <text x={10} y={62} class="message">
                {n.message.length > MESSAGE_ROOM ? `${n.message.slice(0, MESSAGE_ROOM - 1)}…` : n.message}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}
