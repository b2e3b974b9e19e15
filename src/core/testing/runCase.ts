// Runs one test case with the workflow engine on this machine: the agent's real request building,
// HTTP client and redirect handling, with each mocked node's socket replaced by a dispatcher that
// answers with the case's mock and records what the node sent. Then checks every expectation.
import type { Dispatcher } from 'undici';
import type { LoadedAgent } from '../engine/agentPlan';
import { executeAgent } from '../engine/engine';
import type { ExecutionResult } from '../engine/engine';
import type { NodeResult } from '../engine/evaluate';
import type { NodePauses } from '../engine/nodePauses';
import type { NodeStatus, NodeTrace } from '../engine/trace';
import { filesFromPaths, resolveInputs } from '../engine/inputs';
import { checkNamedFiles, describeFileRefusal } from '../inputs/fileAccess';
import type { FileRefusal, NamedFile } from '../inputs/fileAccess';
import { InputError } from '../inputs/inputValues';
import { Redactor } from '../redaction';
import { EXCHANGE_BODY_LIMITS } from '../exchange/exchange';
import type { Exchange } from '../exchange/exchange';
import { ExchangeLog } from '../exchange/executionExchanges';
import type { ExecutionExchanges } from '../exchange/executionExchanges';
import { matchValue } from './matchers';
import { MockReplyDispatcher, NoMockDispatcher } from './mockDispatcher';
import type { MockReply, SentRequest } from './mockDispatcher';
import { detached } from './shownValue';
import { valueAt } from './valuePath';
import type { Matcher, Mismatch } from './matchers';
import type { MockAnswer, RequestExpectations, TestCase } from './testModel';
import type { CaseFailure, CaseResult, RecordedRequest } from './caseResult';

