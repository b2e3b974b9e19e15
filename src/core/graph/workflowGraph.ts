// The workflow graph of an agent file, as the editor draws it: inputs, processing nodes and outputs,
// joined by the references between them. Built from whatever the file yields: a file with errors
// still gives the declarations that could be read, and its problems alongside.
import { isMap } from 'yaml';
import type { Node as YamlNode, YAMLMap } from 'yaml';
import { maskExpressions, scanExpressions } from '../document/expressions';
import { CREDENTIAL_HEADERS, parseHeaderString } from '../document/headers';
import { readModel } from '../document/model';
import type { AgentModel, NodeDeclaration, StringField } from '../document/model';
import type { Problem, Severity, Span } from '../document/problems';
import { validateAgentText } from '../validation/validate';
import { entries, getValue, spanOf } from '../document/yamlAst';
import { authorityEnd, isCredentialParameter } from '../document/urlCredentials';

/** How a processing node authenticates, as a badge on the node. */
export type AuthBadge = 'bearer' | 'basic' | 'api-key-header' | 'api-key-url' | 'other' | 'none';

export interface ProblemCounts {
  readonly errors: number;
  readonly warnings: number;
  readonly infos: number;
}

interface GraphNodeBase {
  /** Unique in the graph: `input:NAME`, `node:ID` or `output:NAME` (names may repeat across kinds). */
  readonly key: string;
  readonly name: string;
  /** The name in the source, selected when the node is clicked. */
  readonly select: Span;
  /** The whole entry (name and value), scrolled into view; problems inside it belong to the node. */
  readonly extent: Span;
  readonly problems: ProblemCounts;
}

export interface InputGraphNode extends GraphNodeBase {
  readonly kind: 'input';
  readonly valueType?: string;
  readonly required: boolean;
}

export interface ProcessingGraphNode extends GraphNodeBase {
  readonly kind: 'node';
  readonly type?: string;
  readonly method?: string;
  /** The URL's host (with port), as written; expressions in it are kept. */
  readonly host?: string;
  /** Every way the node sends credentials, in the order written; `none` for an API node without any; empty for other nodes. */
  readonly auth: readonly AuthBadge[];
}

export interface OutputGraphNode extends GraphNodeBase {
  readonly kind: 'output';
}

export type GraphNode = InputGraphNode | ProcessingGraphNode | OutputGraphNode;

/** Data flows from `from` to `to`: `to` references `from`. */
export interface GraphEdge {
  readonly from: string;
  readonly to: string;
}

export interface WorkflowGraph {
  /** The agent's `name`, when it could be read. */
  readonly name?: string;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  /** Every problem of the file, as validation reports it. */
  readonly problems: readonly Problem[];
  /** False when the YAML gave no mapping to read declarations from (the graph is then empty). */
  readonly readable: boolean;
}

export function buildWorkflowGraph(text: string): WorkflowGraph {
  const validation = validateAgentText(text);
  const problems = validation.problems;
  // Validation stops reading declarations at a YAML syntax error; the graph reads what the parser
  // recovered anyway, so the picture does not vanish while a line is being typed.
  const contents = validation.file.document?.contents;
  const root = isMap(contents) ? contents : undefined;
  const model = validation.model ?? (root ? readModel(root) : undefined);
  if (!model || !root) return { nodes: [], edges: [], problems, readable: false };

  const nodes: GraphNode[] = [];
  const sectionExtents = {
    inputs: extentsOf(text, root, 'inputs'),
    nodes: extentsOf(text, root, 'nodes'),
    outputs: extentsOf(text, root, 'outputs'),
  };
  const base = (kind: GraphNode['kind'], name: string, keyNode: YamlNode, extents: ReadonlyMap<string, Span>) => {
    const select = spanOf(keyNode);
    const extent = extents.get(name) ?? select;
    return { key: `${kind}:${name}`, name, select, extent, problems: countWithin(problems, extent) };
  };

  for (const input of model.inputs.values()) {
    nodes.push({
      ...base('input', input.name, input.keyNode, sectionExtents.inputs),
      kind: 'input',
      ...(input.type !== undefined ? { valueType: input.type } : {}),
      required: input.required,
    });
  }
  for (const node of model.nodes.values()) {
    const host = node.url ? urlHost(node.url.value) : undefined;
    nodes.push({
      ...base('node', node.id, node.keyNode, sectionExtents.nodes),
      kind: 'node',
      ...(node.type !== undefined ? { type: node.type } : {}),
      ...(node.method !== undefined ? { method: node.method } : {}),
      ...(host !== undefined ? { host } : {}),
      auth: authBadges(node),
    });
  }
  for (const output of model.outputs.values()) {
    nodes.push({ ...base('output', output.name, output.keyNode, sectionExtents.outputs), kind: 'output' });
  }

  return { ...(model.name !== undefined ? { name: model.name } : {}), nodes, edges: referenceEdges(model), problems, readable: true };
}

