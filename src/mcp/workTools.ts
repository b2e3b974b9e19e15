// The MCP server's tools for working on agents, each the command line's verb over the same core:
// validate a file (`validate`), send one API node (`send --json`), run an agent's tests (`test`), and
// read an execution's status (`status`, or a local run this server made).
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { relative, sep } from 'node:path';
import { readTextFile } from '../core/document/readTextFile';
import { loadAgent, AgentFileError } from '../core/engine/agentPlan';
import type { NodeResult } from '../core/engine/evaluate';
import { filesFromPaths, resolveInputs } from '../core/engine/inputs';
import { envSecretResolver } from '../core/engine/secrets';
import { findNode, MissingValuesError, modelForNode, sendNode, UnknownNodeError } from '../core/exchange/sendNode';
import { InputError } from '../core/inputs/inputValues';
import { getStatus } from '../core/service/agentClient';
import { ServiceError } from '../core/service/serviceError';
import { IN_PROGRESS_STATUSES } from '../core/service/poller';
import { loadSuite, runSuite } from '../core/testing/suite';
import { describePlace, structuredOutputs, testRunResult } from '../core/tools/toolResults';
import { nodeResultArgument } from '../core/tools/toolArguments';
import { checkFile, problemFacts } from '../core/tools/fileChecks';
import type { JsonSchema } from '../core/tools/agentTools';
import { WORK_TOOL_NAMES } from '../core/tools/agentTools';
import { AgentCatalogue } from './agentCatalogue';
import { deploymentOf, TOOL_INPUT_HINTS } from './agentRuns';
import { localExecution } from './localExecutions';
import { fileInFolder, knownArguments, objectArgument, textArgument, ToolCallError } from './toolCall';
import type { CallContext } from './toolCall';

export interface WorkTool {
  readonly tool: Tool;
  call(args: Readonly<Record<string, unknown>>, context: CallContext): Promise<CallToolResult>;
}

const PATH = { type: 'string', description: 'A file inside the served folder, relative to it.' };

function schema(properties: Record<string, unknown>, required: readonly string[]): Tool['inputSchema'] {
  return { type: 'object', properties, required: [...required], additionalProperties: false } as JsonSchema as Tool['inputSchema'];
}

const validate: WorkTool = {
  tool: {
    name: WORK_TOOL_NAMES.validate,
    description:
      'Checks an agent file (.agent.yaml), an agent test file (.agent.test.yaml) or an environments file (agent-workflows.yaml) of this folder and lists its problems: code, severity, line, message and the title of each quick fix. Changes nothing.',
    inputSchema: schema({ path: PATH }, ['path']),
  },
  async call(args, context) {
    knownArguments(args, ['path']);
    const given = textArgument(args, 'path', 'the path of the file, relative to the served folder');
    const file = await fileInFolder(given, context.root, 'The file');
    const shown = relative(context.root, file.path).split(sep).join('/');
    const checked = await checkFile(file.path, shown);
    return { content: [{ type: 'text', text: checked.text }], structuredContent: checked.facts };
  },
};

