// The workflow graph the editor draws (src/core/graph/workflowGraph.ts) and its left-to-right layout
// (src/core/graph/graphLayout.ts), from agent file text.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { columns, layoutGraph, NODE_SIZE } from '../../src/core/graph/graphLayout';
import type { GraphLayout, PlacedNode } from '../../src/core/graph/graphLayout';
import { buildWorkflowGraph, urlHost } from '../../src/core/graph/workflowGraph';
import type { GraphNode, ProcessingGraphNode, WorkflowGraph } from '../../src/core/graph/workflowGraph';
import { fixturesDir, repoRoot } from '../support/paths';

const customer360 = readFileSync(join(repoRoot, 'examples', 'customer-360.agent.yaml'), 'utf8');

function node(graph: WorkflowGraph, key: string): GraphNode {
  const found = graph.nodes.find((candidate) => candidate.key === key);
  assert.ok(found, `${key} in ${graph.nodes.map((n) => n.key).join(', ')}`);
  return found;
}

function processing(graph: WorkflowGraph, id: string): ProcessingGraphNode {
  const found = node(graph, `node:${id}`);
  assert.equal(found.kind, 'node');
  return found as ProcessingGraphNode;
}

function edges(graph: Pick<WorkflowGraph, 'edges'>): string[] {
  return graph.edges.map((edge) => `${edge.from} -> ${edge.to}`);
}

/** An agent with one API node whose settings and URL are given. */
function apiAgent(settings: string[], url = 'https://api.example.com/v1/items', method = 'GET'): string {
  return [
    'version: 1',
    'name: Auth',
    'nodes:',
    '  call:',
    '    type: api',
    `    method: ${method}`,
    `    url: ${url}`,
    ...(settings.length ? ['    settings:', ...settings.map((s) => `      - ${JSON.stringify(s)}`)] : []),
    '',
  ].join('\n');
}

