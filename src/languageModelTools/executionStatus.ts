// #agentExecutionStatus: an execution of this window's history (the Agent Executions view), by the
// id a run answered: its state, where it ran and its outputs. Reads the history only; a deployed
// execution still running is watched by the runner that started it.
import { describePlace, deployedPlace, structuredOutputs } from '../core/tools/toolResults';
import type { RunPlace } from '../core/tools/toolResults';
import { knownArguments, textArgument, ToolCallError } from '../core/tools/toolArguments';
import type { ExecutionRecord } from '../core/executions/executionRecord';
import type { RunDeps } from '../runs/runDeps';
import type { AgentTool } from './toolNames';

/** Where a recorded execution ran. */
export function recordPlace(record: ExecutionRecord): RunPlace {
  return record.mode === 'local' || !record.target
    ? { kind: 'local' }
    : deployedPlace(record.target.baseUrl, record.target.account, record.target.environment, record.executionId);
}

/** A record's state, place and outputs, as the run and status tools answer them. */
export function recordFacts(record: ExecutionRecord): Record<string, unknown> {
  return {
    executionId: record.executionId ?? record.key,
    agent: record.agentName,
    state: record.state,
    ...(record.serviceStatus !== undefined ? { status: record.serviceStatus } : {}),
    place: recordPlace(record),
    ...(record.outputs !== undefined ? { outputs: structuredOutputs(record.outputs) } : {}),
    ...(record.error !== undefined ? { error: record.error } : {}),
    ...(record.endedAt !== undefined ? { durationMs: record.endedAt - record.startedAt } : {}),
  };
}

export function executionStatusTool(deps: Pick<RunDeps, 'store'>): AgentTool {
  return {
    async prepare(args) {
      return { invocationMessage: `Reading execution ${typeof args.executionId === 'string' ? args.executionId : ''}` };
    },
    async invoke(args) {
      knownArguments(args, ['executionId']);
      const id = textArgument(args, 'executionId', 'the id a run answered');
      const record = deps.store.all().find((candidate) => candidate.executionId === id || candidate.key === id);
      if (!record)
        throw new ToolCallError(
          `No execution "${id}" in this window's history (the Agent Executions view): give the id a run answered; the history keeps the latest runs only.`,
        );
      return {
        text: `Execution ${id} of ${record.agentName} ${describePlace(recordPlace(record))}: ${record.state}${record.error !== undefined ? ` (${record.error})` : ''}`,
        value: recordFacts(record),
      };
    },
  };
}
