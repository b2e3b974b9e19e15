// Where each node of an agent file is written, for the per-node code lenses (Send Request, Render,
// pinned) and for "is the cursor inside a node" (the editor's context menu). The extension host
// asks on every edit and cursor move, so it reads the lines of block-style YAML (one pass, no
// parse: a hostile file must not freeze the host); `nodeLocations` reads a parsed file.
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

const NODE_KEY = /^(\s*)([A-Za-z_][A-Za-z0-9_-]*|"[^"\n]*"|'[^'\n]*')\s*:(.*)$/;
const TYPE_FIELD = /^\s*type\s*:\s*["']?([A-Za-z_][A-Za-z0-9_-]*)/;
const INLINE_TYPE = /(?:^|[{,]\s*)type\s*:\s*["']?([A-Za-z_][A-Za-z0-9_-]*)/;

/**
 * The nodes of `nodes:` written in block style, from the text's lines in one pass: each node's key,
 * its type (its own `type:` line, or `type:` in a one-line flow mapping), and where it ends. A
 * `nodes:` written as a flow mapping gives none (no lenses, as for a file the parser cannot read).
 */
export function scanNodeLocations(text: string): NodeLocation[] {
  const locations: NodeLocation[] = [];
  let inNodes = false;
  let keyIndent = -1;
  let fieldIndent = -1;
  let current: { id: string; type?: string; keyOffset: number; start: number; end: number } | undefined;
  const close = (): void => {
    if (current) locations.push(current);
    current = undefined;
  };
  for (let offset = 0; offset <= text.length;) {
    const newline = text.indexOf('\n', offset);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(offset, lineEnd).replace(/\r$/, '');
    const content = line.trimStart();
    const indent = line.length - content.length;
    if (content !== '' && !content.startsWith('#')) {
      if (indent === 0) {
        close();
        inNodes = /^nodes\s*:\s*(#.*)?$/.test(line);
        keyIndent = -1;
      } else if (inNodes) {
        if (keyIndent === -1) keyIndent = indent;
        if (indent === keyIndent) {
          close();
          const key = NODE_KEY.exec(line);
          if (key) {
            const name = key[2]!;
            const id = /^["']/.test(name) ? name.slice(1, -1) : name;
            const type = INLINE_TYPE.exec(key[3]!.trim().replace(/^\{/, '').trim())?.[1];
            current = {
              id,
              ...(type !== undefined ? { type } : {}),
              keyOffset: offset + indent,
              start: offset + indent,
              end: offset + line.length,
            };
            fieldIndent = -1;
          }
        } else if (indent > keyIndent && current) {
          current.end = offset + line.length;
          if (fieldIndent === -1) fieldIndent = indent;
          if (indent === fieldIndent && current.type === undefined) {
            const type = TYPE_FIELD.exec(line)?.[1];
            if (type !== undefined) current.type = type;
          }
        } else {
          close();
        }
      }
    }
    if (newline === -1) break;
    offset = newline + 1;
  }
  close();
  return locations;
}
