// #runAgent: runs an agent file of the workspace with the inputs an assistant gives, through the
// runs of the commands: on this machine as Run Locally (secrets from SecretStorage), or on the
// deployment of a named environment as Run Agent (its key from SecretStorage; a protected
// environment asks with Run Agent's modal). The answer says where it ran; nothing secret is in it.
import * as vscode from 'vscode';
import { proxySettings } from '../config';
import { displayOrigin } from '../core/environments/environmentsFileName';
import { loadAgent } from '../core/engine/agentPlan';
import { filesFromPaths, resolveInputs } from '../core/engine/inputs';
import type { ExecutionRecord, RecordedInput } from '../core/executions/executionRecord';
import { anyHostDispatcher } from '../core/http/proxy';
import { InputError, prepareInputs } from '../core/inputs/inputValues';
import type { InputHints, InputValue } from '../core/inputs/inputValues';
import type { Redactor } from '../core/redaction';
import { knownArguments, objectArgument, splitToolInputs, textArgument, ToolCallError } from '../core/tools/toolArguments';
import { calledHosts, runConfirmation } from '../core/tools/toolConfirmations';
import { runOutcomeText, structuredOutputs } from '../core/tools/toolResults';
import type { AgentRunOutcome } from '../core/tools/toolResults';
import { agentTextDigest, loadAgentFile } from '../runs/agentFile';
import { withDispatcher } from '../runs/agentRuns';
import type { RunDeps } from '../runs/runDeps';
import { runTargetFor, startTargetWithKey } from '../runs/serviceTarget';
import { recordFacts, recordPlace } from './executionStatus';
import { callRedactor, redactedAnswer, shownPath, workspaceFile } from './toolCalls';
import type { AgentTool, ToolAnswer } from './toolNames';

/** How a message says to give an input: in the call's "inputs". */
export const WORKSPACE_INPUT_HINTS: InputHints = {
  value: (name) => `give "${name}" in "inputs"`,
  file: (name) => `give "${name}" in "inputs" as the path of a file inside the workspace folder`,
  fileNotValue: (name) => `"${name}" is a file input: give the path of a file inside the workspace folder`,
  valueNotFile: (name) => `"${name}" takes a value, not a file`,
};

const ARGUMENTS = ['path', 'inputs', 'environment'];

function inputProblems(error: unknown): never {
  if (error instanceof InputError) throw new ToolCallError(error.problems.join('\n'), { problems: error.problems });
  throw error;
}

/** A run's record as the tool's answer: outputs, or how and where it ended. */
function recordAnswer(record: ExecutionRecord, redactor: Redactor): ToolAnswer {
  const place = recordPlace(record);
  const executionId = record.executionId ?? record.key;
  const outcome: AgentRunOutcome =
    record.state === 'finished'
      ? { status: 'finished', agent: record.agentName, place, outputs: record.outputs, executionId }
      : {
          status: record.state === 'stopped' ? 'stopped' : (record.serviceStatus ?? record.state),
          agent: record.agentName,
          place,
          message: record.error ?? `the run ended ${record.state}`,
          executionId,
        };
  const facts = recordFacts(record);
  return redactedAnswer(
    {
      text: `${runOutcomeText(redactor.value(outcome) as AgentRunOutcome)} (execution ${executionId})`,
      value: record.state === 'finished' ? { ...facts, outputs: structuredOutputs(record.outputs) } : facts,
      ...(record.state === 'finished' ? {} : { isError: true }),
    },
    redactor,
  );
}

