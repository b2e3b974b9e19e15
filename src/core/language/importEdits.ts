// Where an imported node, its inputs and a pasted deployment go in an agent file: text edits that
// add them in the file's own indentation, leaving every other line as it is.
import { Document, isMap, isScalar } from 'yaml';
import type { Node as YamlNode, Pair, YAMLMap } from 'yaml';
import type { ImportedApiNode } from '../import/apiNodeFromCurl';
import type { ImportedDeployment } from '../import/deploymentFromCommand';
import { inputDeclarationLine, nodeDocument } from '../import/nodeYaml';
import { findPair, spanOf } from '../document/yamlAst';
import { indexAgentText } from './agentIndex';
import type { TextEdit } from './quickFixes';

export class ImportPlacementError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportPlacementError';
  }
}

const DEFAULT_INDENT = '  ';

/**
 * Edits that add an imported node under `nodes:` (and the inputs it needs under `inputs:`), with an
 * id not taken in the file. Throws ImportPlacementError when the file's shape leaves no clear place.
 */
export function addImportedNodeEdits(text: string, imported: ImportedApiNode): { readonly edits: TextEdit[]; readonly id: string } {
  const index = indexAgentText(text);
  const root = index.root;
  if (text.trim() !== '' && !root)
    throw new ImportPlacementError('The file is not a YAML mapping, so there is no place for a node. Fix the file first.');
  const taken = new Set(index.model?.nodes.keys() ?? []);
  let id = imported.id;
  for (let n = 2; taken.has(id); n++) id = `${imported.id}_${n}`;

  const edits: TextEdit[] = [];
  const declared = new Set(index.model?.inputs.keys() ?? []);
  const inputs = imported.inputs.filter((input) => !declared.has(input.name));
  if (inputs.length > 0) {
    const lines = inputs.map(inputDeclarationLine);
    edits.push(appendToSection(text, root, 'inputs', lines, ['nodes', 'outputs']));
  }
  const unit = indentUnit(text, root);
  const nodeLines = nodeDocument(id, imported.node).toString({ lineWidth: 0, indent: unit }).trimEnd().split('\n');
  const nodeEdit = appendToSection(text, root, 'nodes', nodeLines, ['outputs']);
  // Both added at one place (a file with neither section): one edit, so inputs come first.
  const inputsEdit = edits[0];
  if (inputsEdit && inputsEdit.span.start === nodeEdit.span.start && inputsEdit.span.end === nodeEdit.span.end)
    return { edits: [{ span: nodeEdit.span, newText: `${inputsEdit.newText}${nodeEdit.newText.replace(/^\n(?=\n)/, '')}` }], id };
  edits.push(nodeEdit);
  return { edits, id };
}

/** Edits that set `deployment:`'s baseUrl, account and agent (each kept where it is, or added). */
export function setDeploymentEdits(text: string, deployment: Pick<ImportedDeployment, 'baseUrl' | 'account' | 'agent'>): TextEdit[] {
  const index = indexAgentText(text);
  const root = index.root;
  const fields: [string, string][] = [
    ['baseUrl', deployment.baseUrl],
    ['account', deployment.account],
    ...(deployment.agent !== undefined ? [['agent', deployment.agent] as [string, string]] : []),
  ];
  const pair = root ? findPair(root, 'deployment') : undefined;
  const value = pair?.value as YamlNode | null | undefined;
  if (pair && isMap(value) && !value.flow) {
    const edits: TextEdit[] = [];
    const missing: string[] = [];
    for (const [key, wanted] of fields) {
      const field = findPair(value, key);
      if (field && isScalar(field.value)) edits.push({ span: spanOf(field.value as YamlNode), newText: yamlScalar(wanted) });
      else missing.push(`${key}: ${yamlScalar(wanted)}`);
    }
    if (missing.length > 0) edits.push(appendToSection(text, root, 'deployment', missing, []));
    return edits;
  }
  const lines = fields.map(([key, wanted]) => `${key}: ${yamlScalar(wanted)}`);
  if (pair) {
    // "deployment:" with nothing (or a flow mapping) after it: write the block in its place.
    const keyEnd = spanOf(pair.key as YamlNode).end;
    const end = value ? spanOf(value).end : text.indexOf(':', keyEnd) + 1;
    return [{ span: { start: keyEnd, end }, newText: `:\n${lines.map((line) => `${DEFAULT_INDENT}${line}`).join('\n')}` }];
  }
  return [appendToSection(text, root, 'deployment', lines, ['inputs', 'nodes', 'outputs'])];
}

