// Positions for the workflow graph, left to right, computed with dagre (the layered layout of
// Graphviz's "dot", maintained by the dagrejs project).
//
// The layout runs here, in the extension host, not in the webview: it is pure and deterministic,
// so unit tests check the real positions in plain Node, and the webview stays a small drawing
// script with no layout code of its own. Boxes have fixed sizes per kind (long names are cut with
// an ellipsis and shown whole in a tooltip), so no text needs measuring in the browser.
import { graphlib, layout } from '@dagrejs/dagre';
import type { EdgeLabel, GraphLabel, NodeLabel } from '@dagrejs/dagre';
import type { GraphEdge, GraphNode, WorkflowGraph } from './workflowGraph';

export interface Point {
  readonly x: number;
  readonly y: number;
}

/** A box's size for each kind of graph node, in CSS pixels. */
export const NODE_SIZE: Readonly<Record<GraphNode['kind'], { readonly width: number; readonly height: number }>> = {
  input: { width: 136, height: 46 },
  node: { width: 196, height: 74 },
  output: { width: 136, height: 46 },
};

const SPACING = { ranksep: 36, nodesep: 16, marginx: 12, marginy: 12 } as const;
/** How far an edge runs straight out of a box and into the next before it bends. */
const EDGE_LEAD = 10;
/** Up to this many graph nodes, VARIANTS layouts are compared (each takes a few milliseconds). */
const MAX_NODES_TO_COMPARE = 40;
const VARIANTS = 8;

/** A graph node with its box: x and y are the top-left corner. */
export type PlacedNode = GraphNode & { readonly x: number; readonly y: number; readonly width: number; readonly height: number };

export interface PlacedEdge extends GraphEdge {
  /** From the border of `from` to the border of `to`, through the bends dagre chose. */
  readonly points: readonly Point[];
}

export interface GraphLayout {
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly PlacedEdge[];
}

export interface LayoutOptions {
  /** dagre ranks the graph itself, as it would by default: the picture the columns must give (tests compare). */
  readonly dagreRanking?: boolean;
}

export function layoutGraph(graph: Pick<WorkflowGraph, 'nodes' | 'edges'>, options: LayoutOptions = {}): GraphLayout {
  if (graph.nodes.length === 0) return { width: 0, height: 0, nodes: [], edges: [] };
  const keys = new Set(graph.nodes.map((node) => node.key));
  const edges = graph.edges.filter((edge) => keys.has(edge.from) && keys.has(edge.to));
  const ranks = columns(graph);
  const anchors = anchorEdges(graph, edges, ranks);
  // dagre's crossing reduction is a heuristic that depends on the order nodes and edges are added.
  // Small graphs (the usual agent) are laid out in a few orders and the tidiest picture is kept:
  // fewest crossings, then closest to the order the file declares things in.
  // A larger graph gets one layout, and its crossings (quadratic in the edges' points) go uncounted.
  const declared = { nodes: graph.nodes, edges };
  if (graph.nodes.length > MAX_NODES_TO_COMPARE) return runDagre(declared, graph.nodes, edges, anchors, ranks, options);
  const random = seededRandom(1);
  let best: { layout: GraphLayout; score: number } | undefined;
  for (let variant = 0; variant < VARIANTS; variant++) {
    // The declared order, reversed orders, then shuffles from a fixed seed (the same picture every time).
    const nodeOrder = variant < 4 ? (variant & 1 ? [...graph.nodes].reverse() : graph.nodes) : shuffled(graph.nodes, random);
    const edgeOrder = variant < 4 ? (variant & 2 ? [...edges].reverse() : edges) : shuffled(edges, random);
    const candidate = runDagre(declared, nodeOrder, edgeOrder, anchors, ranks, options);
    const score = crossings(candidate.edges) * (graph.nodes.length ** 2 + 1) + inversions(candidate.nodes, ranks);
    if (!best || score < best.score) best = { layout: candidate, score };
    if (score === 0) break;
  }
  return best!.layout;
}

