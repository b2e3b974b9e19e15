// Go to definition, find references, rename and the outline for inputs and nodes.
import { IDENTIFIER } from '../document/expressions';
import type { Span } from '../document/problems';
import type { Node as YamlNode } from 'yaml';
import { findPair } from '../document/yamlAst';
import { entrySymbol } from '../document/outlineSymbol';
import type { OutlineSymbol } from '../document/outlineSymbol';
import { countWords } from '../document/suggest';
import { declarationSpan, indexAgentText, symbolAt } from './agentIndex';
import type { AgentIndex, DeclarationKind } from './agentIndex';
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
  return agentReferenceSpans(index, symbol.kind, symbol.name, includeDeclaration);
}

/** Where an agent file names one of its inputs, nodes or outputs: its declaration (when asked) and every reference. */
export function agentReferenceSpans(index: AgentIndex, kind: DeclarationKind, name: string, includeDeclaration: boolean): Span[] {
  const spans = index.references.filter((site) => site.kind === kind && site.name === name).map((site) => site.nameSpan);
  const declaration = includeDeclaration ? declarationSpan(index, kind, name) : undefined;
  return declaration ? [declaration, ...spans] : spans;
}

export class RenameError extends Error {}

const NOT_RENAMABLE = 'Only input names, node ids and output names can be renamed here.';

/** The span to rename and its current name, or a RenameError saying why it cannot be renamed. */
export function prepareRename(text: string, offset: number): { span: Span; name: string } {
  const index = indexAgentText(text);
  const symbol = symbolAt(index, offset);
  if (!symbol) throw new RenameError(NOT_RENAMABLE);
  if (!declarationSpan(index, symbol.kind, symbol.name)) throw new RenameError(`There is no ${symbol.kind} "${symbol.name}" to rename.`);
  return { span: insideQuotes(text, symbol.span), name: symbol.name };
}

/** Edits that rename an input, node or output at its declaration and at every reference. */
export function rename(text: string, offset: number, newName: string): TextEdit[] {
  const index = indexAgentText(text);
  const symbol = symbolAt(index, offset);
  if (!symbol) throw new RenameError(NOT_RENAMABLE);
  return agentRenameEdits(index, symbol.kind, symbol.name, newName);
}

/** The agent file's edits of a rename, or a RenameError when the new name is not valid or already taken. */
export function agentRenameEdits(index: AgentIndex, kind: DeclarationKind, name: string, newName: string): TextEdit[] {
  checkNewName(index, kind, name, newName);
  return agentReferenceSpans(index, kind, name, true).map((span) => ({ span: insideQuotes(index.text, span), newText: newName }));
}

function checkNewName(index: AgentIndex, kind: DeclarationKind, name: string, newName: string): void {
  if (!IDENTIFIER.test(newName))
    throw new RenameError(`"${newName}" is not a valid name: use letters, digits, "_" and "-", starting with a letter or "_".`);
  if (newName !== name && declarationSpan(index, kind, newName))
    throw new RenameError(`There is already ${kind === 'node' ? 'a node' : `an ${kind}`} "${newName}".`);
}

/** A name's span without its quotes: a quoted name is renamed inside them, so that it keeps them. */
export function insideQuotes(text: string, span: Span): Span {
  const written = text.slice(span.start, span.end);
  return /^(["']).*\1$/.test(written) ? { start: span.start + 1, end: span.end - 1 } : span;
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