export interface RunCaseOptions {
  /** The folder the case's file paths are relative to, and must stay inside: its test file's. */
  readonly baseDir?: string;
  /** Folders whose files a case may name besides its test file's (inputs/fileAccess.ts). */
  readonly allowedFolders?: readonly string[];
  /** How the caller's user allows a refused file's folder, added to the refusal (e.g. "give --allow-files-from DIR"). */
  readonly allowHint?: (refusal: FileRefusal) => string;
  /** The case's time limit when it states none (within_ms); default 30 s. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** For live nodes: a proxy or a custom agent. */
  readonly dispatcher?: Dispatcher;
  /** Keep the exchanges of a failed case's API nodes (what it links to); on by default. */
  readonly recordExchanges?: boolean;
  /** A debugger's hold points (engine/nodePauses.ts): the case runs under the debugger. */
  readonly pauses?: NodePauses;
  /** Called when a node starts and ends (a debugger's threads). */
  readonly onTrace?: (entry: NodeTrace) => void;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export async function runCase(agent: LoadedAgent, testCase: TestCase, options: RunCaseOptions = {}): Promise<CaseResult> {
  const started = performance.now();
  const nodeResults = new Map<string, NodeResult>();
  let inputs;
  try {
    // Most cases name no file: they go on without a turn of the event loop for the file checks.
    const files = Object.keys(testCase.files).length ? await filesFromPaths(await caseFiles(testCase, options)) : {};
    inputs = resolveInputs(agent.model, { values: testCase.inputs, files });
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    const failure = { message: `The case's inputs were refused: ${error.problems.join(' ')}`, span: testCase.span };
    return { name: testCase.name, passed: false, durationMs: elapsed(started), failures: [failure], requests: [] };
  }
  // What each node sent, secrets and all, kept as undici handed it over and read into a
  // RecordedRequest only when something looks at it (expect_request, or a caller reading the
  // result's requests); everything shown of it is redacted by the run's redactor (the engine adds
  // the forms it sends).
  const sent: { readonly node: string; readonly request: SentRequest; recorded?: RecordedRequest }[] = [];
  const recorded = (entry: (typeof sent)[number]): RecordedRequest => (entry.recorded ??= recordRequest(entry.node, entry.request));
  const firstSentBy = (node: string): RecordedRequest | undefined => {
    const entry = sent.find((request) => request.node === node);
    return entry && recorded(entry);
  };
  const redactor = caseRedactor(testCase);
  // Made only when the case fails (what a failed case links to): most cases pass, and making an
  // exchange (redacted, bodies decoded) cost a fifth of a case's run.
  const exchanges: Array<() => Exchange> | undefined = options.recordExchanges === false ? undefined : [];
  const execution = await executeAgent(agent, inputs, {
    // Secrets are written by name in each exchange: the run's redactor knows the case's.
    ...(exchanges
      ? { onExchange: (record: () => Exchange) => exchanges.push(record), exchangeBodyLimit: EXCHANGE_BODY_LIMITS.execution }
      : {}),
    secrets: async (name) => testCase.secrets[name],
    secretHint: (name) => `give it a test value under secrets: ${name} in the case`,
    timeoutMs: testCase.expect.withinMs ? Math.max(testCase.expect.withinMs.ms * 2, 1000) : (options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    dispatcherFor: (node) => {
      const mock = testCase.mocks.get(node);
      if (mock) return new MockReplyDispatcher(mockReply(mock), (request) => sent.push({ node, request }));
      // A node with no mock in a case that is not live is refused by the file's checks; should one
      // run anyway, its requests are refused rather than sent to the network.
      return testCase.live ? options.dispatcher : new NoMockDispatcher(node);
    },
    // Each result handed over is a redacted copy: made only for the nodes the case checks.
    ...(testCase.expect.nodes?.size ? { onNodeResult: (node: string, result: NodeResult) => nodeResults.set(node, result) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.pauses ? { pauses: options.pauses } : {}),
    ...(options.onTrace ? { onTrace: options.onTrace } : {}),
    redactor,
  });
  const failures = checkCase(testCase, execution, nodeResults, firstSentBy, redactor);
  // Redacted when first read: most runs never look at them (a thousand cases of a test file).
  let shown: RecordedRequest[] | undefined;
  return {
    name: testCase.name,
    passed: failures.length === 0,
    durationMs: elapsed(started),
    failures,
    execution,
    ...(exchanges && failures.length > 0 ? { exchanges: exchangeLogOf(exchanges) } : {}),
    get requests(): readonly RecordedRequest[] {
      return (shown ??= sent.map((entry) => redactedRequest(recorded(entry), redactor)));
    },
  };
}

/**
 * The files a case names, each allowed by the one file access check (inside the test file's folder,
 * or an allowed one), typed by its content; an InputError naming every refused one.
 */
export async function caseFiles(
  testCase: TestCase,
  options: Pick<RunCaseOptions, 'baseDir' | 'allowedFolders' | 'allowHint'>,
): Promise<Record<string, NamedFile>> {
  const checked = await checkNamedFiles(testCase.files, {
    folder: options.baseDir ?? '.',
    ...(options.allowedFolders ? { allowedFolders: options.allowedFolders } : {}),
  });
  if (checked.ok) return checked.files;
  throw new InputError(
    checked.refused.map(({ input, refusal }) => {
      const hint = refusal.allowFolder !== undefined ? options.allowHint?.(refusal) : undefined;
      return `The file for input "${input}" is not read: ${describeFileRefusal(refusal, 'test file')}${hint ? `; ${hint}` : ''}.`;
    }),
    checked.refused.map(({ input }) => input),
  );
}

/** The answer a mock gives: a mapping or list as JSON, text as it is; its headers over the JSON type. */
function mockReply(mock: MockAnswer): MockReply {
  const json = typeof mock.body !== 'string';
  const headers = { ...(json && mock.body !== undefined ? { 'content-type': 'application/json' } : {}), ...mock.headers };
  const body = mock.body === undefined ? '' : json ? JSON.stringify(mock.body) : (mock.body as string);
  return { status: mock.status, headers, body, delayMs: mock.delayMs };
}

function recordRequest(node: string, request: SentRequest): RecordedRequest {
  const headers: Record<string, string> = {};
  const raw = request.headers;
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) headers[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
  } else if (raw && typeof raw === 'object') {
    for (const [name, value] of Object.entries(raw as Record<string, unknown>))
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const text =
    typeof request.body === 'string'
      ? request.body
      : Buffer.isBuffer(request.body) || request.body instanceof Uint8Array
        ? Buffer.from(request.body).toString('utf8')
        : undefined;
  let body: unknown = text === undefined ? (request.body == null ? undefined : '(a stream)') : text;
  if (text !== undefined && /json/i.test(headers['content-type'] ?? '')) {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      // Not JSON after all: checked as text.
    }
  }
  const origin = typeof request.origin === 'string' ? request.origin : (request.origin?.origin ?? '');
  return { node, method: request.method, url: `${origin}${request.path}`, headers, body };
}

/** What a node sent, its secrets redacted: the URL, the headers (a name too may hold one) and the body. */
function redactedRequest(request: RecordedRequest, redactor: Redactor): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const name in request.headers) headers[redactor.text(name)] = redactor.text(request.headers[name] as string);
  return { ...request, url: redactor.text(request.url), headers, body: redactor.value(request.body) };
}

