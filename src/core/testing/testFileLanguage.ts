// Completion and hover for agent test files (NAME.agent.test.yaml): the keys of each level with
// the schema's descriptions; the names of the agent under test where a case uses them (inputs,
// files, secrets, mocked API nodes, outputs and nodes of expectations, fails_at); the expectation
// operators. Where the cursor is comes from the lines around it (cursorContext), as in agent
// files, so completion works while the YAML is incomplete; hovers read the parsed file.
import { isMap, isScalar } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import type { AgentModel } from '../document/model';
import { parseAgentFile } from '../document/parse';
import type { Span } from '../document/problems';
import { entries, spanOf } from '../document/yamlAst';
import type { SchemaProperty } from '../environments/environmentsSchemaKeys';
import type { AgentIndex } from '../language/agentIndex';
import { contains } from '../language/agentIndex';
import { keysPresent } from '../language/completion';
import type { CompletionEntry, CompletionResult } from '../language/completion';
import { cursorContext } from '../language/cursorContext';
import { describeInput, describeNode, userOf } from '../language/hover';
import type { HoverResult } from '../language/hover';
import { HTTP_METHOD_DOCS } from '../language/knowledge';
import { MATCHER_OPERATORS, VALUE_TYPES } from './matcherVocabulary';
import type { MatcherOperator } from './matcherVocabulary';
import {
  CASE_KEYS,
  DEFAULTS_KEYS,
  EXPECT_KEYS,
  MOCK_KEYS,
  NODE_EXPECTATION_KEYS,
  REQUEST_EXPECTATION_KEYS,
  TEST_TOP_KEYS,
} from './testSchemaKeys';

type Keys = Readonly<Record<string, SchemaProperty>>;

/** What the keys of the mapping at a path of a test file are. */
type MappingKind =
  | { readonly kind: 'schema'; readonly keys: Keys }
  | { readonly kind: 'inputs' | 'files' | 'secrets' | 'mocks' | 'outputs' | 'nodes' }
  | { readonly kind: 'free' };

/** Keys whose value is a mapping: completion puts the value on the next line. */
const MAPPING_KEYS = new Set(['defaults', 'cases', 'inputs', 'files', 'secrets', 'mocks', 'expect', 'outputs', 'nodes', 'expect_request']);

/** How long `defaults` or `cases.NAME` is at the start of a path, or -1: what holds inputs and mocks. */
function ownerLength(path: readonly string[]): number {
  if (path[0] === 'defaults') return 1;
  if (path[0] === 'cases' && path.length >= 2) return 2;
  return -1;
}

function mappingAt(path: readonly string[]): MappingKind {
  if (path.length === 0) return { kind: 'schema', keys: TEST_TOP_KEYS };
  const owner = ownerLength(path);
  if (owner === -1) return { kind: 'free' };
  const rest = path.slice(owner);
  const inCase = path[0] === 'cases';
  if (rest.length === 0) return { kind: 'schema', keys: inCase ? CASE_KEYS : DEFAULTS_KEYS };
  const [section, name, field] = rest;
  if (rest.length === 1 && (section === 'inputs' || section === 'files' || section === 'secrets' || section === 'mocks'))
    return { kind: section };
  if (section === 'mocks' && rest.length === 2) return { kind: 'schema', keys: MOCK_KEYS };
  if (section === 'mocks' && rest.length === 3 && field === 'expect_request') return { kind: 'schema', keys: REQUEST_EXPECTATION_KEYS };
  if (!inCase || section !== 'expect') return { kind: 'free' };
  if (rest.length === 1) return { kind: 'schema', keys: EXPECT_KEYS };
  if (rest.length === 2 && (name === 'outputs' || name === 'nodes')) return { kind: name };
  if (rest.length === 3 && name === 'nodes') return { kind: 'schema', keys: NODE_EXPECTATION_KEYS };
  return { kind: 'free' };
}