describe('workflow graph', () => {
  describe('from a valid agent', () => {
    const graph = buildWorkflowGraph(customer360);

    it('has its inputs, nodes and outputs, in the order written', () => {
      assert.equal(graph.readable, true);
      assert.equal(graph.name, 'Customer 360');
      assert.deepEqual(graph.problems, []);
      assert.deepEqual(
        graph.nodes.map((n) => n.key),
        [
          'input:customer_id',
          'node:profile',
          'node:invoices',
          'node:tickets',
          'node:summary',
          'output:summary',
          'output:profile',
          'output:invoices',
        ],
      );
    });

    it('describes each processing node: type, method, host and how it authenticates', () => {
      const describe = (id: string) => {
        const { type, method, host, auth } = processing(graph, id);
        return { type, method, host, auth };
      };
      assert.deepEqual(describe('profile'), { type: 'api', method: 'GET', host: 'crm.example.com', auth: ['bearer'] });
      assert.deepEqual(describe('invoices'), { type: 'api', method: 'POST', host: 'billing.example.com', auth: ['basic'] });
      assert.deepEqual(describe('tickets'), { type: 'api', method: 'GET', host: 'support.example.com', auth: ['api-key-url'] });
      assert.deepEqual(describe('summary'), { type: 'template', method: undefined, host: undefined, auth: [] });
      const input = node(graph, 'input:customer_id');
      assert.ok(input.kind === 'input' && input.valueType === 'string' && input.required);
    });

    it('joins them by their references: input → node, node → node, node → output', () => {
      assert.deepEqual(edges(graph), [
        'input:customer_id -> node:profile',
        'input:customer_id -> node:invoices',
        'input:customer_id -> node:tickets',
        'node:profile -> node:summary',
        'node:invoices -> node:summary',
        'node:tickets -> node:summary',
        'node:summary -> output:summary',
        'node:profile -> output:profile',
        'node:invoices -> output:invoices',
      ]);
    });

    it('gives each graph node the name to select and the entry to reveal', () => {
      for (const n of graph.nodes) {
        assert.equal(customer360.slice(n.select.start, n.select.end), n.name, n.key);
        assert.ok(n.extent.start === n.select.start && n.extent.end > n.select.end, n.key);
      }
      const invoices = processing(graph, 'invoices');
      const entry = customer360.slice(invoices.extent.start, invoices.extent.end);
      assert.match(entry, /^invoices:\n {4}type: api\n/);
      assert.match(entry, /status: open$/);
      const output = node(graph, 'output:invoices');
      assert.equal(customer360.slice(output.extent.start, output.extent.end), 'invoices: { from: "{{ nodes.invoices.body.items }}" }');
    });
  });

  describe('edges', () => {
    it('link an input straight to an output, once per pair, and skip undeclared names and self references', () => {
      const graph = buildWorkflowGraph(
        [
          'version: 1',
          'name: Edges',
          'inputs:',
          '  a: { type: string }',
          'nodes:',
          '  one:',
          '    type: template',
          '    text: "{{ inputs.a }} {{ inputs.a }} {{ inputs.missing }} {{ nodes.one.body }} {{ nodes.ghost.body }}"',
          '  two:',
          '    type: template',
          '    text: "{{ nodes.one.body }}"',
          'outputs:',
          '  echo: { from: "{{ inputs.a }}" }',
          '  both: { from: "{{ nodes.two.body }} {{ nodes.one.body }} {{ secrets.KEY }}" }',
          '',
        ].join('\n'),
      );
      assert.deepEqual(edges(graph), [
        'input:a -> node:one',
        'node:one -> node:two',
        'input:a -> output:echo',
        'node:two -> output:both',
        'node:one -> output:both',
      ]);
      assert.deepEqual(graph.problems.map((p) => p.code).sort(), ['cycle', 'unknown-input', 'unknown-node']);
    });

    it('are drawn for references inside a body, a URL and settings', () => {
      const graph = buildWorkflowGraph(
        [
          'version: 1',
          'name: Body',
          'inputs:',
          '  id: { type: string }',
          '  token: { type: string }',
          'nodes:',
          '  first:',
          '    type: api',
          '    method: GET',
          '    url: https://a.example.com/items/{{ inputs.id }}',
          '  second:',
          '    type: api',
          '    method: POST',
          '    url: https://b.example.com/{{ nodes.first.body.path }}',
          '    settings:',
          '      - "X-Trace: {{ inputs.token }}"',
          '      - "Content-Type: application/json"',
          '    body:',
          '      items: ["{{ nodes.first.body.items }}"]',
          '',
        ].join('\n'),
      );
      assert.deepEqual(edges(graph), ['input:id -> node:first', 'node:first -> node:second', 'input:token -> node:second']);
    });
  });

  describe('auth badges', () => {
    const badges = (settings: string[], url?: string, method?: string) =>
      processing(buildWorkflowGraph(apiAgent(settings, url, method)), 'call').auth;

    it('tell Bearer, Basic, an API key header and an API key in the URL apart', () => {
      assert.deepEqual(badges(['Authorization: Bearer {{ secrets.TOKEN }}']), ['bearer']);
      assert.deepEqual(badges(['authorization: bearer {{ secrets.TOKEN }}']), ['bearer']);
      assert.deepEqual(badges(['Authorization: Basic {{ secrets.BASIC }}'], undefined, 'POST'), ['basic']);
      assert.deepEqual(badges(['x-api-key: {{ secrets.KEY }}']), ['api-key-header']);
      assert.deepEqual(badges(['Ocp-Apim-Subscription-Key: {{ secrets.KEY }}']), ['api-key-header']);
      assert.deepEqual(badges([], 'https://api.example.com/v1?q=1&api_key={{ secrets.KEY }}'), ['api-key-url']);
      assert.deepEqual(badges([], 'https://api.example.com/v1?apikey={{ secrets.KEY }}'), ['api-key-url']);
      // Any credential the URL carries: a token in the query, a password (sent as Basic).
      assert.deepEqual(badges([], 'https://api.example.com/v1?access_token={{ secrets.T }}'), ['api-key-url']);
      assert.deepEqual(badges([], 'https://alice:{{ secrets.P }}@api.example.com/v1'), ['basic']);
      assert.deepEqual(badges([], 'https://alice@api.example.com/v1'), ['none'], 'a user name alone is no credential');
    });

    it('say "other" for another scheme or a whole-value secret, and "none" for an API node without credentials', () => {
      assert.deepEqual(badges(['Authorization: Token {{ secrets.TOKEN }}']), ['other']);
      assert.deepEqual(badges(['Authorization: {{ secrets.AUTHORIZATION }}']), ['other']);
      assert.deepEqual(badges(['Accept: application/json']), ['none']);
      assert.deepEqual(badges([]), ['none']);
      // "api_key" only counts as a query parameter name, not in the path or as a value.
      assert.deepEqual(badges([], 'https://api.example.com/api_key/v1?name=api_key'), ['none']);
    });

    it('list every way a node sends credentials, once each', () => {
      assert.deepEqual(
        badges(
          ['Authorization: Bearer {{ secrets.A }}', 'x-api-key: {{ secrets.B }}', 'Authorization: Bearer {{ secrets.C }}'],
          'https://api.example.com/v1?api_key={{ secrets.D }}',
        ),
        ['bearer', 'api-key-header', 'api-key-url'],
      );
    });
  });

  describe('URL host', () => {
    it('is the authority without user info, as written', () => {
      assert.equal(urlHost('https://api.example.com/v1/items?x=1'), 'api.example.com');
      assert.equal(urlHost('http://127.0.0.1:8787/run'), '127.0.0.1:8787');
      assert.equal(urlHost('https://alice:s3cret@api.example.com:8443/x'), 'api.example.com:8443');
      assert.equal(urlHost('https://api.example.com'), 'api.example.com');
    });

    it('keeps expressions in the host and is undefined without one', () => {
      assert.equal(urlHost('https://{{ inputs.region }}.example.com/v1'), '{{ inputs.region }}.example.com');
      assert.equal(urlHost('https://{{ inputs.host }}/{{ nodes.a.body["x/y"] }}'), '{{ inputs.host }}');
      assert.equal(urlHost('{{ inputs.url }}'), undefined);
      assert.equal(urlHost('not a url'), undefined);
      assert.equal(urlHost('https:///path'), undefined);
    });
  });

  describe('a file with problems', () => {
    it('counts the problems inside each entry on its graph node', () => {
      const graph = buildWorkflowGraph(readFileSync(join(fixturesDir, 'workspace', 'broken.agent.yaml'), 'utf8'));
      assert.equal(graph.readable, true);
      const summarize = processing(graph, 'summarize');
      assert.deepEqual(summarize.problems, { errors: 3, warnings: 0, infos: 0 });
      assert.equal(summarize.method, 'post');
      assert.deepEqual(node(graph, 'input:ticket').problems, { errors: 0, warnings: 0, infos: 1 });
      assert.deepEqual(node(graph, 'output:summary').problems, { errors: 0, warnings: 0, infos: 0 });
      assert.deepEqual(
        graph.problems.map((p) => p.code),
        ['unused-input', 'unknown-http-method', 'basic-not-encoded', 'unknown-input'],
      );
    });

    it('still draws what the YAML parser recovered around a syntax error', () => {
      const text = [
        'version: 1',
        'name: Typing',
        'inputs:',
        '  who: { type: string }',
        'nodes:',
        '  greet:',
        '    type: template',
        '    text: "Hello {{ inputs.who }}"',
        '  shout:',
        '    type: api',
        '    method: POST',
        '     url: https://api.example.com/shout',
        'outputs:',
        '  greeting: { from: "{{ nodes.greet.body }}" }',
        '',
      ].join('\n');
      const graph = buildWorkflowGraph(text);
      assert.ok(graph.problems.some((p) => p.code === 'yaml-syntax'));
      assert.equal(graph.readable, true);
      assert.deepEqual(
        graph.nodes.map((n) => n.key),
        ['input:who', 'node:greet', 'node:shout', 'output:greeting'],
      );
      assert.deepEqual(edges(graph), ['input:who -> node:greet', 'node:greet -> output:greeting']);
      assert.ok(processing(graph, 'shout').problems.errors > 0, 'the broken line is inside shout');
    });

    it('gives an empty graph and the problems when there is nothing to read', () => {
      for (const [text, code] of [
        ['', 'empty-file'],
        ['# only a comment\n', 'empty-file'],
        ['- a\n- b\n', 'not-a-mapping'],
        ['just text\n', 'not-a-mapping'],
        ['key: [unclosed\n', 'yaml-syntax'],
        ['\u0000\u0001binary', 'not-text'],
      ] as const) {
        const graph = buildWorkflowGraph(text);
        assert.deepEqual(graph.nodes, [], JSON.stringify(text));
        assert.deepEqual(graph.edges, []);
        assert.ok(
          graph.problems.some((p) => p.code === code),
          `${JSON.stringify(text)}: ${graph.problems.map((p) => p.code).join(', ')}`,
        );
        assert.deepEqual(layoutGraph(graph), { width: 0, height: 0, nodes: [], edges: [] });
      }
    });

    it('keeps the first of two entries with the same name, as validation does', () => {
      const graph = buildWorkflowGraph(
        ['version: 1', 'name: Twice', 'inputs:', '  a: { type: string }', '  a: { type: number }', ''].join('\n'),
      );
      assert.deepEqual(
        graph.nodes.map((n) => n.key),
        ['input:a'],
      );
      const input = node(graph, 'input:a');
      assert.ok(input.kind === 'input' && input.valueType === 'string');
      assert.ok(graph.problems.some((p) => p.code === 'duplicate-key'));
    });
  });
});

