// One entry of a file's outline (document symbols), whatever the kind of file: the agent file's
// inputs, nodes and outputs, a test file's cases, the environments file's environments. The editor
// and the language server each turn these into their own symbols.
import type { Node as YamlNode, Scalar } from 'yaml';
import type { Span } from './problems';
import { spanOf } from './yamlAst';

export interface OutlineSymbol {
  readonly name: string;
  readonly kind: 'section' | 'input' | 'node' | 'output' | 'case' | 'environment' | 'field';
  readonly detail: string;
  /** The whole entry, key and value. */
  readonly span: Span;
  /** The key. */
  readonly selectionSpan: Span;
  readonly children: readonly OutlineSymbol[];
}

/** The symbol of a mapping entry: from its key to the end of its value's text. */
export function entrySymbol(
  text: string,
  entry: { readonly name: string; readonly kind: OutlineSymbol['kind']; readonly detail: string },
  keyNode: YamlNode | Scalar,
  value: YamlNode | null | undefined,
  children: readonly OutlineSymbol[] = [],
): OutlineSymbol {
  const keySpan = spanOf(keyNode);
  let end = value?.range ? Math.max(value.range[1], keySpan.end) : keySpan.end;
  // Block values end after their last line break; the symbol ends with its text.
  while (end > keySpan.end && /\s/.test(text[end - 1]!)) end--;
  return { ...entry, span: { start: keySpan.start, end }, selectionSpan: keySpan, children };
}
