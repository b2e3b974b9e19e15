// Send Request on one node: builds and sends one API node's request with the engine's own code
// (runApiNode: the same builder, redirects, size caps), given the values it needs, and returns its
// exchange and result. `nodeNeeds` says which values those are, so the editor and the command line
// can ask for them first; `renderTemplateNode` is the same for a template node (no request).
import type { Dispatcher } from 'undici';
import type { AgentModel } from '../document/model';
import type { ApiNodePlan, BodyTemplate, LoadedAgent, NodePlan } from '../engine/agentPlan';
import { runApiNode } from '../engine/apiNode';
import { ENGINE_DEFAULTS } from '../engine/engine';
import { evaluateString, ExpressionError } from '../engine/evaluate';
import type { CompiledString, NodeResult, Scope } from '../engine/evaluate';
import type { ResolvedInputs } from '../engine/inputs';
import type { SecretResolver } from '../engine/secrets';
import { renderText } from '../engine/values';
import { NodeError } from '../engine/nodeError';
import { errorMessage } from '../errors';
import { EXCHANGE_BODY_LIMITS } from './exchange';
import type { Exchange, ExchangeFailure } from './exchange';
import { namedSecretRedactor } from './recordExchange';

/** The values a node's fields reference, each list sorted. */
export interface NodeNeeds {
  readonly inputs: readonly string[];
  readonly secrets: readonly string[];
  /** Nodes whose results it uses (`{{ nodes.X… }}`). */
  readonly nodes: readonly string[];
}

/** A node id the agent does not have; `known` lists those it has. */
export class UnknownNodeError extends Error {
  constructor(
    readonly node: string,
    readonly known: readonly string[],
  ) {
    super(`The agent has no node "${node}"; its nodes are ${known.length ? known.join(', ') : '(none)'}.`);
    this.name = 'UnknownNodeError';
  }
}

/** The node is not of the kind asked for (Send Request on a template node, Render on an API node). */
export class NodeKindError extends Error {
  constructor(
    readonly node: string,
    readonly kind: NodePlan['kind'],
  ) {
    super(
      kind === 'template'
        ? `Node "${node}" is a template node: it sends no request (render it instead).`
        : `Node "${node}" is an API node: it has no text to render (send it instead).`,
    );
    this.name = 'NodeKindError';
  }
}

/** Values the node needs that were not given: nothing was sent. */
export class MissingValuesError extends Error {
  constructor(
    readonly node: string,
    /** Secrets not set (or empty). */
    readonly secrets: readonly string[],
    /** Upstream nodes without a result. */
    readonly nodes: readonly string[],
    /** Secrets whose lookup failed, with why. */
    readonly unreadable: readonly string[] = [],
  ) {
    const parts = [
      ...(secrets.length ? [`secret${secrets.length === 1 ? '' : 's'} ${secrets.join(', ')}`] : []),
      ...(nodes.length ? [`the result${nodes.length === 1 ? '' : 's'} of node${nodes.length === 1 ? '' : 's'} ${nodes.join(', ')}`] : []),
    ];
    super(`Node "${node}" needs ${parts.join(' and ')}${unreadable.length ? ` (${unreadable.join('; ')})` : ''}.`);
    this.name = 'MissingValuesError';
  }
}

/** The plan of a node, or UnknownNodeError listing the agent's nodes. */
export function findNode(agent: LoadedAgent, nodeId: string): NodePlan {
  const node = agent.plan.nodes.find((candidate) => candidate.id === nodeId);
  if (!node) throw new UnknownNodeError(nodeId, [...agent.model.nodes.keys()]);
  return node;
}

/** The inputs, secrets and upstream nodes the fields of one node reference. */
export function nodeNeeds(agent: LoadedAgent, nodeId: string): NodeNeeds {
  const node = findNode(agent, nodeId);
  const inputs = new Set<string>();
  const secrets = new Set<string>();
  const nodes = new Set<string>();
  const scan = (compiled: CompiledString): void => {
    for (const expression of compiled.expressions) {
      const name = expression.reference?.path[0]?.name;
      if (typeof name !== 'string') continue;
      const root = expression.reference?.root;
      if (root === 'inputs') inputs.add(name);
      else if (root === 'secrets') secrets.add(name);
      else if (root === 'nodes') nodes.add(name);
    }
  };
  if (node.kind === 'template') scan(node.text);
  else {
    scan(node.url);
    for (const header of node.headers) {
      scan(header.name);
      scan(header.value);
    }
    if (node.body?.kind === 'text') scan(node.body.value);
    else if (node.body) scanTemplate(node.body.template, scan);
  }
  const sorted = (set: Set<string>): string[] => [...set].sort();
  return { inputs: sorted(inputs), secrets: sorted(secrets), nodes: sorted(nodes) };
}

function scanTemplate(template: BodyTemplate, scan: (compiled: CompiledString) => void): void {
  if (template.kind === 'string') scan(template.value);
  else if (template.kind === 'list') for (const item of template.items) scanTemplate(item, scan);
  else if (template.kind === 'map') for (const [, item] of template.entries) scanTemplate(item, scan);
}

/**
 * The model as Send Request checks the inputs given for one node: every declared input is still
 * one (a value given for an input the node does not use is checked, and unused, so one command
 * line serves each node of an agent), but only those the node uses are required.
 */
