// What a tool call that runs an agent answers, without any protocol: the outputs as a structured
// value, where the run happened, and a short text; a failure with the node it failed at and why.
import { boundedText } from '../boundedText';
import type { CaseResult } from '../testing/caseResult';
import { displayOrigin } from '../environments/environmentsFileName';

/** The most characters of the outputs' JSON a run's text repeats (the whole is the structured value). */
const OUTPUTS_TEXT_CHARS = 2000;

/** Where a run happened: on this machine, or on a deployment (its origin, account and environment). */
export type RunPlace =
  | { readonly kind: 'local' }
  | {
      readonly kind: 'deployed';
      readonly origin: string;
      readonly account: string;
      readonly environment?: string;
      readonly executionId?: string;
    };

export type AgentRunOutcome =
  | {
      readonly status: 'finished';
      readonly agent: string;
      readonly place: RunPlace;
      readonly outputs: unknown;
      readonly durationMs?: number;
      readonly executionId?: string;
    }
  | {
      /** failed, cancelled, timeout, or the status word a deployment ended with. */
      readonly status: string;
      readonly agent: string;
      readonly place: RunPlace;
      readonly message: string;
      readonly node?: string;
      readonly executionId?: string;
    };

/** The place of a deployed run, from its base URL. */
export function deployedPlace(baseUrl: string, account: string, environment: string | undefined, executionId?: string): RunPlace {
  return {
    kind: 'deployed',
    origin: displayOrigin(baseUrl),
    account,
    ...(environment !== undefined ? { environment } : {}),
    ...(executionId !== undefined ? { executionId } : {}),
  };
}

/** The outputs as a structured value: an object as it is, anything else under "value". */
export function structuredOutputs(outputs: unknown): Record<string, unknown> {
  if (outputs !== null && typeof outputs === 'object' && !Array.isArray(outputs)) return { ...(outputs as Record<string, unknown>) };
  return outputs === undefined ? {} : { value: outputs };
}

/** Where a run happened, in words. */
export function describePlace(place: RunPlace): string {
  if (place.kind === 'local') return 'on this machine';
  return `on ${place.origin}, account ${place.account}${place.environment !== undefined ? `, environment ${place.environment}` : ''}${place.executionId !== undefined ? ` (execution ${place.executionId})` : ''}`;
}

/**
 * The short text of a run's answer: how it ended, where, and the outputs or why it failed. The
 * outcome is redacted already (the text is cut).
 */
export function runOutcomeText(outcome: AgentRunOutcome): string {
  const where = describePlace(outcome.place);
  if (outcome.status === 'finished' && 'outputs' in outcome) {
    const names = Object.keys(structuredOutputs(outcome.outputs));
    return `Agent ${outcome.agent} finished ${where}${names.length ? `; outputs: ${names.join(', ')}` : '; no outputs'}. ${boundedText(JSON.stringify(outcome.outputs ?? null), OUTPUTS_TEXT_CHARS)}`;
  }
  const failure = outcome as Extract<AgentRunOutcome, { message: string }>;
  return `Agent ${outcome.agent} ${failure.status} ${where}${failure.node !== undefined ? ` at node ${failure.node}` : ''}: ${failure.message}`;
}

/** A test file's run as a tool answers it: each case passed or failed with its messages, and a line each. */
export function testRunResult(
  results: readonly CaseResult[],
  heading = '',
): { readonly text: string; readonly value: { passed: number; failed: number; cases: Array<Record<string, unknown>> } } {
  const cases = results.map((result) => ({
    name: result.name,
    status: result.passed ? 'passed' : 'failed',
    durationMs: Math.round(result.durationMs),
    ...(result.failures.length ? { messages: result.failures.map((failure) => failure.message) } : {}),
  }));
  const failed = cases.filter((item) => item.status === 'failed').length;
  const text = [
    `${heading}${cases.length} ${cases.length === 1 ? 'case' : 'cases'}: ${cases.length - failed} passed, ${failed} failed.`,
    ...cases.map((item) => `${item.status === 'passed' ? '✓' : '✗'} ${item.name}${item.messages ? `: ${item.messages.join('; ')}` : ''}`),
  ].join('\n');
  return { text, value: { passed: cases.length - failed, failed, cases } };
}
