// A tool call that runs an agent: on this machine with the workflow engine (as `run --local`), or on
// its deployment when the call names an environment (as `run --env`, a protected one only when the
// server was started with --allow-env NAME). Keys and secrets come from the server's environment
// only; the arguments carry inputs and nothing else.
import { dirname } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentModel } from '../core/document/model';
import { readTextFile } from '../core/document/readTextFile';
import { executeAgent } from '../core/engine/engine';
import { filesFromPaths, resolveInputs } from '../core/engine/inputs';
import { envSecretHint, envSecretResolver } from '../core/engine/secrets';
import { displayOrigin, parseEnvironmentsFile } from '../core/environments/environmentsFile';
import {
  environmentDeployment,
  environmentsSearch,
  findEnvironmentsFile,
  selectEnvironment,
} from '../core/environments/resolveEnvironment';
import type { SelectedEnvironment } from '../core/environments/resolveEnvironment';
import { errorMessage } from '../core/errors';
import type { NamedFile } from '../core/inputs/fileAccess';
import { InputError, prepareInputs } from '../core/inputs/inputValues';
import type { InputHints, InputValue } from '../core/inputs/inputValues';
import { MAX_ENVIRONMENTS_FILE_BYTES } from '../core/limits';
import { startAgent } from '../core/service/agentClient';
import { pollExecution } from '../core/service/poller';
import { ServiceError } from '../core/service/serviceError';
import { checkBaseUrl, DEFAULT_STATUS_PATH, resolveDeployment } from '../core/service/target';
import type { AgentTarget } from '../core/service/target';
import { deployedPlace, runOutcomeText, structuredOutputs } from '../core/tools/toolResults';
import type { AgentRunOutcome, RunPlace } from '../core/tools/toolResults';
import type { CatalogueEntry } from './agentCatalogue';
import { errorResult, fileInFolder, knownArguments, objectArgument, textArgument, ToolCallError } from './toolCall';
import { splitToolInputs } from '../core/tools/toolArguments';
import type { CallContext } from './toolCall';
import { rememberExecution } from './localExecutions';

/** How a message says to give an input: in the call's "inputs". */
export const TOOL_INPUT_HINTS: InputHints = {
  value: (name) => `give "${name}" in "inputs"`,
  file: (name) => `give "${name}" in "inputs" as the path of a file inside the served folder`,
  fileNotValue: (name) => `"${name}" is a file input: give the path of a file inside the served folder`,
  valueNotFile: (name) => `"${name}" takes a value, not a file`,
};

export const API_KEY_ENV = 'AGENT_WORKFLOWS_API_KEY';

export async function runAgentTool(
  entry: CatalogueEntry,
  args: Readonly<Record<string, unknown>>,
  context: CallContext,
): Promise<CallToolResult> {
  knownArguments(args, 'agent' in args ? ['agent', 'inputs', 'environment'] : ['inputs', 'environment']);
  if (!entry.agent || !entry.model) {
    const problems =
      entry.unreadable ??
      entry.problems
        .map((problem) => `${entry.path}:${problem.range.line}:${problem.range.column}: ${problem.code} ${problem.message}`)
        .join('\n');
    throw new ToolCallError(`The agent file ${entry.path} cannot run until it is fixed:\n${problems}`, {
      problems: entry.problems.map((problem) => ({ code: problem.code, line: problem.range.line, message: problem.message })),
    });
  }
  const given = objectArgument(args, 'inputs');
  const environment = textArgument(args, 'environment', 'the name of an environment of agent-workflows.yaml', true);
  const { values, files } = await splitToolInputs(
    entry.model,
    given,
    (path, what) => fileInFolder(path, context.root, what),
    'the served folder',
  );
  return environment === undefined ? runLocal(entry, values, files, context) : runDeployed(entry, environment, values, files, context);
}

function inputProblems(error: unknown): never {
  if (error instanceof InputError) throw new ToolCallError(error.problems.join('\n'), { problems: error.problems });
  throw error;
}