export function runAgentTool(deps: RunDeps): AgentTool {
  return {
    async prepare(args) {
      const path = textArgument(args, 'path', 'the agent file');
      const file = await workspaceFile(path, 'The agent file');
      const agentFile = await loadAgentFile(vscode.Uri.file(file.path));
      const shown = shownPath(file.path, file.root);
      const environment = textArgument(args, 'environment', 'an environment', true);
      const inputNames = Object.keys(objectArgument(args, 'inputs'));
      if (environment === undefined)
        return {
          invocationMessage: `Running ${shown} on this machine`,
          confirmation: runConfirmation(shown, inputNames, { kind: 'local', hosts: calledHosts(agentFile.model) }),
        };
      const run = await runTargetFor(agentFile, deps, environment);
      const origin = displayOrigin(run.info.baseUrl);
      return {
        invocationMessage: `Running ${shown} on ${origin}`,
        confirmation: runConfirmation(shown, inputNames, {
          kind: 'deployed',
          origin,
          account: run.info.account,
          ...(run.environment ? { environment: run.environment.name, protected: run.environment.declaration.protected === true } : {}),
        }),
      };
    },
    async invoke(args, signal) {
      knownArguments(args, ARGUMENTS);
      const file = await workspaceFile(
        textArgument(args, 'path', 'the path of the agent file, relative to the workspace folder'),
        'The agent file',
      );
      const environment = textArgument(args, 'environment', 'the name of an environment of agent-workflows.yaml', true);
      const uri = vscode.Uri.file(file.path);
      const agentFile = await loadAgentFile(uri);
      const { values, files } = await splitToolInputs(
        agentFile.model,
        objectArgument(args, 'inputs'),
        workspaceFile,
        'the workspace folder',
      );
      const redactor = callRedactor();
      if (environment === undefined) {
        const agent = loadAgent(agentFile.text, agentFile.agentPath);
        const missing: string[] = [];
        for (const name of agent.plan.secretNames) {
          const value = await deps.workflowSecrets.get(name);
          if (value === undefined) missing.push(name);
          else redactor.add(value);
        }
        if (missing.length)
          throw new ToolCallError(
            `Nothing ran: ${agentFile.displayName} uses ${missing.length === 1 ? 'a secret' : 'secrets'} not set in this VS Code: ${missing.join(', ')}. The user sets ${missing.length === 1 ? 'it' : 'them'} with "Agent Workflows: Set Secret…"; secrets are never taken from a tool's arguments.`,
            { missingSecrets: missing },
          );
        let resolved;
        const given = await filesFromPaths(files).catch(inputProblems);
        try {
          resolved = resolveInputs(agentFile.model, { values, files: given }, WORKSPACE_INPUT_HINTS);
        } catch (error) {
          inputProblems(error);
        }
        const recordedInputs: Record<string, RecordedInput> = { ...(values as Record<string, RecordedInput>) };
        for (const [name, named] of Object.entries(given)) recordedInputs[name] = { file: named.name, size: named.size };
        const record = await deps.runner.runLocal({
          agentName: agentFile.displayName,
          file: uri,
          agent,
          inputs: resolved,
          recordedInputs,
          filePaths: Object.fromEntries(Object.entries(files).map(([name, named]) => [name, named.path])),
          fileDigest: agentTextDigest(agentFile.text),
          secrets: async (name) => deps.workflowSecrets.get(name),
          ...withDispatcher(anyHostDispatcher(proxySettings())),
          signal,
        });
        return recordAnswer(record, redactor);
      }
      let prepared;
      try {
        prepared = prepareInputs(agentFile.model, { values: values as Record<string, InputValue>, files }, WORKSPACE_INPUT_HINTS);
      } catch (error) {
        inputProblems(error);
      }
      const run = await runTargetFor(agentFile, deps, environment);
      // The same confirmation (a protected environment's modal) and key as Run Agent.
      const target = await startTargetWithKey(run, deps, uri, `Run "${agentFile.displayName}" for the assistant`);
      if (!target)
        throw new ToolCallError(
          `Nothing was sent: the user did not confirm the run on ${displayOrigin(run.info.baseUrl)}, account ${run.info.account}${run.environment ? `, environment "${run.environment.name}"` : ''}, or gave no API key for it.`,
          { status: 'declined' },
        );
      redactor.add(target.apiKey);
      const record = await deps.runner.runDeployed({
        agentName: agentFile.displayName,
        file: uri,
        info: run.info,
        target,
        inputs: prepared.inputs,
        files: prepared.files,
        signal,
      });
      return recordAnswer(record, redactor);
    },
  };
}
