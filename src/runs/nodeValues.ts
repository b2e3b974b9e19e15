// The values one node needs to be sent (Send Request) or rendered (Render) on its own: its inputs,
// asked as Run Locally asks them (remembered per file); its secrets from secret storage (asked for
// when missing); and the results of the nodes it references: pinned, else from the last local
// execution (or send) of the file in this window, else the user chooses to run the upstream nodes
// first, the whole agent, or to type the value as JSON.
import * as vscode from 'vscode';
import { RunBlocked } from '../commandErrors';
import { proxySettings, serviceSettings } from '../config';
import { loadAgent } from '../core/engine/agentPlan';
import type { LoadedAgent, NodePlan } from '../core/engine/agentPlan';
import { executeAgent } from '../core/engine/engine';
import type { NodeResult } from '../core/engine/evaluate';
import { filesFromPaths, resolveInputs } from '../core/engine/inputs';
import type { ResolvedInputs } from '../core/engine/inputs';
import { anyHostDispatcher } from '../core/http/proxy';
import { parseTypedValue } from '../core/nodeValues/typedValue';
import { nodeNeeds } from '../core/exchange/sendNode';
import { agentWithNodes, upstreamOf } from '../core/nodeValues/upstream';
import { loadAgentFile } from './agentFile';
import type { AgentFile } from './agentFile';
import { ensureSecrets, runAgentFileLocally, withDispatcher } from './agentRuns';
import { askForInputs } from './inputPrompts';
import type { RunDeps } from './runDeps';

export type NodeValueDeps = RunDeps;

/** Everything needed to send or render one node without running the others. */
export interface PreparedNode {
  readonly file: AgentFile;
  readonly agent: LoadedAgent;
  readonly node: NodePlan;
  readonly inputs: ResolvedInputs;
  /** The results of the nodes it references, by id. */
  readonly nodes: ReadonlyMap<string, NodeResult>;
  readonly secrets: ReadonlyMap<string, string>;
  /** Where each upstream value came from, for the user ("pinned 12:01", "last run"). */
  readonly sources: ReadonlyMap<string, 'pinned' | 'run' | 'send' | 'typed'>;
}

export type NodePurpose = 'send' | 'render';

/** The node of a file a command acts on, checked: it exists and has the kind the command needs. */
export function findNode(agent: LoadedAgent, file: AgentFile, nodeId: string, purpose: NodePurpose): NodePlan {
  const node = agent.plan.nodes.find((candidate) => candidate.id === nodeId);
  const name = file.uri.path.split('/').pop() ?? file.uri.toString();
  const wanted = purpose === 'send' ? 'api' : 'template';
  const ofKind = agent.plan.nodes.filter((candidate) => candidate.kind === wanted).map((candidate) => `"${candidate.id}"`);
  const list = ofKind.length ? `Its ${wanted === 'api' ? 'API' : 'template'} nodes: ${ofKind.join(', ')}.` : `It has no ${wanted} node.`;
  if (!node) throw new RunBlocked(`${name} has no node "${nodeId}". ${list}`);
  if (node.kind !== wanted)
    throw new RunBlocked(
      purpose === 'send'
        ? `Node "${nodeId}" is a template node: it sends no request. Use Render above it to see its text. ${list}`
        : `Node "${nodeId}" is an API node: use Send Request above it to call it. ${list}`,
    );
  return node;
}

