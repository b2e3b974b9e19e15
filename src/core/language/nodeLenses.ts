// Where each node of an agent file is written, for the per-node code lenses (Send Request, Render,
// pinned) and for "is the cursor inside a node" (the editor's context menu). Read from whatever the
// parser could read, like the other editor features, so it works while the user types.
import type { AgentIndex } from './agentIndex';

export interface NodeLocation {
  readonly id: string;
  /** `api`, `template`, or what the file says (an unknown type gets no lens). */
  readonly type?: string;
  /** Offset of the node's key: the lenses go on its line. */
  readonly keyOffset: number;
  /** From the key to the end of the node's mapping. */
  readonly start: number;
  readonly end: number;
}

export function nodeLocations(index: AgentIndex): NodeLocation[] {
  const locations: NodeLocation[] = [];
  for (const node of index.model?.nodes.values() ?? []) {
    const keyRange = node.keyNode.range;
    if (!keyRange) continue;
    const end = node.map?.range?.[1] ?? keyRange[1];
    locations.push({
      id: node.id,
      ...(node.type !== undefined ? { type: node.type } : {}),
      keyOffset: keyRange[0],
      start: keyRange[0],
      end,
    });
  }
  return locations;
}

/** The node whose key or mapping holds the offset. */
export function nodeAt(locations: readonly NodeLocation[], offset: number): NodeLocation | undefined {
  return locations.find((location) => offset >= location.start && offset <= location.end);
}
