// An agent file made ready to run: validated (a file with errors is refused), its strings scanned
// once, each node's dependencies known and the nodes in an order that respects them.
import { executionLevels } from '../graph/graph';
import type { HttpMethod } from '../http/httpRequest';
import { parseHeaderString } from '../document/headers';
import type { AgentModel, NodeDeclaration } from '../document/model';
import type { Problem } from '../document/problems';
import { validateAgentText } from '../validation/validate';
import { compileString } from './evaluate';
import type { CompiledString } from './evaluate';

/** A body or part of one: strings are evaluated, everything else is sent as written. */
export type BodyTemplate =
  | { readonly kind: 'string'; readonly value: CompiledString; readonly path: string }
  | { readonly kind: 'list'; readonly items: readonly BodyTemplate[] }
  | { readonly kind: 'map'; readonly entries: readonly (readonly [string, BodyTemplate])[] }
  | { readonly kind: 'literal'; readonly value: number | boolean | null };

export interface HeaderTemplate {
  readonly name: CompiledString;
  readonly value: CompiledString;
}

export interface ApiNodePlan {
  readonly kind: 'api';
  readonly id: string;
  readonly method: HttpMethod;
  readonly url: CompiledString;
  readonly headers: readonly HeaderTemplate[];
  /** json: a mapping or list (or number/boolean); text: a string, sent as text. */
  readonly body?: { readonly kind: 'json'; readonly template: BodyTemplate } | { readonly kind: 'text'; readonly value: CompiledString };
  readonly dependencies: ReadonlySet<string>;
}

export interface TemplateNodePlan {
  readonly kind: 'template';
  readonly id: string;
  readonly text: CompiledString;
  readonly dependencies: ReadonlySet<string>;
}

export type NodePlan = ApiNodePlan | TemplateNodePlan;

export interface AgentPlan {
  /** In an order where every node comes after the nodes it references. */
  readonly nodes: readonly NodePlan[];
  readonly outputs: readonly { readonly name: string; readonly from: CompiledString }[];
  /** Every secret the agent references. */
  readonly secretNames: readonly string[];
}

export interface LoadedAgent {
  readonly name: string;
  readonly model: AgentModel;
  readonly plan: AgentPlan;
  /** Warnings and hints of the file (it has no errors). */
  readonly problems: readonly Problem[];
}

/** The file cannot run because validation found errors. */
export class AgentFileError extends Error {
  constructor(
    readonly source: string,
    readonly problems: readonly Problem[],
    /** The declarations, when the YAML could be read (e.g. to know the deployment's account). */
    readonly model?: AgentModel,
  ) {
    const errors = problems.filter((problem) => problem.severity === 'error');
    const shown = errors
      .slice(0, 5)
      .map((problem) => `${source}:${problem.range.line}:${problem.range.column}: ${problem.code} ${problem.message}`);
    super(
      `${source} has ${errors.length} ${errors.length === 1 ? 'error' : 'errors'} and cannot run until ${errors.length === 1 ? 'it is' : 'they are'} fixed:\n${shown.join('\n')}${errors.length > 5 ? `\n… and ${errors.length - 5} more (agent-workflows validate ${source})` : ''}`,
    );
    this.name = 'AgentFileError';
  }
}

/** Validates and prepares an agent file's text; throws AgentFileError when it has errors. */
export function loadAgent(text: string, source = 'the agent file'): LoadedAgent {
  const { problems, file, model } = validateAgentText(text);
  if (!model || problems.some((problem) => problem.severity === 'error')) throw new AgentFileError(source, problems, model);
  const documentValue = (file.value ?? {}) as { nodes?: Record<string, { body?: unknown } | null> };
  const secretNames = new Set<string>();
  const compiled = new Map<string, NodePlan>();
  const dependencies = new Map<string, Set<string>>();

  const scan = (value: CompiledString, owner?: Set<string>): CompiledString => {
    for (const expression of value.expressions) {
      const reference = expression.reference;
      const name = reference?.path[0]?.name;
      if (typeof name !== 'string') continue;
      if (reference?.root === 'secrets') secretNames.add(name);
      if (reference?.root === 'nodes') owner?.add(name);
    }
    return value;
  };

  for (const node of model.nodes.values()) {
    const needs = new Set<string>();
    dependencies.set(node.id, needs);
    const field = (value: string): CompiledString => scan(compileString(value), needs);
    compiled.set(
      node.id,
      node.type === 'api'
        ? apiNodePlan(node, documentValue.nodes?.[node.id]?.body, field, needs)
        : { kind: 'template', id: node.id, text: field(node.text?.value ?? ''), dependencies: needs },
    );
  }
  const outputs = [...model.outputs.values()].map((output) => ({ name: output.name, from: scan(compileString(output.from?.value ?? '')) }));
  const order = executionLevels(dependencies).flat();
  return {
    name: model.name ?? source,
    model,
    plan: { nodes: order.map((id) => compiled.get(id)!), outputs, secretNames: [...secretNames].sort() },
    problems,
  };
}

function apiNodePlan(
  node: NodeDeclaration,
  body: unknown,
  field: (value: string) => CompiledString,
  dependencies: ReadonlySet<string>,
): ApiNodePlan {
  const headers: HeaderTemplate[] = [];
  for (const setting of node.settings) {
    // Validation guarantees the colon; split before filling in, so a value cannot move it.
    const header = parseHeaderString(setting.value);
    if (header) headers.push({ name: field(header.name.trim()), value: field(header.value) });
  }
  const template = (value: unknown, path: string): BodyTemplate => {
    if (typeof value === 'string') return { kind: 'string', value: field(value), path };
    if (Array.isArray(value)) return { kind: 'list', items: value.map((item, index) => template(item, `${path}[${index}]`)) };
    if (value !== null && typeof value === 'object') {
      return {
        kind: 'map',
        entries: Object.entries(value).map(
          ([key, item]) =>
            [key, template(item, /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`)] as const,
        ),
      };
    }
    return { kind: 'literal', value: typeof value === 'number' || typeof value === 'boolean' ? value : null };
  };
  const plannedBody: ApiNodePlan['body'] =
    body === undefined || body === null
      ? undefined
      : typeof body === 'string'
        ? { kind: 'text', value: field(body) }
        : { kind: 'json', template: template(body, 'body') };
  return {
    kind: 'api',
    id: node.id,
    method: (node.method ?? 'GET') as HttpMethod,
    url: field(node.url?.value ?? ''),
    headers,
    ...(plannedBody ? { body: plannedBody } : {}),
    dependencies,
  };
}