/** Undefined when the user cancelled a prompt. */
export async function prepareNode(
  uri: vscode.Uri,
  nodeId: string,
  purpose: NodePurpose,
  deps: NodeValueDeps,
): Promise<PreparedNode | undefined> {
  const file = await loadAgentFile(uri);
  const agent = loadAgent(file.text, file.agentPath);
  const node = findNode(agent, file, nodeId, purpose);
  const references = nodeNeeds(agent, node.id);
  const title = `${purpose === 'send' ? 'Send Request' : 'Render'}: ${nodeId}`;

  const values = new Map<string, NodeResult>();
  const sources = new Map<string, 'pinned' | 'run' | 'send' | 'typed'>();
  const known = (): string[] => {
    const missing: string[] = [];
    for (const id of references.nodes) {
      if (values.has(id)) continue;
      const pinned = deps.pins.get(uri, id);
      const kept = deps.nodeResults.get(uri.toString(), id);
      if (pinned) {
        values.set(id, pinned.result);
        sources.set(id, 'pinned');
      } else if (kept) {
        values.set(id, kept.result);
        sources.set(id, kept.source);
      } else missing.push(id);
    }
    return missing;
  };

  let missing = known();
  let toRun: NodePlan[] = [];
  if (missing.length > 0) {
    const choice = await chooseUpstream(agent, node, missing, title);
    if (!choice) return undefined;
    if (choice === 'whole') {
      const record = await runAgentFileLocally(uri, deps);
      if (!record) return undefined;
      missing = known();
      if (missing.length > 0)
        throw new RunBlocked(
          `The local run of ${file.displayName} ended without a result of ${missing.map((id) => `"${id}"`).join(', ')} (${record.state}${record.error ? `: ${record.error}` : ''}). Fix what stopped it, or pin a value for ${missing.length === 1 ? 'that node' : 'those nodes'}.`,
        );
    } else if (choice === 'typed') {
      for (const id of missing) {
        const typed = await typeNodeValue(agent, id, title);
        if (!typed) return undefined;
        values.set(id, typed);
        sources.set(id, 'typed');
      }
    } else {
      // Upstream nodes with a pinned value are not called (the engine is given the pins).
      toRun = upstreamOf(agent.plan, [node.id]);
    }
  }

  // The inputs and secrets of the node, and of the nodes run first.
  const inputNames = new Set(references.inputs);
  const secretNames = new Set(references.secrets);
  for (const upstream of toRun) {
    const used = nodeNeeds(agent, upstream.id);
    for (const name of used.inputs) inputNames.add(name);
    if (!deps.pins.get(uri, upstream.id)) for (const name of used.secrets) secretNames.add(name);
  }
  if (!(await ensureSecrets([...secretNames].sort(), file.displayName, deps))) return undefined;
  const inputs = await askNodeInputs(file, inputNames, deps);
  if (!inputs) return undefined;
  const secrets = new Map<string, string>();
  for (const name of secretNames) {
    const value = await deps.workflowSecrets.get(name);
    if (value === undefined) throw new RunBlocked(`Secret "${name}" is not set: run "Agent Workflows: Set Secret…" for ${name}.`);
    secrets.set(name, value);
  }

  if (toRun.length > 0) {
    await runUpstream(file, agent, toRun, inputs, secrets, deps);
    missing = known();
    if (missing.length > 0)
      throw new RunBlocked(`Running the upstream nodes gave no result of ${missing.map((id) => `"${id}"`).join(', ')}.`);
  }
  return { file, agent, node, inputs, nodes: values, secrets, sources };
}

async function chooseUpstream(
  agent: LoadedAgent,
  node: NodePlan,
  missing: readonly string[],
  title: string,
): Promise<'upstream' | 'whole' | 'typed' | undefined> {
  const upstream = upstreamOf(agent.plan, [node.id]).map((plan) => plan.id);
  const names = missing.map((id) => `"${id}"`).join(', ');
  const items: (vscode.QuickPickItem & { readonly choice: 'upstream' | 'whole' | 'typed' })[] = [
    {
      label: '$(debug-alt-small) Run the upstream nodes first',
      description: upstream.join(', '),
      detail: 'Runs just those nodes locally (pinned ones are not called), then sends',
      choice: 'upstream',
    },
    { label: '$(run-all) Run the whole agent locally', detail: 'Run Locally, then use its results', choice: 'whole' },
    {
      label: `$(json) Type the value${missing.length === 1 ? '' : 's'} as JSON`,
      detail: `The body of ${names}`,
      choice: 'typed',
    },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: `${node.id} uses ${names}, which ${missing.length === 1 ? 'has' : 'have'} no result in this window and no pin`,
    ignoreFocusOut: true,
  });
  return picked?.choice;
}

