// #sendApiNode: one API node's request of an agent file, built as a run builds it, sent as Send
// Request sends it; the exchange answers with secrets as {{ secrets.NAME }}. Secrets come from
// SecretStorage, never from the arguments.
import { relative } from 'node:path';
import { loadAgent, AgentFileError } from '../core/engine/agentPlan';
import type { NodeResult } from '../core/engine/evaluate';
import { filesFromPaths, resolveInputs } from '../core/engine/inputs';
import { findNode, MissingValuesError, modelForNode, sendNode, UnknownNodeError } from '../core/exchange/sendNode';
import type { NamedFile } from '../core/inputs/fileAccess';
import { InputError } from '../core/inputs/inputValues';
import { readTextFile } from '../core/document/readTextFile';
import { urlHost } from '../core/graph/workflowGraph';
import { knownArguments, nodeResultArgument, objectArgument, textArgument, ToolCallError } from '../core/tools/toolArguments';
import { sendConfirmation } from '../core/tools/toolConfirmations';
import { proxySettings } from '../config';
import { anyHostDispatcher } from '../core/http/proxy';
import { withDispatcher } from '../runs/agentRuns';
import type { RunDeps } from '../runs/runDeps';
import { WORKSPACE_INPUT_HINTS } from './runAgent';
import { callRedactor, redactedAnswer, shownPath, workspaceFile } from './toolCalls';
import type { AgentTool } from './toolNames';

/** How long one send may take. */
const SEND_TIMEOUT_MS = 30_000;

async function agentOf(path: string, root: string, nodeId: string): Promise<ReturnType<typeof loadAgent>> {
  const read = await readTextFile(path);
  if ('error' in read) throw new ToolCallError(read.error);
  try {
    const agent = loadAgent(read.text, relative(root, path));
    findNode(agent, nodeId);
    return agent;
  } catch (error) {
    if (error instanceof AgentFileError) throw new ToolCallError(error.message);
    if (error instanceof UnknownNodeError)
      throw new ToolCallError(`The agent has no node "${nodeId}". Its nodes: ${error.known.join(', ') || '(none)'}.`);
    throw error;
  }
}

export function sendNodeTool(deps: Pick<RunDeps, 'workflowSecrets'>): AgentTool {
  return {
    async prepare(args) {
      const file = await workspaceFile(textArgument(args, 'path', 'the agent file'), 'The agent file');
      const nodeId = textArgument(args, 'node', 'the id of the API node');
      const agent = await agentOf(file.path, file.root, nodeId);
      const node = agent.model.nodes.get(nodeId);
      const shown = shownPath(file.path, file.root);
      return {
        invocationMessage: `Sending node ${nodeId} of ${shown}`,
        confirmation: sendConfirmation(shown, nodeId, node?.method, node?.url ? urlHost(node.url.value) : undefined),
      };
    },
    async invoke(args, signal) {
      knownArguments(args, ['path', 'node', 'inputs', 'nodes']);
      const file = await workspaceFile(
        textArgument(args, 'path', 'the path of the agent file, relative to the workspace folder'),
        'The agent file',
      );
      const nodeId = textArgument(args, 'node', 'the id of the API node');
      const agent = await agentOf(file.path, file.root, nodeId);
      const upstream = new Map<string, NodeResult>();
      for (const [id, value] of Object.entries(objectArgument(args, 'nodes'))) {
        if (!agent.model.nodes.has(id)) throw new ToolCallError(`"nodes": the agent has no node "${id}".`);
        upstream.set(id, nodeResultArgument(value));
      }
      const model = modelForNode(agent, nodeId);
      const files: Record<string, NamedFile> = {};
      const values: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(objectArgument(args, 'inputs'))) {
        if (model.inputs.get(name)?.type === 'file') {
          if (typeof value !== 'string') throw new ToolCallError(`Input "${name}" is a file: give its path inside the workspace folder.`);
          files[name] = await workspaceFile(value, `The file of input "${name}"`);
        } else values[name] = value;
      }
      let inputs;
      try {
        inputs = resolveInputs(model, { values, files: await filesFromPaths(files) }, WORKSPACE_INPUT_HINTS);
      } catch (error) {
        if (error instanceof InputError) throw new ToolCallError(error.problems.join('\n'));
        throw error;
      }
      if (findNode(agent, nodeId).kind !== 'api') throw new ToolCallError(`Node "${nodeId}" is a template node: only API nodes are sent.`);
      const redactor = callRedactor();
      try {
        const outcome = await sendNode(agent, nodeId, {
          inputs,
          nodes: upstream,
          secrets: async (name) => {
            const value = await deps.workflowSecrets.get(name);
            if (value !== undefined) redactor.add(value);
            return value;
          },
          timeoutMs: SEND_TIMEOUT_MS,
          signal,
          ...withDispatcher(anyHostDispatcher(proxySettings())),
        });
        const response = outcome.exchange.response;
        const summary = response
          ? `${outcome.exchange.request.method} ${outcome.exchange.request.url} → ${response.status}`
          : `${outcome.exchange.request.method} ${outcome.exchange.request.url}: no answer`;
        return redactedAnswer(
          {
            text: `${summary}${outcome.failure ? ` (${outcome.failure.message})` : ''}`,
            value: { exchange: outcome.exchange, ...(outcome.failure ? { failure: outcome.failure.message } : {}) },
            ...(outcome.failure ? { isError: true } : {}),
          },
          redactor,
        );
      } catch (error) {
        if (error instanceof MissingValuesError) {
          const lines = [`Nothing was sent: node "${error.node}" needs values that were not given.`];
          for (const name of error.secrets)
            lines.push(`Secret "${name}" is not set: the user sets it with "Agent Workflows: Set Secret…" (never in the arguments).`);
          for (const name of error.nodes) lines.push(`It uses the result of node "${name}": give it in "nodes".`);
          lines.push(...error.unreadable);
          throw new ToolCallError(lines.join('\n'));
        }
        throw error;
      }
    },
  };
}