async function runLocal(
  entry: CatalogueEntry,
  values: Record<string, unknown>,
  files: Record<string, NamedFile>,
  context: CallContext,
): Promise<CallToolResult> {
  const agent = entry.agent!;
  let inputs;
  try {
    inputs = resolveInputs(agent.model, { values, files: await filesFromPaths(files) }, TOOL_INPUT_HINTS);
  } catch (error) {
    inputProblems(error);
  }
  const total = agent.plan.nodes.length;
  let ended = 0;
  context.progress(`running ${entry.name} on this machine (${total} ${total === 1 ? 'node' : 'nodes'})`, 0, total);
  const result = await executeAgent(agent, inputs, {
    secrets: envSecretResolver(context.env),
    secretHint: envSecretHint,
    timeoutMs: context.callTimeoutMs,
    signal: context.signal,
    onTrace: (trace) => {
      if (trace.status === 'running' || trace.status === 'pending') context.progress(`node ${trace.node}: running`, ended, total);
      else context.progress(`node ${trace.node}: ${trace.status}${trace.error ? ` (${trace.error})` : ''}`, ++ended, total);
    },
  });
  const place: RunPlace = { kind: 'local' };
  if (result.status === 'finished') {
    const outcome = { status: 'finished', agent: entry.name, place, outputs: result.outputs, durationMs: result.durationMs } as const;
    return finishedResult({ ...outcome, executionId: rememberExecution(context.redactor.value(outcome) as typeof outcome) }, context);
  }
  const cancelled = result.status === 'cancelled' && context.cancelled();
  const timedOut = context.timedOut() || result.error.kind === 'timeout';
  const outcome: AgentRunOutcome = {
    status: cancelled ? 'cancelled' : timedOut ? 'timeout' : result.status,
    agent: entry.name,
    place,
    message:
      timedOut && !cancelled
        ? `${result.error.message} (the call's time limit is ${context.callTimeoutMs / 1000} s)`
        : result.error.message,
    ...(result.error.node !== undefined ? { node: result.error.node } : {}),
  };
  return failedResult({ ...outcome, executionId: rememberExecution(context.redactor.value(outcome) as typeof outcome) }, context);
}

function finishedResult(outcome: AgentRunOutcome & { outputs: unknown }, context: CallContext): CallToolResult {
  const redacted = context.redactor.value(outcome) as typeof outcome;
  return {
    content: [{ type: 'text', text: runOutcomeText(redacted) }],
    structuredContent: structuredOutputs(redacted.outputs),
    _meta: {
      'agent-workflows/run': {
        place: redacted.place,
        ...(redacted.executionId !== undefined ? { executionId: redacted.executionId } : {}),
      },
    },
  };
}

function failedResult(outcome: AgentRunOutcome, context: CallContext, details: Record<string, unknown> = {}): CallToolResult {
  const redacted = context.redactor.value(outcome) as Extract<AgentRunOutcome, { message: string }>;
  return errorResult(runOutcomeText(redacted), {
    status: redacted.status,
    ...(redacted.node !== undefined ? { node: redacted.node } : {}),
    place: redacted.place,
    ...details,
  });
}

/** The environment a call names, from the agent-workflows.yaml nearest the agent file (no higher than the served folder). */
async function namedEnvironment(entry: CatalogueEntry, name: string, root: string): Promise<SelectedEnvironment> {
  const search = await environmentsSearch(dirname(entry.absolute), root);
  const path = await findEnvironmentsFile(search.startDir, search.stopDir);
  let file;
  if (path !== undefined) {
    const read = await readTextFile(path, { maxBytes: MAX_ENVIRONMENTS_FILE_BYTES, kind: 'environments' });
    if ('error' in read) throw new ToolCallError(`The environments file ${path}: ${read.error}`);
    const parsed = parseEnvironmentsFile(read.text);
    if (!parsed.file)
      throw new ToolCallError(
        `The environments file ${path} has errors; nothing runs with it until they are fixed (validate_agent_file checks it):\n${parsed.problems
          .filter((problem) => problem.severity === 'error')
          .map((problem) => `line ${problem.range.line}: ${problem.message}`)
          .join('\n')}`,
      );
    file = parsed.file;
  }
  try {
    const selected = selectEnvironment(
      file,
      { flag: name },
      {
        ...(path !== undefined ? { fileName: path } : {}),
        where: `agent-workflows.yaml from ${dirname(entry.path)} up to the served folder`,
      },
    );
    if (!selected) throw new ToolCallError(`No environment "${name}".`);
    return selected;
  } catch (error) {
    if (error instanceof ServiceError) throw new ToolCallError(error.message);
    throw error;
  }
}

