// The graph layout of a large agent: laying it out against building its graph (parsing the file and
// reading its references), measured in alternation, for an agent of N and 2N nodes. Target: twice
// the nodes at most 2.5x the layout's time (linear, with slack for noise); the layout's cost against
// building the graph is reported (dagre's ranking and crossing reduction: about 25x on a 2-core
// machine). The unit tests check the layout itself, never its time.
import { buildWorkflowGraph } from '../src/core/graph/workflowGraph';
import { layoutGraph } from '../src/core/graph/graphLayout';
import { measurePair, table } from './support';

const NODES = 150;
const DOUBLING_TARGET = 2.5;

/** An agent of `count` template nodes, each using two earlier ones: many crossing edges to place. */
function largeAgent(count: number): string {
  const lines = ['version: 1', 'name: Large', 'inputs:', '  seed: { type: string }', 'nodes:'];
  for (let i = 0; i < count; i++) {
    const uses = i < 10 ? '{{ inputs.seed }}' : `{{ nodes.n${i - 10}.body }} {{ nodes.n${i - 7}.body }}`;
    lines.push(`  n${i}: { type: template, text: "${uses}" }`);
  }
  lines.push('outputs:', `  last: { from: "{{ nodes.n${count - 1}.body }}" }`, '');
  return lines.join('\n');
}

export function runGraphBenchmark(): boolean {
  const rows = [['agent', 'build the graph', 'lay it out', 'layout / build']];
  const layoutMs: number[] = [];
  for (const count of [NODES, NODES * 2]) {
    const text = largeAgent(count);
    const graph = buildWorkflowGraph(text);
    const { a: build, b: layout } = measurePair(
      () => buildWorkflowGraph(text),
      () => layoutGraph(graph),
      15,
    );
    layoutMs.push(layout.medianMs);
    const ratio = layout.medianMs / build.medianMs;
    rows.push([`${count} nodes`, `${build.medianMs.toFixed(2)} ms`, `${layout.medianMs.toFixed(2)} ms`, `${ratio.toFixed(2)}x`]);
  }
  const doubling = layoutMs[1]! / layoutMs[0]!;
  console.log(`Graph layout (medians of alternating runs; target: twice the nodes <= ${DOUBLING_TARGET}x the layout time)`);
  console.log(table(rows));
  console.log(`twice the nodes: ${doubling.toFixed(2)}x the layout time`);
  return doubling <= DOUBLING_TARGET;
}
