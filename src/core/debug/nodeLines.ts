// Which node each line of an agent file belongs to, for breakpoints and stack frames: a node's
// block runs from the line of its id to the last line of its mapping (never past the next node's
// id); blank lines and comments between nodes belong to none. Lines are 1-based.
import { LineIndex } from '../document/lineIndex';
import type { AgentModel } from '../document/model';

export interface NodeBlock {
  readonly id: string;
  /** The line of the node's id: where a breakpoint on any of its lines is shown. */
  readonly line: number;
  readonly endLine: number;
}

export class NodeLines {
  /** In file order. */
  private readonly blocks: NodeBlock[] = [];
  private readonly byId = new Map<string, NodeBlock>();

  constructor(text: string, model: AgentModel) {
    const lines = new LineIndex(text);
    const found = [...model.nodes.values()]
      .map((node) => {
        const start = node.keyNode.range?.[0] ?? 0;
        const end = node.map?.range?.[1] ?? node.keyNode.range?.[1] ?? start;
        return { id: node.id, line: lines.position(start).line, endLine: lines.position(Math.max(start, end - 1)).line };
      })
      .sort((a, b) => a.line - b.line);
    for (let i = 0; i < found.length; i++) {
      const block = found[i]!;
      const next = found[i + 1];
      const endLine = next ? Math.max(block.line, Math.min(block.endLine, next.line - 1)) : block.endLine;
      const bounded = { ...block, endLine };
      this.blocks.push(bounded);
      this.byId.set(block.id, bounded);
    }
  }

  /** The node whose block holds the line, if any. */
  nodeAt(line: number): NodeBlock | undefined {
    let low = 0;
    let high = this.blocks.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const block = this.blocks[mid]!;
      if (line < block.line) high = mid - 1;
      else if (line > block.endLine) low = mid + 1;
      else return block;
    }
    return undefined;
  }

  lineOf(node: string): number | undefined {
    return this.byId.get(node)?.line;
  }
}
