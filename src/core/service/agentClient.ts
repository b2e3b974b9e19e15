// The agent service's HTTP interface: start an execution (JSON or multipart) and read its status.
// Shared by the command line and the extension; every request has a time limit and a signal.
// Answers are redacted here, where they are parsed: should the service echo the API key (in
// outputs, a status word, an error), no caller ever holds it to print or store. No redirect to
// another origin is followed: the inputs would be sent there, and its answer taken as the run's.
import { JsonTooDeepError, parseJson } from '../json';
import { httpRequest } from '../http/httpRequest';
import { NetworkError } from '../http/networkError';
import type { FilePart, InputValue } from '../inputs/inputValues';
import { keyRedactor } from '../redaction';
import { parseExecutionExchanges } from '../exchange/executionExchanges';
import type { ExecutionExchanges } from '../exchange/executionExchanges';
import { buildMultipartBody } from './multipartBody';
import { errorForStatus, fromNetworkError, quoteBody, ServiceError } from './serviceError';
import { checkExecutionId, exchangesUrl, executeUrl, statusUrl } from './target';
import type { AgentTarget } from './target';

declare const AGENT_WORKFLOWS_VERSION: string | undefined;

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** The slowest upload speed tolerated before a multipart start is given up (bytes per second). */
const MIN_UPLOAD_BYTES_PER_SECOND = 256 * 1024;

export type InputValues = Readonly<Record<string, InputValue>>;

export interface RequestOptions {
  readonly signal?: AbortSignal;
  /** Time limit of this request, instead of the target's (a multipart start adds its upload time). */
  readonly timeoutMs?: number;
  /**
   * The most the request may take, whatever it allows itself: what is left of the caller's own
   * limit (`run --timeout`, a test case's, a batch row's). The request's allowance (its time limit
   * plus, for a multipart start, the time its size needs to upload) is cut to it, never replaced.
   */
  readonly limitMs?: number;
}

/** The time a request may take: its own limit, plus an allowance for its body, within the caller's limit. */
function requestTimeoutMs(target: AgentTarget, options: RequestOptions, allowanceMs = 0): number {
  return Math.max(
    1,
    Math.min((options.timeoutMs ?? target.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) + allowanceMs, options.limitMs ?? Infinity),
  );
}

export interface Started {
  readonly executionId: string;
  /** Sizes of the files sent, by input name (multipart only). */
  readonly fileSizes?: Readonly<Record<string, number>>;
}

export interface StatusAnswer {
  /** The status word, as the service sent it. */
  readonly status: string;
  readonly outputs?: unknown;
  /** The whole answer. */
  readonly body: Readonly<Record<string, unknown>>;
}

function headers(target: AgentTarget, extra: Record<string, string> = {}): Record<string, string> {
  // A key pasted with a line break would make an invalid header; say so without showing it.
  if (target.apiKey === '' || /[^\x21-\x7e]/.test(target.apiKey)) {
    throw new ServiceError(
      'auth',
      "The API key is empty or contains spaces, line breaks or other characters a key cannot have. Copy it again from the service's editor (Settings, App Token).",
    );
  }
  return {
    Authorization: `Bearer ${target.apiKey}`,
    Accept: 'application/json',
    'User-Agent': `agent-workflows/${typeof AGENT_WORKFLOWS_VERSION === 'string' ? AGENT_WORKFLOWS_VERSION : 'dev'}`,
    ...extra,
  };
}

/** POST …/execute with {"inputs", "stream"}. Never retried: a second POST would start a second run. */
export async function startExecution(
  target: AgentTarget,
  inputs: InputValues,
  options: RequestOptions & { readonly stream?: boolean } = {},
): Promise<Started> {
  const url = executeUrl(target, false);
  const body = JSON.stringify({ inputs, stream: options.stream ?? false });
  const response = await send(
    'Starting the agent',
    () =>
      httpRequest({
        method: 'POST',
        url,
        headers: headers(target, { 'Content-Type': 'application/json' }),
        body,
        timeoutMs: requestTimeoutMs(target, options),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(target.dispatcher ? { dispatcher: target.dispatcher } : {}),
        sameOriginRedirectsOnly: true,
      }),
    { unsafeToRepeat: true, secret: target.apiKey },
  );
  return { executionId: readStarted(response.status, response.body, response.headers, target.apiKey) };
}