/** The edges of every reference to a declared input or node, once each, in the order written. */
function referenceEdges(model: AgentModel): GraphEdge[] {
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  const add = (from: string, to: string): void => {
    const id = `${from}\u0000${to}`;
    if (from === to || seen.has(id)) return;
    seen.add(id);
    edges.push({ from, to });
  };
  const visit = (fields: readonly StringField[], to: string): void => {
    for (const field of fields) {
      for (const { reference } of scanExpressions(field.value)) {
        const name = reference?.path[0]?.name;
        if (typeof name !== 'string') continue;
        // References to undeclared names are problems of their own, not edges.
        if (reference?.root === 'inputs' && model.inputs.has(name)) add(`input:${name}`, to);
        if (reference?.root === 'nodes' && model.nodes.has(name)) add(`node:${name}`, to);
      }
    }
  };
  for (const node of model.nodes.values()) visit(node.evaluated, `node:${node.id}`);
  for (const output of model.outputs.values()) if (output.from) visit([output.from], `output:${output.name}`);
  return edges;
}

/** How a node sends credentials: its settings headers, then an API key in its URL. */
export function authBadges(node: NodeDeclaration): AuthBadge[] {
  const badges: AuthBadge[] = [];
  const add = (badge: AuthBadge): void => {
    if (!badges.includes(badge)) badges.push(badge);
  };
  for (const setting of node.settings) {
    const header = parseHeaderString(setting.value);
    if (!header) continue;
    const name = header.name.trim().toLowerCase();
    if (name === 'authorization' || name === 'proxy-authorization') {
      // Masked, so a whole-value expression ("Authorization: {{ secrets.AUTH }}") is no scheme.
      const value = maskExpressions(setting.value, header.expressions).slice(header.valueStart, header.valueEnd);
      const scheme = /^\S+/.exec(value)?.[0].toLowerCase();
      add(scheme === 'bearer' ? 'bearer' : scheme === 'basic' ? 'basic' : 'other');
    } else if (CREDENTIAL_HEADERS.has(name)) {
      add('api-key-header');
    }
  }
  if (node.url && urlHasPassword(node.url.value)) add('basic');
  if (node.url && urlHasApiKey(node.url.value)) add('api-key-url');
  const apiLike =
    node.type === 'api' || (node.type !== 'template' && (node.url !== undefined || node.method !== undefined || node.settings.length > 0));
  if (badges.length === 0 && apiLike) badges.push('none');
  return badges;
}

/** The authority of an http(s)-style URL without user info, as written; undefined when there is none. */
export function urlHost(url: string): string | undefined {
  // Boundaries are found with expressions masked, so a "/" or "@" inside {{ }} does not count.
  const masked = maskExpressions(url, scanExpressions(url));
  const match = /^\s*[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(masked);
  if (!match) return undefined;
  const authorityStart = match[0].length;
  const end = authorityEnd(masked, authorityStart);
  const at = masked.lastIndexOf('@', end - 1);
  // User info never reaches the picture: it may hold a password.
  const host = url.slice(at >= authorityStart ? at + 1 : authorityStart, end);
  return host === '' ? undefined : host;
}

/** A key or token in the URL's query (the names the API node rules look for). */
function urlHasApiKey(url: string): boolean {
  const masked = maskExpressions(url, scanExpressions(url));
  const query = /\?([^#]*)/.exec(masked)?.[1];
  if (query === undefined) return false;
  return query.split('&').some((parameter) => isCredentialParameter(parameter.split('=')[0] ?? ''));
}

/** A user name and password in the URL: the engine sends them as Basic credentials. */
function urlHasPassword(url: string): boolean {
  const masked = maskExpressions(url, scanExpressions(url));
  const userinfo = /^\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#@]*)@/.exec(masked)?.[1];
  return userinfo !== undefined && /:./.test(userinfo);
}

/** For each entry of a top-level section, the span from its key to the end of its value (first entry of a name wins, as in the model). */
function extentsOf(text: string, root: YAMLMap, section: string): Map<string, Span> {
  const extents = new Map<string, Span>();
  const map = getValue(root, section);
  if (!isMap(map)) return extents;
  for (const { key, keyNode, value } of entries(map)) {
    if (extents.has(key)) continue;
    const keySpan = spanOf(keyNode);
    // A block mapping's range runs to the next line; the entry ends at its last character.
    let end = Math.max(keySpan.end, value?.range?.[1] ?? keySpan.end);
    while (end > keySpan.end && /\s/.test(text[end - 1] ?? '')) end--;
    extents.set(key, { start: keySpan.start, end });
  }
  return extents;
}

function countWithin(problems: readonly Problem[], extent: Span): ProblemCounts {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const problem of problems) {
    if (problem.span.start >= extent.start && problem.span.start <= extent.end) counts[problem.severity]++;
  }
  return { errors: counts.error, warnings: counts.warning, infos: counts.info };
}