const send: WorkTool = {
  tool: {
    name: WORK_TOOL_NAMES.send,
    description:
      "Sends one API node's request of an agent file, built as a run builds it (Send Request), and answers the exchange: request, redirects, response and times, secrets shown as {{ secrets.NAME }}. Secrets come from the server's environment, never from the arguments.",
    inputSchema: schema(
      {
        path: PATH,
        node: { type: 'string', description: 'The id of the API node.' },
        inputs: { type: 'object', description: 'The inputs the node uses, by name.' },
        nodes: {
          type: 'object',
          description: 'The results of upstream nodes the request uses, by node id: their body, or {"body","status","headers"}.',
        },
      },
      ['path', 'node'],
    ),
  },
  async call(args, context) {
    knownArguments(args, ['path', 'node', 'inputs', 'nodes']);
    const file = await fileInFolder(textArgument(args, 'path', 'the path of the agent file'), context.root, 'The agent file');
    const nodeId = textArgument(args, 'node', 'the id of the API node');
    const read = await readTextFile(file.path);
    if ('error' in read) throw new ToolCallError(read.error);
    let agent;
    try {
      agent = loadAgent(read.text, relative(context.root, file.path));
      findNode(agent, nodeId);
    } catch (error) {
      if (error instanceof AgentFileError) throw new ToolCallError(error.message);
      if (error instanceof UnknownNodeError)
        throw new ToolCallError(`The agent has no node "${nodeId}". Its nodes: ${error.known.join(', ') || '(none)'}.`);
      throw error;
    }
    const upstream = new Map<string, NodeResult>();
    for (const [id, value] of Object.entries(objectArgument(args, 'nodes'))) {
      if (!agent.model.nodes.has(id)) throw new ToolCallError(`"nodes": the agent has no node "${id}".`);
      upstream.set(id, nodeResultArgument(value));
    }
    const given = objectArgument(args, 'inputs');
    const model = modelForNode(agent, nodeId);
    const files: Record<string, Awaited<ReturnType<typeof fileInFolder>>> = {};
    const values: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(given)) {
      if (model.inputs.get(name)?.type === 'file') {
        if (typeof value !== 'string') throw new ToolCallError(`Input "${name}" is a file: give its path inside the served folder.`);
        files[name] = await fileInFolder(value, context.root, `The file of input "${name}"`);
      } else values[name] = value;
    }
    let inputs;
    try {
      inputs = resolveInputs(model, { values, files: await filesFromPaths(files) }, TOOL_INPUT_HINTS);
    } catch (error) {
      if (error instanceof InputError) throw new ToolCallError(error.problems.join('\n'));
      throw error;
    }
    if (findNode(agent, nodeId).kind !== 'api') throw new ToolCallError(`Node "${nodeId}" is a template node: only API nodes are sent.`);
    try {
      const outcome = await sendNode(agent, nodeId, {
        inputs,
        nodes: upstream,
        secrets: envSecretResolver(context.env),
        timeoutMs: Math.min(30_000, context.callTimeoutMs),
        signal: context.signal,
      });
      const response = outcome.exchange.response;
      const summary = response
        ? `${outcome.exchange.request.method} ${outcome.exchange.request.url} → ${response.status}`
        : `${outcome.exchange.request.method} ${outcome.exchange.request.url}: no answer`;
      return {
        content: [
          {
            type: 'text',
            text: `${summary}${outcome.failure ? ` (${outcome.failure.message})` : ''}\n${JSON.stringify(outcome.exchange)}`,
          },
        ],
        structuredContent: { exchange: outcome.exchange, ...(outcome.failure ? { failure: outcome.failure.message } : {}) },
        ...(outcome.failure ? { isError: true } : {}),
      };
    } catch (error) {
      if (error instanceof MissingValuesError) {
        const lines = [`Nothing was sent: node "${error.node}" needs values that were not given.`];
        for (const name of error.secrets)
          lines.push(
            `Secret "${name}" is not set: set AGENT_SECRET_${name} in the environment the MCP server is started with (never in the arguments).`,
          );
        for (const name of error.nodes) lines.push(`It uses the result of node "${name}": give it in "nodes".`);
        lines.push(...error.unreadable);
        throw new ToolCallError(lines.join('\n'));
      }
      throw error;
    }
  },
};

