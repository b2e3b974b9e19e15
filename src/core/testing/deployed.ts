// Runs a test case against a deployed agent (`agent-workflows test --deployed`): the case's inputs
// and files go to the service through the real client (execute, then polling), and its
// expectations on the execution (outputs, failure, duration) are checked against what the service
// answered. Mocks, expect_request and node expectations need the engine on this machine: they are
// not used here, and the result says so.
import type { LoadedAgent } from '../engine/agentPlan';
import type { ExecutionResult } from '../engine/engine';
import { errorMessage } from '../errors';
import { InputError, prepareInputs } from '../inputs/inputValues';
import { startAgent } from '../service/agentClient';
import { pollExecution } from '../service/poller';
import type { PollOptions } from '../service/poller';
import type { AgentTarget } from '../service/target';
import { caseFiles, checkCase } from './runCase';
import type { CaseResult } from './caseResult';
import type { TestCase } from './testModel';
import type { FileRefusal } from '../inputs/fileAccess';

export interface DeployedRunOptions {
  readonly target: AgentTarget;
  /** The folder the case's file paths are relative to, and must stay inside: its test file's. */
  readonly baseDir: string;
  /** Folders whose files a case may name besides its test file's (inputs/fileAccess.ts). */
  readonly allowedFolders?: readonly string[];
  /** How the caller's user allows a refused file's folder. */
  readonly allowHint?: (refusal: FileRefusal) => string;
  /** The whole case: the start request and the wait; default 5 minutes. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Polling settings (tests shorten the intervals). */
  readonly poll?: Pick<PollOptions, 'initialIntervalMs' | 'maxIntervalMs' | 'backoffFactor'>;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** What a case asks that only a local run can do, in words; empty when nothing. */
export function localOnlyParts(testCase: TestCase): string[] {
  const parts: string[] = [];
  if (testCase.mocks.size > 0) parts.push(`its mocks (${[...testCase.mocks.keys()].join(', ')})`);
  if ([...testCase.mocks.values()].some((mock) => mock.expectRequest)) parts.push('expect_request');
  if (testCase.expect.nodes?.size) parts.push('expect.nodes');
  return parts;
}

export async function runCaseDeployed(agent: LoadedAgent, testCase: TestCase, options: DeployedRunOptions): Promise<CaseResult> {
  const started = performance.now();
  const startedAt = new Date();
  const notes = localOnlyParts(testCase);
  const note = notes.length ? [`Not used against a deployment: ${notes.join(', ')}. The service calls the real APIs.`] : [];
  const fail = (message: string): CaseResult => ({
    name: testCase.name,
    passed: false,
    durationMs: elapsed(started),
    failures: [{ message, span: testCase.span }],
    requests: [],
    notes: note,
  });

  let prepared;
  try {
    const files = await caseFiles(testCase, options);
    prepared = prepareInputs(agent.model, { values: testCase.inputs as Record<string, string | number | boolean>, files });
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return fail(`The case's inputs were refused: ${error.problems.join(' ')}`);
  }

  // From here on, the case's inputs and files go to the service: its result says where.
  const ranOn = originOf(options.target.baseUrl);
  const limit = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + limit;
  let outcome;
  try {
    const request = { limitMs: limit, ...(options.signal ? { signal: options.signal } : {}) };
    const { executionId } = await startAgent(options.target, prepared, request);
    outcome = await pollExecution(options.target, executionId, {
      ...options.poll,
      timeoutMs: Math.max(1, deadline - Date.now()),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    // Already redacted by the client: its messages never hold the key.
    return { ...fail(`The case could not run on the deployment: ${errorMessage(error)}`), ranOn };
  }

  const durationMs = elapsed(started);
  const times = { trace: [], startedAt: startedAt.toISOString(), endedAt: new Date().toISOString(), durationMs };
  const body = outcome.answer.body;
  const execution: ExecutionResult =
    outcome.kind === 'finished'
      ? { ...times, status: 'finished', outputs: isRecord(outcome.outputs) ? outcome.outputs : {} }
      : {
          ...times,
          status: 'failed',
          error: {
            kind: 'request',
            message: typeof body.error === 'string' ? body.error : `The execution ended with status "${outcome.status}".`,
            ...(typeof body.node === 'string' ? { node: body.node } : {}),
          },
        };
  // What needs the engine is left out of the checks (and named in the notes).
  const checked: TestCase = { ...testCase, mocks: new Map(), expect: { ...testCase.expect, nodes: new Map() } };
  const failures = checkCase(checked, execution, new Map(), () => undefined);
  return { name: testCase.name, passed: failures.length === 0, durationMs, failures, execution, requests: [], notes: note, ranOn };
}

function originOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return baseUrl;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
