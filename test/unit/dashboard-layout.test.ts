// The topology's layout (cli/dashboard/ui/topology-layout.ts) with the real elkjs: the same model is
// drawn the same way whatever order its status lists it in, the layers leave room for the widest
// relation label, and a label sits on its edge's longest segment.
import { describe, expect, it } from 'vitest';
import type { Graph } from '../../cli/dashboard/ui/graph.js';
import { edgeLines, labelPoint, labelWidth, layout, NODE_W } from '../../cli/dashboard/ui/topology-layout.js';

const node = (name: string) => ({
  name,
  charm: name,
  level: 'ok' as const,
  message: '',
  units: 1,
  counts: [],
  dying: false,
  peers: [],
  stuck: [],
});
const edge = (from: string, to: string, label: string) => ({
  id: 0,
  key: `${from}:a ${to}:b`,
  from,
  to,
  scope: 'regular' as const,
  label,
  interface: 'http',
  dying: false,
  stuck: [],
});

const graph: Graph = {
  nodes: ['wordpress', 'mysql', 'cache', 'haproxy'].map(node),
  edges: [
    edge('wordpress', 'mysql', 'wordpress:a-rather-long-endpoint-name ⟷ mysql:server'),
    edge('haproxy', 'wordpress', 'haproxy:a ⟷ wordpress:b'),
    edge('wordpress', 'cache', 'wordpress:a ⟷ cache:b'),
  ],
};

describe("the topology's layout", () => {
  it('is the same whatever order the applications and relations come in', async () => {
    const reordered: Graph = { nodes: [...graph.nodes].reverse(), edges: [...graph.edges].reverse() };
    const [first, second] = await Promise.all([layout(graph), layout(reordered)]);
    expect(second.positions).toEqual(first.positions);
    expect(second.routes).toEqual(first.routes);
  });

  it('leaves room between layers for the widest relation label', async () => {
    const placed = await layout(graph);
    const widest = Math.max(...graph.edges.map((e) => labelWidth(edgeLines(e))));
    const gap = placed.positions.mysql!.x - (placed.positions.wordpress!.x + NODE_W);
    expect(gap).toBeGreaterThanOrEqual(widest);
  });

  it("puts a label on the middle of its edge's longest segment", () => {
    expect(
      labelPoint([
        { x: 0, y: 0 },
        { x: 10, y: 0 },
        { x: 10, y: 100 },
      ]),
    ).toMatchObject({ x: 10, y: 50 });
  });
});
