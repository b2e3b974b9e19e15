// What one node needs to be sent or rendered on its own: the inputs, secrets and nodes its strings
// reference, and the nodes to run first when an upstream value is missing (every node it depends
// on, directly or not, in an order that respects them).
import type { AgentPlan, BodyTemplate, LoadedAgent, NodePlan } from '../engine/agentPlan';
import type { CompiledString } from '../engine/evaluate';

export interface NodeReferences {
  readonly inputs: ReadonlySet<string>;
  readonly secrets: ReadonlySet<string>;
  /** The nodes it references directly. */
  readonly nodes: ReadonlySet<string>;
}

export function nodeReferences(node: NodePlan): NodeReferences {
  const inputs = new Set<string>();
  const secrets = new Set<string>();
  const nodes = new Set<string>();
  const scan = (value: CompiledString): void => {
    for (const expression of value.expressions) {
      const name = expression.reference?.path[0]?.name;
      if (typeof name !== 'string') continue;
      if (expression.reference?.root === 'inputs') inputs.add(name);
      else if (expression.reference?.root === 'secrets') secrets.add(name);
      else if (expression.reference?.root === 'nodes') nodes.add(name);
    }
  };
  const scanBody = (template: BodyTemplate): void => {
    if (template.kind === 'string') scan(template.value);
    else if (template.kind === 'list') template.items.forEach(scanBody);
    else if (template.kind === 'map') for (const [, item] of template.entries) scanBody(item);
  };
  if (node.kind === 'template') scan(node.text);
  else {
    scan(node.url);
    for (const header of node.headers) {
      scan(header.name);
      scan(header.value);
    }
    if (node.body?.kind === 'json') scanBody(node.body.template);
    else if (node.body) scan(node.body.value);
  }
  return { inputs, secrets, nodes };
}

/** Every node the given nodes depend on, directly or not (themselves excluded), in plan order. */
export function upstreamOf(plan: AgentPlan, ids: Iterable<string>): NodePlan[] {
  const byId = new Map(plan.nodes.map((node) => [node.id, node]));
  const needed = new Set<string>();
  const start = new Set(ids);
  const stack = [...start].flatMap((id) => [...(byId.get(id)?.dependencies ?? [])]);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (needed.has(id)) continue;
    needed.add(id);
    for (const dependency of byId.get(id)?.dependencies ?? []) stack.push(dependency);
  }
  return plan.nodes.filter((node) => needed.has(node.id) && !start.has(node.id));
}

/**
 * The agent cut down to some of its nodes (and no outputs): what a local run of "just what is
 * needed" executes. Its secrets are those the kept nodes use.
 */
export function agentWithNodes(agent: LoadedAgent, nodes: readonly NodePlan[]): LoadedAgent {
  const secrets = new Set<string>();
  for (const node of nodes) for (const name of nodeReferences(node).secrets) secrets.add(name);
  return { ...agent, plan: { nodes, outputs: [], secretNames: [...secrets].sort() } };
}
