// Completion for agent files: keys, values, header strings and expressions. The core decides what
// to offer; the VS Code adapter only turns the entries into CompletionItems.
import { isMap } from 'yaml';
import { NODE_RESULT_FIELDS } from '../document/expressions';
import type { Span } from '../document/problems';
import { parseAgentFile } from '../document/parse';
import { entries, getValue, locate } from '../document/yamlAst';
import { dependentsOf, indexAgentText } from './agentIndex';
import type { AgentIndex } from './agentIndex';
import { cursorContext } from './cursorContext';
import { AUTH_SCHEMES, COMMON_HEADERS, headerInfo, HTTP_METHOD_DOCS, INPUT_TYPE_DOCS, keysFor, NODE_TYPE_DOCS } from './knowledge';

export type CompletionKind = 'property' | 'value' | 'header' | 'keyword' | 'reference' | 'field' | 'secret';

export interface CompletionEntry {
  readonly label: string;
  readonly kind: CompletionKind;
  readonly detail?: string;
  /** Markdown. */
  readonly documentation?: string;
  /** Text to insert; VS Code snippet syntax when `snippet` is true. Defaults to the label. */
  readonly insertText?: string;
  readonly snippet?: boolean;
  readonly sortText?: string;
  /** Ask for completion again right after inserting (e.g. after "inputs."). */
  readonly retrigger?: boolean;
}

export interface CompletionResult {
  readonly items: readonly CompletionEntry[];
  /** What the chosen entry replaces: the partial word before the cursor. */
  readonly replace: Span;
}

export interface CompletionOptions {
  /** Secret names used elsewhere in the workspace (the file's own are always offered). */
  readonly workspaceSecrets?: Iterable<string>;
}

/** Common response headers, offered after `headers.` (names as the engine gives them: lower case). */
const RESPONSE_HEADERS = ['content-type', 'location', 'etag', 'last-modified', 'retry-after', 'x-request-id', 'link', 'content-length'];
const MAPPING_KEYS = new Set(['deployment', 'inputs', 'outputs', 'nodes', 'body']);

export function complete(text: string, offset: number, options: CompletionOptions = {}): CompletionResult {
  const context = cursorContext(text, offset);
  const none = { items: [], replace: { start: offset, end: offset } };
  switch (context.kind) {
    case 'key':
      return { items: keyItems(indexAgentText(text), context.path), replace: context.partial };
    case 'value':
      return { items: valueItems(context.path, context.key, context.quoted), replace: context.partial };
    case 'header':
      return { items: headerItems(context.before), replace: context.partial };
    case 'expression':
      return {
        items: expressionItems(indexAgentText(text), context.path, context.before, closesLater(text, offset), options),
        replace: context.partial,
      };
    default:
      return none;
  }
}

function keyItems(index: AgentIndex, path: readonly string[]): CompletionEntry[] {
  const nodeType = path[0] === 'nodes' && path.length === 2 ? index.model?.nodes.get(path[1]!)?.type : undefined;
  const present = new Set<string>();
  const located = index.root ? locate(index.root, path).node : undefined;
  if (isMap(located)) for (const entry of entries(located)) present.add(entry.key);
  return keysFor(path, nodeType)
    .filter(({ key }) => !present.has(key))
    .map(({ key, description }, position) => ({
      label: key,
      kind: 'property' as const,
      documentation: description,
      insertText: key === 'settings' ? 'settings:\n\t- "$0"' : MAPPING_KEYS.has(key) ? `${key}:\n\t$0` : `${key}: $0`,
      snippet: true,
      sortText: String(position).padStart(2, '0'),
      retrigger: key === 'type' || key === 'method' || key === 'settings',
    }));
}

function valueItems(path: readonly string[], key: string, quoted: boolean): CompletionEntry[] {
  const values = (docs: Readonly<Record<string, string>>): CompletionEntry[] =>
    Object.entries(docs).map(([value, documentation], position) => ({
      label: value,
      kind: 'value',
      documentation,
      sortText: String(position).padStart(2, '0'),
    }));
  const section = path[0];
  if (section === 'nodes' && path.length === 2 && key === 'type') return values(NODE_TYPE_DOCS);
  if (section === 'nodes' && path.length === 2 && key === 'method') return values(HTTP_METHOD_DOCS);
  if (section === 'inputs' && path.length === 2 && key === 'type') return values(INPUT_TYPE_DOCS);
  if (section === 'inputs' && path.length === 2 && key === 'required')
    return values({ true: 'A run must give this input.', false: 'The input may be left out.' });
  if (path.length === 0 && key === 'version') return values({ 1: 'The only version of the format.' });
  if (section === 'outputs' && path.length === 2 && key === 'from' && !quoted) {
    return [
      {
        label: '"{{ nodes.… }}"',
        kind: 'value',
        insertText: '"{{ $0 }}"',
        snippet: true,
        retrigger: true,
        documentation: 'An expression over the results of the nodes.',
      },
    ];
  }
  return [];
}

