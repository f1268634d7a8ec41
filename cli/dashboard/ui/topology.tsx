// The model as a picture: topology-layout.ts places it, SVG draws it. A node shows its status as colour, icon and word, its units
// at each level, "dying", and what holds it when it is stuck; an edge its endpoints and interface
// (a subordinate relation dashed and so labelled), a peer relation a loop on its node. Nodes,
// edges and loops open their details on a click or Enter. The layout changes only when
// applications or relations come or go.
import { useEffect, useState } from 'preact/hooks';
import { shapeOf, type Graph } from './graph.js';
import { ICON } from './severity.js';
import { edgeLines, labelPoint, layout, LABEL_LINE, NODE_H, NODE_W, type Placed } from './topology-layout.js';

/** Characters of a message a node has room for; the whole message is in its tooltip and label. */
const MESSAGE_ROOM = 27;

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