const tests: WorkTool = {
  tool: {
    name: WORK_TOOL_NAMES.test,
    description:
      "Runs the cases of an agent test file (.agent.test.yaml) of this folder on this machine, API nodes answered by the cases' mocks, and answers each case: passed or failed, with the messages. Cases marked deployed: true are not run by this tool.",
    inputSchema: schema({ path: PATH, grep: { type: 'string', description: 'Only the cases whose name contains this text.' } }, ['path']),
  },
  async call(args, context) {
    knownArguments(args, ['path', 'grep']);
    const file = await fileInFolder(textArgument(args, 'path', 'the path of the test file'), context.root, 'The test file');
    const grep = textArgument(args, 'grep', 'text to look for in case names', true);
    const loaded = loadSuite(file.path);
    if (!('suite' in loaded)) throw new ToolCallError(loaded.message, { problems: problemFacts(undefined, loaded.problems) });
    let done = 0;
    const results = await runSuite(loaded, {
      signal: context.signal,
      ...(grep !== undefined ? { grep } : {}),
      deploymentError: 'This case runs on the deployment (deployed: true): the MCP server runs test cases on this machine only.',
      onCase: (result) => context.progress(`${result.name}: ${result.passed ? 'passed' : 'failed'}`, ++done),
    });
    const { text, value } = testRunResult(results);
    return {
      content: [{ type: 'text', text }],
      structuredContent: value,
      ...(value.failed ? { isError: false } : {}),
    };
  },
};

const status: WorkTool = {
  tool: {
    name: WORK_TOOL_NAMES.status,
    description:
      'Reads the status of an execution: a run this server made on this machine (its id starts with "local-"), or a deployed one (give the agent file and the environment it ran in). Answers its status and, when it finished, its outputs.',
    inputSchema: schema(
      {
        executionId: { type: 'string', description: 'The id a run answered.' },
        agent: { type: 'string', description: 'For a deployed execution: the agent file, relative to the served folder.' },
        environment: { type: 'string', description: 'For a deployed execution: the environment it ran in.' },
      },
      ['executionId'],
    ),
  },
  async call(args, context) {
    knownArguments(args, ['executionId', 'agent', 'environment']);
    const executionId = textArgument(args, 'executionId', 'the id a run answered');
    if (executionId.startsWith('local-')) {
      const outcome = localExecution(executionId);
      if (!outcome)
        throw new ToolCallError(`No local execution "${executionId}": this server remembers its latest 100 runs, since it started.`);
      const outputs = 'outputs' in outcome ? outcome.outputs : undefined;
      return {
        content: [
          {
            type: 'text',
            text: `Execution ${executionId} of ${outcome.agent} ${describePlace(outcome.place)}: ${outcome.status}${'message' in outcome ? ` (${outcome.message})` : ''}`,
          },
        ],
        structuredContent: {
          executionId,
          status: outcome.status,
          ...(outputs !== undefined ? { outputs: structuredOutputs(outputs) } : {}),
          ...('node' in outcome && outcome.node !== undefined ? { node: outcome.node } : {}),
        },
      };
    }
    const agentPath = textArgument(args, 'agent', 'the agent file of a deployed execution');
    const environment = textArgument(args, 'environment', 'the environment the execution ran in');
    const file = await fileInFolder(agentPath, context.root, 'The agent file');
    // Only this file is read: the walk names it.
    const catalogue = new AgentCatalogue(context.root);
    const found = (await catalogue.agentFiles()).found.find((candidate) => candidate.absolute === file.path);
    const entry = found && (await catalogue.entry(found));
    if (!entry?.model) throw new ToolCallError(`${agentPath} is not an agent file that can be read.`);
    const { target, environment: selected } = await deploymentOf(entry, entry.model, environment, context);
    try {
      const answer = await getStatus(target, executionId, { signal: context.signal, limitMs: context.callTimeoutMs });
      const running = IN_PROGRESS_STATUSES.has(answer.status);
      return {
        content: [
          {
            type: 'text',
            text: `Execution ${executionId} on ${describePlace({ kind: 'deployed', origin: new URL(target.baseUrl).origin, account: target.account, environment: selected.name })}: ${answer.status}`,
          },
        ],
        structuredContent: {
          executionId,
          status: answer.status,
          ...(answer.status === 'finished' ? { outputs: structuredOutputs(answer.outputs) } : running ? {} : { answer: answer.body }),
        },
      };
    } catch (error) {
      if (error instanceof ServiceError) throw new ToolCallError(error.message);
      throw error;
    }
  },
};

export const WORK_TOOLS: readonly WorkTool[] = [validate, send, tests, status];
