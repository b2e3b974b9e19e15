// The data-flow graph of an agent: a node runs after every node it references.

/** Strongly connected components that form cycles (size > 1, or a node that references itself). */
export function findCycles(dependencies: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  // Tarjan's algorithm, iterative so a long chain of nodes cannot overflow the stack.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  for (const start of dependencies.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edges: Iterator<string> }> = [];
    const enter = (node: string): void => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: (dependencies.get(node) ?? new Set<string>()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const next = frame.edges.next();
      if (!next.done) {
        const target = next.value;
        if (!dependencies.has(target)) continue;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || dependencies.get(frame.node)?.has(frame.node)) cycles.push(component.reverse());
      }
    }
  }
  return cycles;
}

/** One path around a cycle, starting and ending at `from`, for messages: a → b → a. */
export function cyclePath(from: string, members: ReadonlySet<string>, dependencies: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  // Breadth-first with a read index and a path built backwards: linear in the component's edges.
  const previous = new Map<string, string>();
  const queue = [from];
  for (let read = 0; read < queue.length; read++) {
    const node = queue[read]!;
    for (const next of dependencies.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === from) {
        const backwards = [from];
        for (let at: string | undefined = node; at !== undefined && at !== from; at = previous.get(at)) backwards.push(at);
        return [from, ...backwards.slice(1).reverse(), from];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [from, from];
}

/**
 * Groups nodes into levels: each node comes after every node it depends on, and nodes of one
 * level do not depend on each other. Nodes on a cycle are left out.
 */
export function executionLevels(dependencies: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const remaining = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const [node, needs] of dependencies) {
    let count = 0;
    for (const need of needs) {
      if (!dependencies.has(need)) continue;
      count++;
      let list = dependents.get(need);
      if (!list) dependents.set(need, (list = []));
      list.push(node);
    }
    remaining.set(node, count);
  }
  const levels: string[][] = [];
  let current = [...remaining].filter(([, count]) => count === 0).map(([node]) => node);
  while (current.length > 0) {
    levels.push(current);
    const next: string[] = [];
    for (const node of current) {
      for (const dependent of dependents.get(node) ?? []) {
        const count = remaining.get(dependent)! - 1;
        remaining.set(dependent, count);
        if (count === 0) next.push(dependent);
      }
    }
    current = next;
  }
  return levels;
}