/** True when the value at path is an expectation (where operators such as $contains may stand). */
function isExpectation(path: readonly string[]): boolean {
  const owner = ownerLength(path);
  if (owner === -1) return false;
  const [section, name, field] = path.slice(owner);
  const depth = path.length - owner;
  if (section === 'expect') return (name === 'outputs' && depth >= 3) || (name === 'nodes' && depth >= 4) || name === 'error';
  return section === 'mocks' && field === 'expect_request' && depth >= 4;
}

export function testFileCompletions(text: string, offset: number, agent?: AgentIndex): CompletionResult {
  const none: CompletionResult = { items: [], replace: { start: offset, end: offset } };
  const operator = operatorCompletions(text, offset);
  if (operator) return operator;
  const context = cursorContext(text, offset);
  if (context.kind === 'key') {
    const present = keysPresent(text.slice(0, context.partial.start) + text.slice(context.partial.end), context.path);
    const items = keyItems(mappingAt(context.path), agent).filter((item) => !present.has(item.label));
    return { items, replace: context.partial };
  }
  if (context.kind === 'value') return { items: valueItems(context.path, context.key, agent), replace: context.partial };
  return none;
}

function keyItems(mapping: MappingKind, agent: AgentIndex | undefined): CompletionEntry[] {
  const key = (label: string, detail: string | undefined, documentation: string | undefined, block: boolean): CompletionEntry => ({
    label,
    kind: 'property',
    insertText: block ? `${label}:\n\t$0` : `${label}: $0`,
    snippet: true,
    ...(detail ? { detail } : {}),
    ...(documentation ? { documentation } : {}),
  });
  const model = agent?.model;
  switch (mapping.kind) {
    case 'schema':
      return Object.entries(mapping.keys).map(([name, property], position) => ({
        ...key(name, property.title, property.description, MAPPING_KEYS.has(name)),
        sortText: String(position).padStart(2, '0'),
      }));
    case 'inputs':
    case 'files':
      return [...(model?.inputs.values() ?? [])]
        .filter((input) => (input.type === 'file') === (mapping.kind === 'files'))
        .map((input) => ({
          ...key(input.name, `${input.type ?? 'string'} input${input.required ? ', required' : ''}`, input.description, false),
          kind: 'reference' as const,
        }));
    case 'secrets':
      return [...(agent?.secrets ?? [])].sort().map((name) => ({
        ...key(name, 'secret of the agent', 'A test value, never a real secret: test files are committed.', false),
        kind: 'secret',
      }));
    case 'mocks':
      return [...(model?.nodes.values() ?? [])]
        .filter((node) => node.type === 'api')
        .map((node) => ({ ...key(node.id, nodeDetail(node.id, model), node.description, true), kind: 'reference' as const }));
    case 'nodes':
      return [...(model?.nodes.values() ?? [])].map((node) => ({
        ...key(node.id, nodeDetail(node.id, model), node.description, true),
        kind: 'reference' as const,
      }));
    case 'outputs':
      return [...(model?.outputs.values() ?? [])].map((output) => ({
        ...key(output.name, output.from ? `from ${output.from.value}` : 'output', output.description, false),
        kind: 'reference' as const,
      }));
    default:
      return [];
  }
}

function valueItems(path: readonly string[], key: string, agent: AgentIndex | undefined): CompletionEntry[] {
  const values = (docs: Readonly<Record<string, string | undefined>>): CompletionEntry[] =>
    Object.entries(docs).map(([value, documentation], position) => ({
      label: value,
      kind: 'value',
      ...(documentation ? { documentation } : {}),
      sortText: String(position).padStart(2, '0'),
    }));
  const model = agent?.model;
  const owner = ownerLength(path);
  const rest = owner === -1 ? [] : path.slice(owner);
  const inCase = path[0] === 'cases' && rest.length === 0;
  if (inCase && (key === 'snapshot' || key === 'live' || key === 'deployed'))
    return values({ true: CASE_KEYS[key]?.description, false: undefined });
  if (path[0] === 'cases' && rest.length === 1 && rest[0] === 'expect' && key === 'fails_at') {
    return [...(model?.nodes.values() ?? [])].map((node) => ({
      label: node.id,
      kind: 'reference' as const,
      detail: nodeDetail(node.id, model),
      ...(node.description ? { documentation: node.description } : {}),
    }));
  }
  if (rest.length === 1 && rest[0] === 'inputs') {
    const input = model?.inputs.get(key);
    if (input?.enum) return values(Object.fromEntries(input.enum.map((value) => [String(value), undefined])));
    if (input?.type === 'boolean') return values({ true: undefined, false: undefined });
  }
  if (rest[0] === 'mocks' && rest[2] === 'expect_request' && rest.length === 3 && key === 'method') return values(HTTP_METHOD_DOCS);
  return [];
}