/** POST …/execute/multipart: the payload part with the JSON (string inputs), then one part per file. */
export async function startMultipartExecution(
  target: AgentTarget,
  inputs: InputValues,
  files: readonly FilePart[],
  options: RequestOptions & { readonly stream?: boolean } = {},
): Promise<Started> {
  const url = executeUrl(target, true);
  const multipart = await buildMultipartBody({ inputs, stream: options.stream ?? false }, files);
  // The upload is given the time its size needs at a slow rate, on top of the request's own limit.
  const timeoutMs = requestTimeoutMs(target, options, Math.ceil((multipart.contentLength / MIN_UPLOAD_BYTES_PER_SECOND) * 1000));
  const response = await send(
    'Starting the agent',
    () =>
      httpRequest({
        method: 'POST',
        url,
        headers: headers(target, { 'Content-Type': multipart.contentType, 'Content-Length': String(multipart.contentLength) }),
        body: multipart.body,
        timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(target.dispatcher ? { dispatcher: target.dispatcher } : {}),
        sameOriginRedirectsOnly: true,
      }),
    { unsafeToRepeat: true, secret: target.apiKey },
  );
  return { executionId: readStarted(response.status, response.body, response.headers, target.apiKey), fileSizes: multipart.fileSizes };
}

/** Starts an agent with its inputs: multipart when there are files, else JSON. */
export function startAgent(
  target: AgentTarget,
  prepared: { readonly inputs: InputValues; readonly files: readonly FilePart[] },
  options: RequestOptions = {},
): Promise<Started> {
  return prepared.files.length
    ? startMultipartExecution(target, prepared.inputs, prepared.files, options)
    : startExecution(target, prepared.inputs, options);
}

/** GET the status of an execution. */
export async function getStatus(target: AgentTarget, executionId: string, options: RequestOptions = {}): Promise<StatusAnswer> {
  const answer = await getJsonObject(
    target,
    statusUrl(target, checkExecutionId(executionId)),
    { what: 'Reading the execution status', answer: 'The status answer' },
    options,
  );
  const { body, raw, status } = answer;
  if (typeof body.status !== 'string' || body.status.trim() === '') {
    const quoted = quoteBody(raw, target.apiKey);
    throw new ServiceError('bad-response', `The status answer has no "status": ${quoted}.`, { status, body: quoted });
  }
  return { status: body.status, ...(body.outputs !== undefined ? { outputs: body.outputs } : {}), body };
}

/** The most bytes of an exchanges answer: the server bounds an execution's log at 1 MiB (2 MiB as JSON). */
const MAX_EXCHANGES_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * GET …/exchanges of a local agent server's execution: each API node's request and answer, secrets
 * by name. Undefined when the server keeps none for it (404: not a local server, or the execution
 * is forgotten; 410: not kept).
 */
export async function getExchanges(
  target: AgentTarget,
  executionId: string,
  options: RequestOptions = {},
): Promise<ExecutionExchanges | undefined> {
  const answer = await getJsonObject(
    target,
    exchangesUrl(target, executionId),
    {
      what: "Reading the execution's exchanges",
      answer: 'The exchanges answer',
      maxResponseBytes: MAX_EXCHANGES_ANSWER_BYTES,
      absentStatuses: [404, 410],
    },
    options,
  );
  if (!answer) return undefined;
  // The server writes secrets by name; the key is masked all the same, should an answer hold it.
  const log = parseExecutionExchanges(answer.body);
  if (!log) throw new ServiceError('bad-response', `The exchanges answer has no "exchanges": ${quoteBody(answer.raw, target.apiKey)}.`);
  return log;
}

