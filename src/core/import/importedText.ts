// Text an import takes from a document or a command (an OpenAPI document, a pasted curl command) is
// data, never a template. The agent file has no escape for "{{": written into a node, a document's
// "{{ secrets.GITHUB_TOKEN }}" would be evaluated when the node runs and the user's secret sent
// wherever the document says. So imports refuse such text, saying where it was and why.

/** Why imported text holding "{{" is refused; an import's error names where the text was. */
export const TEMPLATE_IN_IMPORTED_TEXT = '"{{" would be read as an agent expression, and imported text is data, never a template';

/** Whether imported text would be read as (the start of) an agent expression if written into a node. */
export function holdsTemplate(text: string): boolean {
  return text.includes('{{');
}

/**
 * Where the first string of a JSON-like value (a key or a value) holds "{{": the keys and indexes
 * leading to it (`['items', 0, 'name']`; `[]` for the value itself), or undefined when none does.
 * Walked with a stack of its own (a value nested thousands deep cannot overflow the call stack), each
 * place linked to its parent's, so the walk is linear in the value and only the found path is built.
 */
export function templateInValue(value: unknown): readonly (string | number)[] | undefined {
  interface Place {
    readonly value: unknown;
    readonly parent?: Place;
    readonly key?: string | number;
  }
  const pathOf = (place: Place | undefined, last?: string): (string | number)[] => {
    const path: (string | number)[] = last !== undefined ? [last] : [];
    for (let at = place; at?.key !== undefined; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const stack: Place[] = [{ value }];
  for (let place = stack.pop(); place !== undefined; place = stack.pop()) {
    const current = place.value;
    if (typeof current === 'string') {
      if (holdsTemplate(current)) return pathOf(place);
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) stack.push({ value: current[index], parent: place, key: index });
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        if (holdsTemplate(key)) return pathOf(place, key);
        stack.push({ value: child, parent: place, key });
      }
    }
  }
  return undefined;
}