function yamlScalar(value: string): string {
  return new Document(value).toString({ lineWidth: 0 }).trimEnd();
}

/**
 * Adds lines (unindented) to the end of a top-level block mapping `key`, in its children's
 * indentation; when the file has no such key, adds it before the first of `before` that exists,
 * else at the end.
 */
function appendToSection(
  text: string,
  root: YAMLMap | undefined,
  key: string,
  lines: readonly string[],
  before: readonly string[],
): TextEdit {
  const pair = root ? findPair(root, key) : undefined;
  const value = pair?.value as YamlNode | null | undefined;
  if (pair && isMap(value) && !value.flow && value.items.length > 0) {
    const first = value.items[0] as Pair;
    const firstKeyStart = spanOf(first.key as YamlNode).start;
    const indent = text.slice(text.lastIndexOf('\n', firstKeyStart - 1) + 1, firstKeyStart);
    const end = endOfBlock(text, spanOf(value).end);
    return { span: { start: end, end }, newText: `\n${lines.map((line) => `${indent}${line}`).join('\n')}` };
  }
  if (
    pair &&
    (value === null || value === undefined || (isScalar(value) && value.value === null) || (isMap(value) && value.items.length === 0))
  ) {
    const keyEnd = spanOf(pair.key as YamlNode).end;
    const end = value ? spanOf(value).end : text.indexOf(':', keyEnd) + 1;
    return { span: { start: keyEnd, end }, newText: `:\n${lines.map((line) => `${DEFAULT_INDENT}${line}`).join('\n')}` };
  }
  if (pair)
    throw new ImportPlacementError(
      `"${key}:" is not a block mapping (one entry per line), so there is no clear place to add to it. Write it as a block mapping first.`,
    );
  const block = `${key}:\n${lines.map((line) => `${DEFAULT_INDENT}${line}`).join('\n')}\n`;
  const next = root?.items.find((item) => before.includes(String((item.key as { value?: unknown } | null)?.value)));
  if (next) {
    const start = spanOf(next.key as YamlNode).start;
    let lineStart = text.lastIndexOf('\n', start - 1) + 1;
    // Comment lines just above a key belong to it.
    while (lineStart > 0) {
      const previous = text.lastIndexOf('\n', lineStart - 2) + 1;
      if (!/^\s*#/.test(text.slice(previous, lineStart - 1))) break;
      lineStart = previous;
    }
    return { span: { start: lineStart, end: lineStart }, newText: `${block}\n` };
  }
  const needsNewline = text.length > 0 && !text.endsWith('\n');
  return {
    span: { start: text.length, end: text.length },
    newText: `${needsNewline ? '\n' : ''}${text.trim() === '' ? '' : '\n'}${block}`,
  };
}

/** The indentation width of the file's top-level mappings' children (2 when none shows it). */
function indentUnit(text: string, root: YAMLMap | undefined): number {
  for (const item of root?.items ?? []) {
    const value = item.value as YamlNode | null;
    if (isMap(value) && !value.flow && value.items.length > 0) {
      const keyStart = spanOf((value.items[0] as Pair).key as YamlNode).start;
      const width = keyStart - (text.lastIndexOf('\n', keyStart - 1) + 1);
      if (width > 0) return width;
    }
  }
  return DEFAULT_INDENT.length;
}

/** The end of a block's last line with content (trailing blank lines and comments stay after what is added). */
function endOfBlock(text: string, end: number): number {
  let at = Math.min(end, text.length);
  while (at > 0 && /\s/.test(text[at - 1]!)) at--;
  return at;
}