/** After `$` where an expectation stands: the operators, each with what it checks; after `$type:`, the types. */
function operatorCompletions(text: string, offset: number): CompletionResult | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const prefix = text.slice(lineStart, offset);
  const typeValue = /(?:^|[\s{,])(\$type[ \t]*:[ \t]*)([A-Za-z]*)$/.exec(prefix);
  const typed = typeValue ? undefined : /(?:^|[\s{,])(\$[A-Za-z]*)$/.exec(prefix);
  if (!typeValue && !typed) return undefined;
  const start = offset - (typeValue ? typeValue[1]!.length + typeValue[2]!.length : typed![1]!.length);
  // Where the operator stands, read with what is typed of it left out.
  const context = cursorContext(text.slice(0, start) + text.slice(offset), start);
  const path = context.kind === 'key' ? context.path : context.kind === 'value' ? [...context.path, context.key] : undefined;
  if (!path || !isExpectation(path)) return undefined;
  if (typeValue) {
    const items = VALUE_TYPES.map((type, position): CompletionEntry => ({
      label: type,
      kind: 'value',
      sortText: String(position).padStart(2, '0'),
    }));
    return { items, replace: { start: offset - typeValue[2]!.length, end: offset } };
  }
  // As a value (`report: $co`) the operator needs a mapping of its own.
  const asValue = context.kind === 'value';
  const items = (Object.entries(MATCHER_OPERATORS) as Array<[MatcherOperator, string]>).map(
    ([op, documentation], position): CompletionEntry => ({
      label: op,
      kind: 'keyword',
      documentation: `Holds for ${documentation}.`,
      insertText: asValue ? `{ \\${op}: $0 }` : `\\${op}: $0`,
      snippet: true,
      sortText: String(position).padStart(2, '0'),
      ...(op === '$type' ? { retrigger: true } : {}),
    }),
  );
  return { items, replace: { start, end: offset } };
}

function nodeDetail(id: string, model: AgentModel | undefined): string {
  const node = model?.nodes.get(id);
  if (!node) return 'node';
  return node.type === 'api' ? `${node.method ?? 'API'} ${node.url?.value ?? ''}`.trim() : `${node.type ?? 'node'} node`;
}

export function testFileHover(text: string, offset: number, agent?: AgentIndex): HoverResult | undefined {
  const root = parseAgentFile(text).root;
  if (!root) return undefined;
  const found = placeAt(root, offset, []);
  if (!found) return undefined;
  const { path, span, isKey } = found;
  const name = path[path.length - 1]!;
  const parent = path.slice(0, -1);
  if (isKey && name.startsWith('$') && isExpectation(parent) && name in MATCHER_OPERATORS)
    return { contents: `**\`${name}\`** holds for ${MATCHER_OPERATORS[name as MatcherOperator]}.`, span };
  const model = agent?.model;
  if (!isKey) {
    const owner = ownerLength(parent);
    const isFailsAt = owner === 2 && path.length === 4 && path[2] === 'expect' && name === 'fails_at';
    const node = isFailsAt ? model?.nodes.get(found.value ?? '') : undefined;
    return node ? { contents: describeNode(node), span } : undefined;
  }
  const mapping = mappingAt(parent);
  switch (mapping.kind) {
    case 'schema': {
      const property = mapping.keys[name];
      if (!property?.description) return undefined;
      return { contents: `${property.title ? `**${property.title}**\n\n` : `**${name}**\n\n`}${property.description}`, span };
    }
    case 'inputs':
    case 'files': {
      const input = model?.inputs.get(name);
      return input ? { contents: describeInput(input), span } : undefined;
    }
    case 'secrets': {
      if (!agent?.secrets.has(name)) return undefined;
      const users = [...new Set(agent.expressions.filter((site) => isSecret(site.expression.reference, name)).map(userOf))];
      return {
        contents: `**Secret \`${name}\`**${users.length ? `, used by ${users.join(', ')}` : ''}\n\nIts value in this test: a test value, never a real secret (test files are committed).`,
        span,
      };
    }
    case 'mocks':
    case 'nodes': {
      const node = model?.nodes.get(name);
      return node ? { contents: describeNode(node), span } : undefined;
    }
    case 'outputs': {
      const output = model?.outputs.get(name);
      if (!output) return undefined;
      return {
        contents: `**Output \`${name}\`**${output.from ? `: from \`${output.from.value}\`` : ''}${output.description ? `\n\n${output.description}` : ''}`,
        span,
      };
    }
    default:
      return undefined;
  }
}

/** Where a name of a test file is declared: the agent file itself, or a place in its text. */
export type TestFileDefinition = { readonly in: 'agent-file' } | { readonly in: 'agent-text'; readonly span: Span };

/**
 * Go to Definition in a test file: its `agent:` goes to the agent file; an input, file, mocked or
 * expected node, expected output, or `fails_at` goes to its declaration in the agent (`agent`, the
 * agent under test indexed).
 */
export function testFileDefinition(text: string, offset: number, agent?: AgentIndex): TestFileDefinition | undefined {
  const root = parseAgentFile(text, 'test').root;
  if (!root) return undefined;
  const found = placeAt(root, offset, []);
  if (!found) return undefined;
  const { path, isKey } = found;
  if (!isKey && path.length === 1 && path[0] === 'agent') return { in: 'agent-file' };
  const model = agent?.model;
  if (!model) return undefined;
  const name = path[path.length - 1]!;
  const parent = path.slice(0, -1);
  const keyOf = (declaration: { readonly keyNode: YamlNode } | undefined): TestFileDefinition | undefined =>
    declaration ? { in: 'agent-text', span: spanOf(declaration.keyNode) } : undefined;
  if (!isKey) {
    const isFailsAt = ownerLength(parent) === 2 && path.length === 4 && path[2] === 'expect' && name === 'fails_at';
    return isFailsAt ? keyOf(model.nodes.get(found.value ?? '')) : undefined;
  }
  switch (mappingAt(parent).kind) {
    case 'inputs':
    case 'files':
      return keyOf(model.inputs.get(name));
    case 'mocks':
    case 'nodes':
      return keyOf(model.nodes.get(name));
    case 'outputs':
      return keyOf(model.outputs.get(name));
    default:
      return undefined;
  }
}

function isSecret(reference: { root: string; path: ReadonlyArray<{ name: string | number }> } | undefined, name: string): boolean {
  return reference?.root === 'secrets' && reference.path[0]?.name === name;
}

/** The key (or scalar value) under the offset, with the keys leading to it. */
function placeAt(
  map: YamlNode,
  offset: number,
  path: readonly string[],
): { path: string[]; span: Span; isKey: boolean; value?: string } | undefined {
  if (!isMap(map)) return undefined;
  for (const { key, keyNode, value } of entries(map)) {
    const keySpan = spanOf(keyNode);
    if (contains(keySpan, offset)) return { path: [...path, key], span: keySpan, isKey: true };
    if (!value?.range || offset < value.range[0] || offset > value.range[1]) continue;
    if (isScalar(value))
      return {
        path: [...path, key],
        span: spanOf(value),
        isKey: false,
        ...(typeof value.value === 'string' ? { value: value.value } : {}),
      };
    return placeAt(value, offset, [...path, key]);
  }
  return undefined;
}