async function typeNodeValue(agent: LoadedAgent, id: string, title: string): Promise<NodeResult | undefined> {
  const type = agent.plan.nodes.find((node) => node.id === id)?.kind;
  const text = await vscode.window.showInputBox({
    title,
    prompt: `The body of node "${id}" as JSON: {{ nodes.${id}.body }}${type === 'api' ? ' (its status is then 200)' : ''}`,
    placeHolder: '{"id": 42}',
    ignoreFocusOut: true,
    validateInput: (value) => {
      const typed = parseTypedValue(value, type);
      return typed.ok ? undefined : typed.problem;
    },
  });
  if (text === undefined) return undefined;
  const typed = parseTypedValue(text, type);
  if (!typed.ok) throw new RunBlocked(`The value of "${id}": ${typed.problem}`);
  return typed.result;
}

/** The inputs the node uses, asked as Run Locally asks them; the other inputs' remembered values are kept. */
async function askNodeInputs(file: AgentFile, names: ReadonlySet<string>, deps: NodeValueDeps): Promise<ResolvedInputs | undefined> {
  const declared = new Map([...file.model.inputs].filter(([name]) => names.has(name)));
  const model = { ...file.model, inputs: declared };
  if (declared.size === 0) return resolveInputs(model, { values: {}, files: {} });
  const remembered = deps.inputMemory.get(file.uri);
  const given = await askForInputs(model, file.displayName, remembered);
  if (!given) return undefined;
  const keep = <T>(record: Readonly<Record<string, T>>): Record<string, T> =>
    Object.fromEntries(Object.entries(record).filter(([name]) => !declared.has(name)));
  await deps.inputMemory.set(file.uri, {
    values: { ...keep(remembered.values), ...given.values },
    files: { ...keep(remembered.files), ...given.files },
  });
  const files = await filesFromPaths(given.files ?? {});
  return resolveInputs(model, { values: given.values ?? {}, files });
}

/** Runs the upstream nodes locally, with progress and Cancel; their results are kept for later sends. */
async function runUpstream(
  file: AgentFile,
  agent: LoadedAgent,
  nodes: readonly NodePlan[],
  inputs: ResolvedInputs,
  secrets: ReadonlyMap<string, string>,
  deps: NodeValueDeps,
): Promise<void> {
  const uri = file.uri;
  const pinned = deps.pins.results(uri);
  const result = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Running ${nodes.map((node) => node.id).join(', ')} locally`,
      cancellable: true,
    },
    async (_progress, token) => {
      const controller = new AbortController();
      const subscription = token.onCancellationRequested(() => controller.abort());
      try {
        return await executeAgent(agentWithNodes(agent, nodes), inputs, {
          secrets: async (name) => secrets.get(name) ?? (await deps.workflowSecrets.get(name)),
          secretHint: (name) => `run "Agent Workflows: Set Secret…" for ${name}`,
          timeoutMs: serviceSettings(uri).runTimeoutMs,
          signal: controller.signal,
          pinnedResults: pinned,
          onNodeValue: (id, value) => {
            if (!pinned.has(id)) deps.nodeResults.set(uri.toString(), id, value, 'run');
          },
          ...withDispatcher(anyHostDispatcher(proxySettings())),
        });
      } finally {
        subscription.dispose();
      }
    },
  );
  deps.logger.info(`Upstream nodes of ${file.displayName} run locally: ${result.status}.`);
  if (result.status === 'cancelled') throw new RunBlocked('The upstream nodes were cancelled.');
  if (result.status === 'failed') throw new RunBlocked(`The upstream nodes failed: ${result.error.message}`);
}
