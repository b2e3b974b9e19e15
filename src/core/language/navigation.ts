// Go to definition, find references, rename and the outline for inputs and nodes.
import { IDENTIFIER } from '../document/expressions';
import type { Span } from '../document/problems';
import type { Node as YamlNode } from 'yaml';
import { findPair } from '../document/yamlAst';
import { entrySymbol } from '../document/outlineSymbol';
import type { OutlineSymbol } from '../document/outlineSymbol';
import { countWords } from '../document/suggest';
import { declarationSpan, indexAgentText, symbolAt } from './agentIndex';
import type { AgentIndex, SymbolKind } from './agentIndex';
import type { TextEdit } from './quickFixes';

export function definition(text: string, offset: number): Span | undefined {
  const index = indexAgentText(text);
  const symbol = symbolAt(index, offset);
  return symbol ? declarationSpan(index, symbol.kind, symbol.name) : undefined;
}

export function references(text: string, offset: number, includeDeclaration: boolean): Span[] {
  const index = indexAgentText(text);
  const symbol = symbolAt(index, offset);
  if (!symbol) return [];
  return referenceSpans(index, symbol.kind, symbol.name, includeDeclaration);
}

function referenceSpans(index: AgentIndex, kind: SymbolKind, name: string, includeDeclaration: boolean): Span[] {
  const spans = index.references.filter((site) => site.kind === kind && site.name === name).map((site) => site.nameSpan);
  const declaration = includeDeclaration ? declarationSpan(index, kind, name) : undefined;
  return declaration ? [declaration, ...spans] : spans;
}

export class RenameError extends Error {}

/** The span to rename and its current name, or a RenameError saying why it cannot be renamed. */
export function prepareRename(text: string, offset: number): { span: Span; name: string } {
  const index = indexAgentText(text);
  const symbol = symbolAt(index, offset);
  if (!symbol) throw new RenameError('Only input names and node ids can be renamed here.');
  if (!declarationSpan(index, symbol.kind, symbol.name)) throw new RenameError(`There is no ${symbol.kind} "${symbol.name}" to rename.`);
  // A quoted key is renamed inside its quotes.
  const written = text.slice(symbol.span.start, symbol.span.end);
  const span = /^(["']).*\1$/.test(written) ? { start: symbol.span.start + 1, end: symbol.span.end - 1 } : symbol.span;
  return { span, name: symbol.name };
}

/** Edits that rename an input or node at its declaration and at every reference. */
export function rename(text: string, offset: number, newName: string): TextEdit[] {
  const index = indexAgentText(text);
  const symbol = symbolAt(index, offset);
  if (!symbol) throw new RenameError('Only input names and node ids can be renamed here.');
  if (!IDENTIFIER.test(newName))
    throw new RenameError(`"${newName}" is not a valid name: use letters, digits, "_" and "-", starting with a letter or "_".`);
  const taken = symbol.kind === 'input' ? index.model?.inputs.has(newName) : index.model?.nodes.has(newName);
  if (taken && newName !== symbol.name)
    throw new RenameError(`There is already ${symbol.kind === 'input' ? 'an input' : 'a node'} "${newName}".`);
  return referenceSpans(index, symbol.kind, symbol.name, true).map((span) => {
    const written = text.slice(span.start, span.end);
    return /^(["']).*\1$/.test(written)
      ? { span: { start: span.start + 1, end: span.end - 1 }, newText: newName }
      : { span, newText: newName };
  });
}

/** The outline: inputs, nodes and outputs, each under its section. */
export function documentSymbols(text: string): OutlineSymbol[] {
  const index = indexAgentText(text);
  const { model, root } = index;
  if (!model || !root) return [];
  const section = (key: string, kind: OutlineSymbol['kind'], children: OutlineSymbol[]): OutlineSymbol[] => {
    const pair = findPair(root, key);
    if (!pair) return [];
    return [
      entrySymbol(
        text,
        { name: key, kind: 'section', detail: countWords(children.length, kind) },
        pair.key as YamlNode,
        pair.value as YamlNode | null,
        children,
      ),
    ];
  };
  const inputs = [...model.inputs.values()].map((input) =>
    entrySymbol(
      text,
      { name: input.name, kind: 'input', detail: `${input.type ?? ''}${input.required ? ', required' : ''}` },
      input.keyNode,
      input.map,
    ),
  );
  const nodes = [...model.nodes.values()].map((node) =>
    entrySymbol(
      text,
      {
        name: node.id,
        kind: 'node',
        detail: node.type === 'api' ? `${node.method ?? ''} ${hostOf(node.url?.value)}`.trim() : (node.type ?? ''),
      },
      node.keyNode,
      node.map,
    ),
  );
  const outputs = [...model.outputs.values()].map((output) =>
    entrySymbol(text, { name: output.name, kind: 'output', detail: output.from?.value ?? '' }, output.keyNode, output.from?.scalar),
  );
  return [...section('inputs', 'input', inputs), ...section('nodes', 'node', nodes), ...section('outputs', 'output', outputs)];
}

function hostOf(url: string | undefined): string {
  if (!url) return '';
  return /^[a-z]+:\/\/([^/?#]+)/i.exec(url)?.[1] ?? url;
}