interface JsonRead {
  /** What the request does, for errors ("Reading the execution status"). */
  readonly what: string;
  /** What the answer is, for errors about its body ("The status answer"). */
  readonly answer: string;
  readonly maxResponseBytes?: number;
  /** Statuses that mean "nothing there": undefined instead of an error. */
  readonly absentStatuses?: readonly number[];
}

interface JsonAnswer {
  readonly status: number;
  /** The answer's object, the key masked in it. */
  readonly body: Record<string, unknown>;
  readonly raw: Buffer;
}

/** GET a JSON object from the service with its key: undefined for one of `absentStatuses`. */
async function getJsonObject(
  target: AgentTarget,
  url: string,
  read: JsonRead & { readonly absentStatuses: readonly number[] },
  options: RequestOptions,
): Promise<JsonAnswer | undefined>;
async function getJsonObject(target: AgentTarget, url: string, read: JsonRead, options: RequestOptions): Promise<JsonAnswer>;
async function getJsonObject(target: AgentTarget, url: string, read: JsonRead, options: RequestOptions): Promise<JsonAnswer | undefined> {
  const response = await send(
    read.what,
    () =>
      httpRequest({
        method: 'GET',
        url,
        headers: headers(target),
        timeoutMs: requestTimeoutMs(target, options),
        ...(read.maxResponseBytes !== undefined ? { maxResponseBytes: read.maxResponseBytes } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(target.dispatcher ? { dispatcher: target.dispatcher } : {}),
        sameOriginRedirectsOnly: true,
      }),
    { secret: target.apiKey },
  );
  if (read.absentStatuses?.includes(response.status)) return undefined;
  if (response.status < 200 || response.status >= 300)
    throw errorForStatus(response.status, response.body, read.what, response.headers, target.apiKey);
  const body = keyRedactor(target.apiKey).value(parseJsonObject(response.body, read.answer, target.apiKey)) as Record<string, unknown>;
  return { status: response.status, body, raw: response.body };
}

async function send<T>(
  what: string,
  request: () => Promise<T>,
  options: { readonly unsafeToRepeat?: boolean; readonly secret: string },
): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (error instanceof NetworkError) throw fromNetworkError(error, what, options);
    throw error;
  }
}

function readStarted(status: number, raw: Buffer, responseHeaders: Readonly<Record<string, string>>, secret: string): string {
  if (status < 200 || status >= 300) throw errorForStatus(status, raw, 'Starting the agent', responseHeaders, secret);
  const body = parseJsonObject(raw, 'The answer to the start request', secret);
  const quoted = quoteBody(raw, secret);
  if (body.status !== 'ok') {
    throw new ServiceError(
      'bad-response',
      `The service did not start the agent: it answered ${quoted} instead of {"status": "ok", "executionId": …}.`,
      { status, body: quoted },
    );
  }
  if (typeof body.executionId !== 'string') {
    throw new ServiceError('bad-response', `The service answered without an execution id: ${quoted}.`, { status, body: quoted });
  }
  try {
    // An id is printed and stored: one that holds the key is refused like any other odd id.
    if (keyRedactor(secret).text(body.executionId) !== body.executionId) throw new Error('the id holds the key');
    return checkExecutionId(body.executionId);
  } catch {
    throw new ServiceError('bad-response', `The service answered with an execution id that cannot be polled: ${quoted}.`, {
      status,
      body: quoted,
    });
  }
}

function parseJsonObject(raw: Buffer, what: string, secret: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseJson(raw.toString('utf8'));
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw new ServiceError('bad-response', `${what} ${error.message}.`);
    const html = /^\s*</.test(raw.toString('utf8', 0, 64));
    const quoted = quoteBody(raw, secret);
    throw new ServiceError('bad-response', `${what} is not JSON${html ? ' but an HTML page (is the base URL right?)' : ''}: ${quoted}.`, {
      body: quoted,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const quoted = quoteBody(raw, secret);
    throw new ServiceError('bad-response', `${what} is not a JSON object: ${quoted}.`, { body: quoted });
  }
  return value as Record<string, unknown>;
}