describe('workflow graph layout', () => {
  function placed(layout: GraphLayout, key: string): PlacedNode {
    const found = layout.nodes.find((n) => n.key === key);
    assert.ok(found, key);
    return found;
  }

  function assertNoOverlap(layout: GraphLayout): void {
    for (const a of layout.nodes) {
      for (const b of layout.nodes) {
        if (a === b) continue;
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        assert.ok(apart, `${a.key} overlaps ${b.key}`);
      }
    }
  }

  it('lays the graph out left to right: inputs first, outputs last, every edge pointing right', () => {
    const graph = buildWorkflowGraph(customer360);
    const layout = layoutGraph(graph);
    assert.equal(layout.nodes.length, graph.nodes.length);
    assertNoOverlap(layout);
    for (const n of layout.nodes) {
      assert.deepEqual({ width: n.width, height: n.height }, NODE_SIZE[n.kind]);
      assert.ok(n.x >= 0 && n.y >= 0 && n.x + n.width <= layout.width && n.y + n.height <= layout.height, `${n.key} inside the drawing`);
    }
    const x = (key: string) => placed(layout, key).x;
    // Columns: the input; the three lookups (side by side, as they run in parallel); the summary; the outputs.
    assert.ok(x('input:customer_id') < x('node:profile'));
    assert.equal(x('node:profile'), x('node:invoices'));
    assert.equal(x('node:invoices'), x('node:tickets'));
    assert.ok(x('node:tickets') < x('node:summary'));
    assert.ok(x('node:summary') < x('output:summary'));
    assert.equal(x('output:summary'), x('output:profile'));
    assert.equal(x('output:profile'), x('output:invoices'));
    assert.deepEqual(
      layout.edges.map((e) => `${e.from} -> ${e.to}`),
      edges(graph),
    );
    for (const edge of layout.edges) {
      const from = placed(layout, edge.from);
      const to = placed(layout, edge.to);
      const first = edge.points[0]!;
      const last = edge.points[edge.points.length - 1]!;
      // From the middle of the right side of one box to the middle of the left side of the other,
      // leaving and entering horizontally.
      assert.deepEqual(first, { x: from.x + from.width, y: from.y + from.height / 2 });
      assert.deepEqual(last, { x: to.x, y: to.y + to.height / 2 });
      assert.equal(edge.points[1]!.y, first.y);
      assert.equal(edge.points[edge.points.length - 2]!.y, last.y);
      for (let i = 1; i < edge.points.length; i++)
        assert.ok(edge.points[i]!.x > edge.points[i - 1]!.x, `${edge.from} -> ${edge.to} runs left to right`);
    }
  });

  it('is the same every time for the same graph', () => {
    assert.deepEqual(layoutGraph(buildWorkflowGraph(customer360)), layoutGraph(buildWorkflowGraph(customer360)));
  });

  it('keeps unconnected parts in their columns: an unused input left, a node that uses no input after the inputs', () => {
    const layout = layoutGraph(buildWorkflowGraph(readFileSync(join(fixturesDir, 'workspace', 'broken.agent.yaml'), 'utf8')));
    assertNoOverlap(layout);
    assert.ok(placed(layout, 'input:ticket').x + NODE_SIZE.input.width <= placed(layout, 'node:summarize').x);
    assert.ok(placed(layout, 'node:summarize').x + NODE_SIZE.node.width <= placed(layout, 'output:summary').x);
  });

  it('puts each node one column after the last node it references, and outputs after every node', () => {
    const graph = {
      nodes: [
        { key: 'input:a', kind: 'input' },
        { key: 'node:late', kind: 'node' },
        { key: 'node:first', kind: 'node' },
        { key: 'node:second', kind: 'node' },
        { key: 'node:alone', kind: 'node' },
        { key: 'output:x', kind: 'output' },
        { key: 'output:literal', kind: 'output' },
      ] as unknown as GraphNode[],
      edges: [
        { from: 'input:a', to: 'node:late' },
        { from: 'node:second', to: 'node:late' },
        { from: 'node:first', to: 'node:second' },
        { from: 'node:first', to: 'node:late' },
        { from: 'node:first', to: 'output:x' },
      ],
    };
    assert.deepEqual(Object.fromEntries(columns(graph)), {
      'input:a': 0,
      'node:first': 1,
      'node:second': 2,
      'node:late': 3,
      'node:alone': 1,
      'output:x': 4,
      'output:literal': 4,
    });
  });

  it("is the picture dagre's own ranking gives: on every example agent and on agents of every shape", () => {
    const texts: string[] = [];
    const examples = join(repoRoot, 'examples');
    for (const name of readdirSync(examples)) if (name.endsWith('.agent.yaml')) texts.push(readFileSync(join(examples, name), 'utf8'));
    // Agents drawn from a fixed seed: inputs used and unused, outputs from nodes, inputs and text,
    // nodes using several earlier ones or none, up to past the count where one layout is tried.
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let agent = 0; agent < 9; agent++) {
      const count = agent < 8 ? 3 + Math.floor(random() * 20) : 42;
      const lines = [
        'version: 1',
        'name: Shapes',
        'inputs:',
        '  a: { type: string }',
        '  b: { type: string }',
        '  unused: { type: string }',
        'nodes:',
      ];
      for (let i = 0; i < count; i++) {
        const uses: string[] = [];
        if (random() < 0.3) uses.push('{{ inputs.a }}');
        if (random() < 0.2) uses.push('{{ inputs.b }}');
        for (let k = 0; k < 2; k++) if (i > 0 && random() < 0.5) uses.push(`{{ nodes.n${Math.floor(random() * i)}.body }}`);
        lines.push(`  n${i}:`, '    type: template', `    text: "x ${uses.join(' ')}"`);
      }
      lines.push(
        'outputs:',
        `  o1: { from: "{{ nodes.n${count - 1}.body }}" }`,
        '  o2: { from: "{{ inputs.a }}" }',
        '  o3: { from: "fixed" }',
      );
      texts.push(lines.join('\n'));
    }
    assert.ok(texts.length > 9);
    for (const text of texts) {
      const graph = buildWorkflowGraph(text);
      assert.deepEqual(layoutGraph(graph), layoutGraph(graph, { dagreRanking: true }), text.slice(0, 300));
    }
  });

  it('survives cycles and long chains', () => {
    const cyclic = buildWorkflowGraph(
      [
        'version: 1',
        'name: Loop',
        'nodes:',
        '  a: { type: template, text: "{{ nodes.b.body }}" }',
        '  b: { type: template, text: "{{ nodes.a.body }}" }',
        'outputs:',
        '  out: { from: "{{ nodes.a.body }}" }',
        '',
      ].join('\n'),
    );
    assert.ok(cyclic.problems.some((p) => p.code === 'cycle'));
    const layout = layoutGraph(cyclic);
    assert.equal(layout.nodes.length, 3);
    assert.equal(layout.edges.length, 3);
    assertNoOverlap(layout);

    const chain = { nodes: [] as GraphNode[], edges: [] as { from: string; to: string }[] };
    for (let i = 0; i < 20_000; i++) {
      chain.nodes.push({ key: `node:n${i}`, kind: 'node' } as GraphNode);
      if (i > 0) chain.edges.push({ from: `node:n${i - 1}`, to: `node:n${i}` });
    }
    assert.equal(columns(chain).get('node:n19999'), 20_000);
  });

  // Its time is the bench's (npm run bench -- graph), against building the graph in the same run.
  it('lays out a large agent: every node placed, none overlapping, every edge pointing right', () => {
    const lines = ['version: 1', 'name: Large', 'inputs:', '  seed: { type: string }', 'nodes:'];
    for (let i = 0; i < 150; i++) {
      const uses = i < 10 ? '{{ inputs.seed }}' : `{{ nodes.n${i - 10}.body }} {{ nodes.n${i - 7}.body }}`;
      lines.push(`  n${i}: { type: template, text: "${uses}" }`);
    }
    lines.push('outputs:', '  last: { from: "{{ nodes.n149.body }}" }', '');
    const layout = layoutGraph(buildWorkflowGraph(lines.join('\n')));
    assert.equal(layout.nodes.length, 152);
    assertNoOverlap(layout);
    for (const edge of layout.edges) assert.ok(placed(layout, edge.to).x > placed(layout, edge.from).x, `${edge.from} -> ${edge.to}`);
  });
});