/** The exchanges of a failed case, made in the order the calls ended, within a log's bounds. */
function exchangeLogOf(records: ReadonlyArray<() => Exchange>): ExecutionExchanges {
  const log = new ExchangeLog();
  for (const record of records) log.add(record());
  return log.snapshot();
}

/** A redactor of the case's secrets (the values the case gives them). */
function caseRedactor(testCase: TestCase): Redactor {
  const redactor = new Redactor();
  for (const value of Object.values(testCase.secrets)) redactor.add(value);
  return redactor;
}

/**
 * Every expectation of the case against what the execution did. What came is matched as it is and
 * shown redacted: `redactor` knows the run's secrets (the case's by default). `firstSentBy` gives
 * the first request a node sent, for expect_request (none on a deployed run).
 */
export function checkCase(
  testCase: TestCase,
  execution: ExecutionResult,
  nodeResults: ReadonlyMap<string, NodeResult>,
  firstSentBy: (node: string) => RecordedRequest | undefined,
  redactor: Redactor = caseRedactor(testCase),
): CaseFailure[] {
  const failures: CaseFailure[] = [];
  const expect = testCase.expect;
  const add = (mismatches: Mismatch[], what: string): void => {
    for (const mismatch of mismatches) {
      const where = mismatch.path ? `${what}.${mismatch.path}`.replace(/\.\[/g, '[') : what;
      // Redacted before it is cut for the message.
      const actual = redactor.value(mismatch.actual);
      failures.push({
        message: `${where}: expected ${mismatch.expected}, got ${describeActual(actual, redactor)}`,
        path: where,
        span: mismatch.span,
        expected: mismatch.expected,
        actual,
        ...(mismatch.expectedValue !== undefined ? { expectedValue: mismatch.expectedValue } : {}),
      });
    }
  };

  if (expect.failsAt) {
    if (execution.status !== 'failed')
      failures.push({
        message: `Expected the execution to fail at node "${expect.failsAt.node}", but it ${execution.status === 'finished' ? 'finished' : 'was cancelled'}.`,
        span: expect.failsAt.span,
      });
    else if (execution.error.node !== expect.failsAt.node)
      failures.push({
        message: `Expected the execution to fail at node "${expect.failsAt.node}", but it failed ${execution.error.node ? `at node "${execution.error.node}"` : `(${execution.error.kind})`}: ${execution.error.message}`,
        span: expect.failsAt.span,
      });
  } else if (execution.status !== 'finished' && !expect.error) {
    failures.push({
      message: `The execution ${execution.status === 'failed' ? 'failed' : 'was cancelled'}: ${execution.error.message}`,
      span: testCase.span,
    });
  }
  if (expect.error) {
    if (execution.status === 'finished')
      failures.push({ message: 'Expected the execution to fail, but it finished.', span: expect.error.span });
    else add(matchValue(expect.error, execution.error.message), 'error');
  }
  if (testCase.snapshot && !expect.outputs) {
    failures.push({
      message: 'No snapshot of the outputs yet.',
      code: 'snapshot-missing',
      path: 'outputs',
      span: testCase.span,
    });
  }
  if (expect.outputs && execution.status === 'finished') {
    for (const [name, matcher] of expect.outputs)
      add(matchValue(matcher, Object.hasOwn(execution.outputs, name) ? execution.outputs[name] : undefined), `outputs.${name}`);
  }
  for (const [node, expected] of expect.nodes ?? []) {
    const result = nodeResults.get(node);
    const trace = execution.trace.find((entry) => entry.node === node);
    if (!result && trace?.httpStatus === undefined) {
      failures.push({
        message: `Node "${node}" has no result: it ${trace ? NO_RESULT_WORDS[trace.status] : 'did not run'}${trace?.error ? ` (${trace.error})` : ''}.`,
        span: expected.span,
      });
      continue;
    }
    if (expected.status) add(matchValue(expected.status, result?.status ?? trace?.httpStatus), `nodes.${node}.status`);
    if (!result) {
      // Failed on its HTTP status: the engine keeps the status only, so "absent" would mislead.
      if (expected.body || expected.headers?.size || expected.bodyPaths?.length)
        failures.push({
          message: `Node "${node}" failed (HTTP ${trace?.httpStatus ?? '?'}), and a failed node keeps only its status: its body and headers cannot be checked. Expect its status here, and the failure with fails_at and error.`,
          span: expected.span,
        });
      continue;
    }
    if (expected.body) add(matchValue(expected.body, result?.body), `nodes.${node}.body`);
    for (const [name, matcher] of expected.headers ?? [])
      add(matchValue(matcher, result?.headers?.[name]), `nodes.${node}.headers.${name}`);
    for (const { text, path, matcher } of expected.bodyPaths ?? [])
      add(matchValue(matcher, valueAt(result?.body, path)), `nodes.${node}.body.${text}`);
  }
  for (const mock of testCase.mocks.values()) {
    if (!mock.expectRequest) continue;
    const sent = firstSentBy(mock.node);
    if (!sent) {
      failures.push({ message: `Node "${mock.node}" sent no request, so expect_request could not be checked.`, span: mock.span });
      continue;
    }
    checkRequest(mock.expectRequest, sent, `requests.${mock.node}`, add);
  }
  if (expect.withinMs && execution.durationMs > expect.withinMs.ms) {
    failures.push({
      message: `The execution took ${Math.round(execution.durationMs)} ms, more than within_ms: ${expect.withinMs.ms}.`,
      span: expect.withinMs.span,
      expected: `at most ${expect.withinMs.ms} ms`,
      actual: Math.round(execution.durationMs),
    });
  }
  // What writing the snapshot would put right: the adapters offer it (a flag, a button).
  if (!testCase.snapshot) return failures;
  return failures.map((failure) =>
    failure.code === undefined && (failure.path === 'outputs' || failure.path?.startsWith('outputs.'))
      ? { ...failure, code: 'snapshot-differs' }
      : failure,
  );
}

/** How a node that left no result ended, in words ("it was skipped"; the statuses alone read badly). */
const NO_RESULT_WORDS: Readonly<Record<NodeStatus, string>> = {
  pending: 'did not run',
  running: 'did not finish',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'was cancelled',
  skipped: 'was skipped',
};

function checkRequest(
  expected: RequestExpectations,
  sent: RecordedRequest,
  what: string,
  add: (mismatches: Mismatch[], what: string) => void,
): void {
  const check = (matcher: Matcher | undefined, actual: unknown, field: string): void => {
    if (matcher) add(matchValue(matcher, actual), `${what}.${field}`);
  };
  check(expected.method, sent.method, 'method');
  check(expected.url, sent.url, 'url');
  for (const [name, matcher] of expected.headers ?? []) check(matcher, sent.headers[name], `headers.${name}`);
  check(expected.body, sent.body, 'body');
}

/**
 * A redacted value in at most 200 characters (a secret cut at the end is masked too), copied: a
 * slice would keep the whole JSON text of a 9 MB answer alive for as long as the message.
 */
function describeActual(value: unknown, redactor: Redactor): string {
  if (value === undefined) return 'nothing (absent)';
  return detached(redactor.excerpt(JSON.stringify(value), 200));
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