export function modelForNode(agent: LoadedAgent, nodeId: string): AgentModel {
  const used = new Set(nodeNeeds(agent, nodeId).inputs);
  const inputs = [...agent.model.inputs].map(
    ([name, input]) => [name, used.has(name) || !input.required ? input : { ...input, required: false }] as const,
  );
  return { ...agent.model, inputs: new Map(inputs) };
}

export interface NodeValues {
  /** Checked inputs (resolveInputs, e.g. against modelForNode). */
  readonly inputs: ResolvedInputs;
  /** Results of upstream nodes, by id: a local execution's, pinned ones, or typed in. */
  readonly nodes?: ReadonlyMap<string, NodeResult>;
  /** Where `{{ secrets.NAME }}` values come from. */
  readonly secrets?: SecretResolver;
}

export interface SendNodeOptions extends NodeValues {
  /** Time limit of the call, redirects included (default: the engine's node time limit). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** A proxy or TLS settings (proxy.ts). */
  readonly dispatcher?: Dispatcher;
  /** Bytes of the answer read and kept; past it the answer is cut, not failed (default EXCHANGE_BODY_LIMITS.send). */
  readonly bodyLimit?: number;
  readonly followRedirects?: boolean;
  readonly maxRedirects?: number;
  /** The clock of the exchange's times (a fake one in tests). */
  readonly now?: () => number;
}

export interface SendOutcome {
  readonly exchange: Exchange;
  /** What the node produced, as a run would use it: absent when it failed or its answer was cut. */
  readonly result?: NodeResult;
  /** Why the node would fail in a run (a 4xx/5xx, a network failure…); absent when it succeeded. */
  readonly failure?: ExchangeFailure;
  /** The answer was larger than the body limit: only its start was read. */
  readonly truncated?: boolean;
}

/**
 * Sends one API node's request with the given values. Throws before sending anything for an
 * unknown node (UnknownNodeError), a template node (NodeKindError) or missing values
 * (MissingValuesError); otherwise every outcome, failures included, comes with its exchange.
 */
export async function sendNode(agent: LoadedAgent, nodeId: string, options: SendNodeOptions): Promise<SendOutcome> {
  const node = findNode(agent, nodeId);
  if (node.kind !== 'api') throw new NodeKindError(nodeId, node.kind);
  const scope = await scopeFor(agent, node, options);
  let exchange: Exchange | undefined;
  const bodyLimit = options.bodyLimit ?? EXCHANGE_BODY_LIMITS.send;
  const signal = options.signal ?? new AbortController().signal;
  try {
    const outcome = await runApiNode(node, scope, {
      timeoutMs: options.timeoutMs ?? ENGINE_DEFAULTS.nodeTimeoutMs,
      maxResponseBytes: bodyLimit,
      overLimit: 'cut',
      followRedirects: options.followRedirects ?? ENGINE_DEFAULTS.followRedirects,
      maxRedirects: options.maxRedirects ?? ENGINE_DEFAULTS.maxRedirects,
      signal,
      redactor: namedSecretRedactor(scope.secrets),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      onExchange: (record) => (exchange = record()),
      exchangeBodyLimit: bodyLimit,
      // Its exchange is what a send shows; its result is read only by later sends, Render or Pin.
      deferJsonParse: true,
      ...(options.now ? { now: options.now } : {}),
    });
    return outcome.truncated ? { exchange: exchange!, truncated: true } : { exchange: exchange!, result: outcome.result };
  } catch (error) {
    if (!exchange) throw error;
    return { exchange, failure: exchange.failure ?? { kind: 'other', message: errorMessage(error) } };
  }
}

/** A template node's text with the given values (secrets by name), without running anything. */
export async function renderTemplateNode(
  agent: LoadedAgent,
  nodeId: string,
  values: NodeValues,
): Promise<{ readonly text: string } | { readonly failure: ExchangeFailure }> {
  const node = findNode(agent, nodeId);
  if (node.kind !== 'template') throw new NodeKindError(nodeId, node.kind);
  const scope = await scopeFor(agent, node, values);
  const redactor = namedSecretRedactor(scope.secrets);
  try {
    return { text: redactor.text(renderText(evaluateString(node.text, scope, { node: node.id, field: 'text' }))) };
  } catch (error) {
    if (error instanceof ExpressionError || error instanceof NodeError)
      return { failure: { kind: 'expression', message: redactor.text(error.message) } };
    throw error;
  }
}

/** The scope of one node: its secrets looked up, its upstream results checked. */
async function scopeFor(agent: LoadedAgent, node: ApiNodePlan | NodePlan, values: NodeValues): Promise<Scope> {
  const needs = nodeNeeds(agent, node.id);
  const missingNodes = needs.nodes.filter((id) => !values.nodes?.has(id));
  const secrets = new Map<string, string>();
  const missingSecrets: string[] = [];
  const unreadable: string[] = [];
  for (const name of needs.secrets) {
    try {
      const value = values.secrets ? await values.secrets(name) : undefined;
      if (value === undefined || value === '') missingSecrets.push(name);
      else secrets.set(name, value);
    } catch (error) {
      missingSecrets.push(name);
      unreadable.push(`secret ${name} could not be read: ${errorMessage(error)}`);
    }
  }
  if (missingNodes.length || missingSecrets.length) {
    const redactor = namedSecretRedactor(secrets);
    throw new MissingValuesError(
      node.id,
      missingSecrets,
      missingNodes,
      unreadable.map((text) => redactor.text(text)),
    );
  }
  return { inputs: values.inputs.values, nodes: values.nodes ?? new Map(), secrets };
}
