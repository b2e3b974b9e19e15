// The nodes to run first when a node's upstream value is missing (every node it depends on,
// directly or not, in an order that respects them), and the agent cut down to them.
import type { AgentPlan, LoadedAgent, NodePlan } from '../engine/agentPlan';
import { nodeNeeds } from '../exchange/sendNode';

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
  for (const node of nodes) for (const name of nodeNeeds(agent, node.id).secrets) secrets.add(name);
  return { ...agent, plan: { nodes, outputs: [], secretNames: [...secrets].sort() } };
}
