// The runs this server made on this machine, by id, for execution_status: the latest ones only.
import { randomUUID } from 'node:crypto';
import type { AgentRunOutcome } from '../core/tools/toolResults';

/** Local runs remembered; the oldest is let go past it. */
const MAX_REMEMBERED = 100;

const executions = new Map<string, AgentRunOutcome>();

/** Keeps a local run's outcome (redacted already) and gives its id. */
export function rememberExecution(outcome: Omit<AgentRunOutcome, 'executionId'>): string {
  const id = `local-${randomUUID()}`;
  executions.set(id, { ...outcome, executionId: id } as AgentRunOutcome);
  if (executions.size > MAX_REMEMBERED) executions.delete(executions.keys().next().value!);
  return id;
}

export function localExecution(id: string): AgentRunOutcome | undefined {
  return executions.get(id);
}