/** The deployment a call runs on, with the key from the server's environment. */
export async function deploymentOf(
  entry: CatalogueEntry,
  model: AgentModel,
  environmentName: string,
  context: CallContext,
): Promise<{ target: AgentTarget; environment: SelectedEnvironment }> {
  const environment = await namedEnvironment(entry, environmentName, context.root);
  const apiKey = context.env[API_KEY_ENV]?.trim();
  if (!apiKey)
    throw new ToolCallError(
      `No API key: set ${API_KEY_ENV} in the environment the MCP server is started with (the server's configuration). Keys are never taken from a tool's arguments.`,
    );
  let fields;
  let statusPath: string | undefined;
  try {
    const deployed = environmentDeployment(model, environment);
    statusPath = deployed.statusPath;
    fields = resolveDeployment(deployed);
    checkBaseUrl(fields.baseUrl);
  } catch (error) {
    throw new ToolCallError(errorMessage(error));
  }
  if (environment.declaration.protected && !context.allowedEnvironments.includes(environment.name))
    throw new ToolCallError(
      `Environment "${environment.name}" (${displayOrigin(fields.baseUrl)}, account ${fields.account}) is protected: the MCP server runs in it only when started with --allow-env ${environment.name}. Nothing was sent.`,
      { status: 'refused', environment: environment.name },
    );
  return {
    environment,
    target: { ...fields, apiKey, statusPathTemplate: statusPath ?? DEFAULT_STATUS_PATH },
  };
}

async function runDeployed(
  entry: CatalogueEntry,
  environmentName: string,
  values: Record<string, unknown>,
  files: Record<string, NamedFile>,
  context: CallContext,
): Promise<CallToolResult> {
  const model = entry.model!;
  let prepared;
  try {
    prepared = prepareInputs(model, { values: values as Record<string, InputValue>, files }, TOOL_INPUT_HINTS);
  } catch (error) {
    inputProblems(error);
  }
  const { target, environment } = await deploymentOf(entry, model, environmentName, context);
  const started = Date.now();
  let executionId: string | undefined;
  const place = (): RunPlace => deployedPlace(target.baseUrl, target.account, environment.name, executionId);
  try {
    context.progress(
      `starting ${entry.name} on ${displayOrigin(target.baseUrl)}, account ${target.account}, environment ${environment.name}`,
    );
    executionId = (await startAgent(target, prepared, { signal: context.signal, limitMs: context.callTimeoutMs })).executionId;
    context.progress(`started execution ${executionId}`);
    const outcome = await pollExecution(target, executionId, {
      signal: context.signal,
      timeoutMs: Math.max(1, context.callTimeoutMs - (Date.now() - started)),
      onUpdate: (answer, info) =>
        context.progress(
          `execution ${executionId}: ${answer.status} (${info.requests} ${info.requests === 1 ? 'status read' : 'status reads'})`,
        ),
    });
    if (outcome.kind === 'finished')
      return finishedResult({ status: 'finished', agent: entry.name, place: place(), outputs: outcome.outputs, executionId }, context);
    return failedResult(
      {
        status: outcome.status,
        agent: entry.name,
        place: place(),
        message: `the execution ended with status "${outcome.status}"`,
        executionId,
      },
      context,
      { answer: outcome.answer.body },
    );
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    if (executionId !== undefined && (error.kind === 'cancelled' || error.kind === 'timeout')) {
      const message = `${error.kind === 'cancelled' ? 'Stopped watching' : 'Gave up waiting for'} execution ${executionId}: it may still be running on the deployment; execution_status with this id and environment "${environment.name}" reads it.`;
      context.log('info', message);
      return failedResult(
        { status: error.kind === 'cancelled' ? 'stopped-watching' : 'timeout', agent: entry.name, place: place(), message, executionId },
        context,
      );
    }
    return failedResult({ status: 'failed', agent: entry.name, place: place(), message: error.message }, context);
  }
}