function headerItems(before: string): CompletionEntry[] {
  const colon = before.indexOf(':');
  if (colon === -1) {
    return COMMON_HEADERS.map((header, position) => ({
      label: header.name,
      kind: 'header' as const,
      documentation: header.description,
      insertText: `${header.name}: `,
      sortText: String(position).padStart(2, '0'),
      retrigger: true,
    }));
  }
  const name = before.slice(0, colon).trim();
  const value = before.slice(colon + 1);
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    // Only the scheme is offered: after it comes the credential, which belongs in a secret.
    if (/^\s*\S*$/.test(value)) {
      return AUTH_SCHEMES.map((scheme, position) => ({
        label: scheme.name,
        kind: 'keyword' as const,
        documentation: scheme.description,
        insertText: `${scheme.name} {{ secrets.\${1:${scheme.secret}} }}`,
        snippet: true,
        sortText: String(position),
      }));
    }
    return [];
  }
  if (/^x-api-key$|^api-key$/.test(lower) && /^\s*$/.test(value)) {
    return [
      {
        label: '{{ secrets.API_KEY }}',
        kind: 'secret',
        documentation: 'The key, from a secret.',
        insertText: '{{ secrets.${1:API_KEY} }}',
        snippet: true,
      },
    ];
  }
  const values = headerInfo(name)?.values ?? [];
  return values.map((media, position) => ({ label: media, kind: 'value' as const, sortText: String(position).padStart(2, '0') }));
}

function expressionItems(
  index: AgentIndex,
  path: readonly string[],
  before: string,
  closed: boolean,
  options: CompletionOptions,
): CompletionEntry[] {
  const close = closed ? '' : ' }}';
  const trimmed = before.trimStart();
  const model = index.model;
  if (/^[A-Za-z_-]*$/.test(trimmed)) {
    return [
      {
        label: 'inputs',
        kind: 'keyword',
        documentation: 'The inputs of the agent: `{{ inputs.NAME }}`.',
        insertText: 'inputs.',
        retrigger: true,
      },
      {
        label: 'nodes',
        kind: 'keyword',
        documentation: 'The results of other nodes: `{{ nodes.ID.body }}`, `.status`, `.headers.NAME`.',
        insertText: 'nodes.',
        retrigger: true,
      },
      {
        label: 'secrets',
        kind: 'keyword',
        documentation: 'A secret, never written in the file: `{{ secrets.NAME }}`.',
        insertText: 'secrets.',
        retrigger: true,
      },
    ];
  }
  let match = /^inputs\.([\w-]*)$/.exec(trimmed);
  if (match) {
    return [...(model?.inputs.values() ?? [])].map((input) => ({
      label: input.name,
      kind: 'reference' as const,
      detail: `${input.type ?? 'input'}${input.required ? ', required' : ''}`,
      ...(input.description ? { documentation: input.description } : {}),
      insertText: input.name + close,
    }));
  }
  match = /^nodes\.([\w-]*)$/.exec(trimmed);
  if (match) {
    // The node being edited, and nodes that depend on it, would make a cycle.
    const self = path[0] === 'nodes' ? path[1] : undefined;
    const excluded = self ? new Set([self, ...dependentsOf(index, self)]) : new Set<string>();
    return [...(model?.nodes.values() ?? [])]
      .filter((node) => !excluded.has(node.id))
      .map((node) => ({
        label: node.id,
        kind: 'reference' as const,
        detail: node.type === 'api' ? `${node.method ?? 'api'} ${node.url?.value ?? ''}`.trim() : (node.type ?? 'node'),
        ...(node.description ? { documentation: node.description } : {}),
        insertText: `${node.id}.`,
        retrigger: true,
      }));
  }
  match = /^nodes\.([\w-]+)\.([\w-]*)$/.exec(trimmed);
  if (match) {
    const node = model?.nodes.get(match[1]!);
    const fields = node?.type === 'template' ? (['body'] as const) : NODE_RESULT_FIELDS;
    const docs: Record<(typeof NODE_RESULT_FIELDS)[number], string> = {
      body: 'The response body (parsed JSON when the response is JSON); go deeper with `.field` or `[0]`. For a template node, the rendered text.',
      status: 'The HTTP status of the response, a number.',
      headers: 'The response headers, names in lower case: `.headers.content-type`.',
    };
    return fields.map((field) => ({
      label: field,
      kind: 'field' as const,
      documentation: docs[field],
      insertText: field === 'headers' ? 'headers.' : field + (field === 'status' ? close : ''),
      retrigger: field === 'headers',
    }));
  }
  match = /^nodes\.[\w-]+\.headers\.([\w-]*)$/.exec(trimmed);
  if (match) return RESPONSE_HEADERS.map((name) => ({ label: name, kind: 'field' as const, insertText: name + close }));
  match = /^secrets\.(\w*)$/.exec(trimmed);
  if (match) {
    const names = new Set([...index.secrets, ...(options.workspaceSecrets ?? [])]);
    return [...names].sort().map((name) => ({ label: name, kind: 'secret' as const, detail: 'secret', insertText: name + close }));
  }
  return [];
}

/**
 * The keys already written in the mapping at `path` (the YAML as far as it parses), so that they are
 * not offered twice. `text` should leave out the word being typed, which would break the YAML or be
 * a key itself.
 */
export function keysPresent(text: string, path: readonly string[]): Set<string> {
  let map = parseAgentFile(text).root;
  for (const key of path) {
    const next = map ? getValue(map, key) : undefined;
    map = isMap(next) ? next : undefined;
  }
  return new Set(map ? [...entries(map)].map((entry) => entry.key) : []);
}

/** True when the expression at the cursor is already closed with `}}` later on the line. */
function closesLater(text: string, offset: number): boolean {
  const lineEnd = text.indexOf('\n', offset);
  const rest = text.slice(offset, lineEnd === -1 ? undefined : lineEnd);
  const close = rest.indexOf('}}');
  const open = rest.indexOf('{{');
  return close !== -1 && (open === -1 || close < open);
}