/** One dagre layout, the nodes added in nodeOrder and the edges in edgeOrder; the result lists them as in `declared`. */
function runDagre(
  declared: { readonly nodes: readonly GraphNode[]; readonly edges: readonly GraphEdge[] },
  nodeOrder: readonly GraphNode[],
  edgeOrder: readonly GraphEdge[],
  anchors: readonly GraphEdge[],
  ranks: ReadonlyMap<string, number>,
  options: LayoutOptions,
): GraphLayout {
  const g = new graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: false });
  // The columns are known already, and with every edge exactly as long as its column difference
  // (below) they are the ranks dagre's network simplex would find, at a twentieth of its cost (the
  // most of a large graph's layout): given as the ranker, a function dagre calls in place of its
  // own (its types name only its built-in ones). dagre's graph asks each edge for twice its length,
  // leaving room for edge labels. A cycle (a problem of the file) has an edge going back a column:
  // dagre's own ranker places that graph.
  const forward =
    !options.dagreRanking && [...edgeOrder, ...anchors].every((edge) => (ranks.get(edge.to) ?? 0) > (ranks.get(edge.from) ?? 0));
  const ranker = (layered: graphlib.Graph<unknown, NodeLabel & { rank?: number }>): void => {
    for (const key of layered.nodes()) layered.node(key).rank = 2 * (ranks.get(key) ?? 0);
  };
  g.setGraph({ rankdir: 'LR', ...SPACING, ...(forward ? { ranker } : {}) } as unknown as GraphLabel);
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of nodeOrder) g.setNode(node.key, { ...NODE_SIZE[node.kind] });
  // Every edge exactly as long as the column difference: dagre's ranking (which minimises the total
  // edge length) then keeps inputs in the first column and outputs in the last.
  for (const edge of [...edgeOrder, ...anchors]) {
    g.setEdge(edge.from, edge.to, { minlen: Math.max(1, (ranks.get(edge.to) ?? 0) - (ranks.get(edge.from) ?? 0)) });
  }
  layout(g);

  const nodes = declared.nodes.map((node): PlacedNode => {
    const label = g.node(node.key);
    const { width, height } = NODE_SIZE[node.kind];
    // dagre gives centres.
    return { ...node, x: round((label.x ?? 0) - width / 2), y: round((label.y ?? 0) - height / 2), width, height };
  });
  const boxes = new Map(nodes.map((node) => [node.key, node]));
  const placedEdges = declared.edges.flatMap((edge): PlacedEdge[] => {
    const label = g.edge(edge.from, edge.to) as EdgeLabel | undefined;
    const from = boxes.get(edge.from);
    const to = boxes.get(edge.to);
    if (!label?.points || !from || !to) return [];
    // dagre ends edges wherever the line to the centre crosses the box, top and bottom included;
    // a flow reads better with every edge leaving a box's right side and entering the next box's
    // left side, horizontally, so the ends are moved there and dagre's bends kept in between.
    const start = { x: from.x + from.width, y: from.y + from.height / 2 };
    const end = { x: to.x, y: to.y + to.height / 2 };
    const bends = label.points.slice(1, -1);
    const lead = Math.min(EDGE_LEAD, (end.x - start.x) / 4);
    return [
      {
        ...edge,
        points: [start, { x: start.x + lead, y: start.y }, ...bends, { x: end.x - lead, y: end.y }, end].map((p) => ({
          x: round(p.x),
          y: round(p.y),
        })),
      },
    ];
  });
  const size = g.graph();
  return { width: Math.ceil(size.width ?? 0), height: Math.ceil(size.height ?? 0), nodes, edges: placedEdges };
}

/** How many times the drawn edges cross (polylines through their points; shared ends do not count). */
export function crossings(edges: readonly PlacedEdge[]): number {
  let count = 0;
  for (let i = 0; i < edges.length; i++) {
    for (let j = i + 1; j < edges.length; j++) {
      const a = edges[i]!;
      const b = edges[j]!;
      for (let p = 1; p < a.points.length; p++) {
        for (let q = 1; q < b.points.length; q++) {
          if (segmentsCross(a.points[p - 1]!, a.points[p]!, b.points[q - 1]!, b.points[q]!)) count++;
        }
      }
    }
  }
  return count;
}

