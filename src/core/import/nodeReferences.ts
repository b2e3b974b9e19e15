// What an imported node refers to, read from the node as written (not from the import's own
// account of it): every secret and input its URL, headers and body name, and the host the request
// goes to. An import's output lists them, so the user sees which secret goes where before sending.
import { scanExpressions } from '../document/expressions';
import { authorityEnd } from '../document/urlCredentials';
import type { ApiNodeSpec } from './apiNodeFromCurl';

export interface NodeReferences {
  readonly secrets: readonly string[];
  readonly inputs: readonly string[];
  /** The host (and port) the request goes to; undefined when an expression chooses it (`{{ inputs.base_url }}/…`). */
  readonly host?: string;
}

export function nodeReferences(node: ApiNodeSpec): NodeReferences {
  const secrets = new Set<string>();
  const inputs = new Set<string>();
  const read = (text: string): void => {
    for (const expression of scanExpressions(text)) {
      const reference = expression.reference;
      const first = reference?.path[0]?.name;
      if (typeof first !== 'string') continue;
      if (reference?.root === 'secrets') secrets.add(first);
      else if (reference?.root === 'inputs') inputs.add(first);
    }
  };
  read(node.url);
  for (const setting of node.settings ?? []) read(setting);
  // The body's strings, keys too, walked with a stack of its own (bodies can nest deep).
  const stack: unknown[] = [node.body];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') read(value);
    else if (Array.isArray(value)) for (const item of value) stack.push(item);
    else if (value !== null && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) {
        read(key);
        stack.push(child);
      }
  }
  // The authority as the engine reads it (a backslash ends it too, as in WHATWG URL).
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(node.url)?.[0];
  const authority = scheme === undefined ? undefined : node.url.slice(scheme.length, authorityEnd(node.url, scheme.length));
  const host = authority?.slice(authority.lastIndexOf('@') + 1);
  return { secrets: [...secrets], inputs: [...inputs], ...(host !== undefined && !host.includes('{{') ? { host } : {}) };
}