/** Proper crossings only: segments that merely touch (edges leaving the same box) do not count. */
function segmentsCross(a: Point, b: Point, c: Point, d: Point): boolean {
  const side = (p: Point, q: Point, r: Point) => Math.sign((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x));
  return side(a, b, c) * side(a, b, d) < 0 && side(c, d, a) * side(c, d, b) < 0;
}

/** Pairs of graph nodes in one column drawn in the opposite order to the file's. */
function inversions(nodes: readonly PlacedNode[], ranks: ReadonlyMap<string, number>): number {
  let count = 0;
  for (let i = 0; i < nodes.length; i++) {
    for (let j = i + 1; j < nodes.length; j++) {
      if (ranks.get(nodes[i]!.key) === ranks.get(nodes[j]!.key) && nodes[i]!.y > nodes[j]!.y) count++;
    }
  }
  return count;
}

/**
 * The column of each graph node: inputs first, then each processing node one column after the
 * last node it references (the order they run in), then every output in a column of its own.
 */
export function columns(graph: Pick<WorkflowGraph, 'nodes' | 'edges'>): Map<string, number> {
  const ranks = new Map<string, number>();
  const dependencies = new Map<string, string[]>();
  for (const edge of graph.edges) {
    if (edge.to.startsWith('node:') && edge.from.startsWith('node:'))
      dependencies.set(edge.to, [...(dependencies.get(edge.to) ?? []), edge.from]);
  }
  const onPath = new Set<string>();
  // Iterative depth-first search, so a long chain of nodes cannot overflow the stack; a reference
  // back into the current path (a cycle, reported as a problem) is not followed.
  const rankOf = (start: string): number => {
    const stack: string[] = [start];
    while (stack.length > 0) {
      const key = stack[stack.length - 1]!;
      if (ranks.has(key)) {
        stack.pop();
        continue;
      }
      onPath.add(key);
      const pending = (dependencies.get(key) ?? []).filter((dependency) => !ranks.has(dependency) && !onPath.has(dependency));
      if (pending.length > 0) {
        stack.push(...pending);
        continue;
      }
      const before = (dependencies.get(key) ?? []).map((dependency) => ranks.get(dependency) ?? 0);
      ranks.set(key, 1 + Math.max(0, ...before));
      onPath.delete(key);
      stack.pop();
    }
    return ranks.get(start)!;
  };
  let last = 0;
  for (const node of graph.nodes) {
    if (node.kind === 'input') ranks.set(node.key, 0);
    else if (node.kind === 'node') last = Math.max(last, rankOf(node.key));
  }
  for (const node of graph.nodes) if (node.kind === 'output') ranks.set(node.key, last + 1);
  return ranks;
}

/**
 * Invisible edges that tie each part of the graph not fed by an input (an unused output, nodes that
 * use no input) to a node one column to its left. dagre places each unconnected part from its
 * first column on; tied, the part starts in its own column.
 */
function anchorEdges(graph: Pick<WorkflowGraph, 'nodes'>, edges: readonly GraphEdge[], ranks: ReadonlyMap<string, number>): GraphEdge[] {
  const parent = new Map<string, string>(graph.nodes.map((node) => [node.key, node.key]));
  const find = (key: string): string => {
    let root = key;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(key, root);
    return root;
  };
  for (const edge of edges) parent.set(find(edge.from), find(edge.to));
  const first = new Map<string, string>(); // component → its member in the leftmost column
  for (const node of graph.nodes) {
    const component = find(node.key);
    const current = first.get(component);
    if (current === undefined || (ranks.get(node.key) ?? 0) < (ranks.get(current) ?? 0)) first.set(component, node.key);
  }
  const anchors: GraphEdge[] = [];
  for (const member of first.values()) {
    const column = ranks.get(member) ?? 0;
    if (column === 0) continue;
    const anchor = graph.nodes.find((node) => ranks.get(node.key) === column - 1);
    if (anchor) anchors.push({ from: anchor.key, to: member });
  }
  return anchors;
}

/** A small linear congruential generator: shuffles that are the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
