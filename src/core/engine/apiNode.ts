// The generic API node: builds the request (apiRequest.ts), sends it with httpRequest (time limit, cancellation, size cap, redirects that drop credentials and every
// header holding a secret on another origin) and turns the answer into { status, headers, body }.
import type { Dispatcher } from 'undici';
import { errorMessage } from '../errors';
import { EXCHANGE_BODY_LIMITS } from '../exchange/exchange';
import type { Exchange, ExchangeFailure } from '../exchange/exchange';
import { recordExchange } from '../exchange/recordExchange';
import type { ExchangeFacts, SentRequest } from '../exchange/recordExchange';
import { pendingExchangeSize } from '../exchange/executionExchanges';
import type { PendingExchangeSize } from '../exchange/executionExchanges';
import type { Mutable } from '../mutable';
import { HttpCapture, httpRequest } from '../http/httpRequest';
import type { HttpResponse, ResponseBudget } from '../http/httpRequest';
import { NetworkError } from '../http/networkError';
import { isJson } from '../exchange/prettyJson';
import { JsonTooDeepError, MAX_JSON_DEPTH, nestsDeeperThan, parseJson } from '../json';
import { Redactor } from '../redaction';
import type { ApiNodePlan } from './agentPlan';
import { buildApiRequest } from './apiRequest';
import { deferredJsonResult } from './deferredJson';
import type { ApiRequest } from './apiRequest';
import { ExpressionError } from './evaluate';
import type { NodeResult, Scope } from './evaluate';
import { NodeError } from './nodeError';

export interface ApiCallSettings {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  /** An answer past maxResponseBytes fails the node (the engine), or is cut (Send Request). */
  readonly overLimit?: 'fail' | 'cut';
  readonly followRedirects: boolean;
  readonly maxRedirects: number;
  readonly signal: AbortSignal;
  readonly dispatcher?: Dispatcher;
  /** Knows the run's secrets: quotes of answers are redacted before they are cut. */
  readonly redactor?: Redactor;
  /** Bytes this call's answer takes from, shared with other calls (a server's executions). */
  readonly responseBudget?: ResponseBudget;
  /**
   * Called once the call ended, whatever its outcome, with what makes its record (redacted, bodies
   * decoded and cut) and what tells its size: a caller that keeps only some records (a failed
   * case's) makes only those, and one that keeps them for later (ExchangeLog.offer) makes them
   * when read. Both hold only the call's facts, not the execution's values. Nothing is recorded
   * without it.
   */
  readonly onExchange?: (record: () => Exchange, node: string, size: () => PendingExchangeSize) => void;
  /** The most bytes of each body the record keeps (default EXCHANGE_BODY_LIMITS.execution). */
  readonly exchangeBodyLimit?: number;
  /** The clock of the record's times, in milliseconds (a fake one in tests). */
  readonly now?: () => number;
  /** A debugger holding the request once built; it may give back a changed one to send instead. */
  readonly beforeSend?: (request: ApiRequest) => Promise<ApiRequest | void>;
  /** Parse a JSON answer when its body is first read, having checked that it is JSON (Send Request). */
  readonly deferJsonParse?: boolean;
}

export interface ApiNodeOutcome {
  readonly result: NodeResult;
  /** Bytes of the response body. */
  readonly bytes: number;
  readonly method: string;
  /** The URL called, without query or fragment (they may carry keys). */
  readonly url: string;
  /** With overLimit 'cut': the answer was cut, and its body is the text of its start (not parsed). */
  readonly truncated?: boolean;
}

/** Called as soon as the request is known, so a trace can show what is being called. */
export type RequestListener = (request: { readonly method: string; readonly url: string }) => void;

export async function runApiNode(
  node: ApiNodePlan,
  scope: Scope,
  settings: ApiCallSettings,
  onRequest?: RequestListener,
): Promise<ApiNodeOutcome> {
  const redactor = settings.redactor ?? new Redactor();
  const recording = settings.onExchange ? { startedAt: new Date(), capture: new HttpCapture(settings.now) } : undefined;
  const record = (request: SentRequest, failure?: unknown, response?: HttpResponse, responseText?: string): void => {
    if (!recording || !settings.onExchange) return;
    // The facts are gathered now, so that a record made later holds them and nothing else, and
    // says how long the call took (a request never sent has no end time of its own).
    recording.capture.totalMs ??= recording.capture.elapsed();
    const facts: Mutable<ExchangeFacts> = {
      node: node.id,
      startedAt: recording.startedAt,
      request,
      secrets: scope.secrets,
      capture: recording.capture,
      bodyLimit: settings.exchangeBodyLimit ?? EXCHANGE_BODY_LIMITS.execution,
    };
    if (response) facts.response = response;
    if (failure !== undefined) facts.failure = exchangeFailure(failure);
    if (responseText !== undefined) facts.responseText = responseText;
    offerExchange(settings.onExchange, facts);
  };
  let request: ApiRequest;
  try {
    request = buildApiRequest(node, scope, redactor);
  } catch (error) {
    record({ method: node.method, template: node.url.text, headers: headersAsWritten(node) }, error);
    throw error;
  }
  if (settings.beforeSend) {
    const changed = await settings.beforeSend(request);
    if (changed && changed !== request) {
      if (changed.body !== request.body) request.body?.cleanup?.();
      request = changed;
    }
    if (settings.signal.aborted) {
      request.body?.cleanup?.();
      throw new NodeError(node.id, 'The execution was stopped while the request was held, before it was sent.', 'cancelled');
    }
  }
  const { url, headers, body, secretHeaders, secretBody, shownUrl } = request;
  onRequest?.({ method: node.method, url: shownUrl });
  let response: HttpResponse;
  try {
    response = await httpRequest({
      method: node.method,
      url,
      headers,
      ...(body !== undefined ? { body: body.content } : {}),
      timeoutMs: settings.timeoutMs,
      signal: settings.signal,
      maxResponseBytes: settings.maxResponseBytes,
      ...(settings.overLimit ? { overLimit: settings.overLimit } : {}),
      followRedirects: settings.followRedirects,
      maxRedirects: settings.maxRedirects,
      ...(settings.dispatcher ? { dispatcher: settings.dispatcher } : {}),
      ...(settings.responseBudget ? { responseBudget: settings.responseBudget } : {}),
      ...(recording ? { capture: recording.capture } : {}),
      secretHeaders,
      ...(secretBody ? { secretBody } : {}),
    });
  } catch (error) {
    const failure =
      error instanceof NetworkError
        ? new NodeError(
            node.id,
            `${node.method} ${shownUrl} failed: ${error.message}`,
            error.kind === 'aborted' ? 'cancelled' : 'request',
            {
              cause: error,
            },
          )
        : error;
    record(request, failure);
    throw failure;
  } finally {
    body?.cleanup?.();
  }
  let answer: { readonly outcome: ApiNodeOutcome; readonly text: string };
  try {
    answer = readAnswer(node, response, redactor, shownUrl, settings.deferJsonParse === true);
  } catch (error) {
    record(request, error, response);
    throw error;
  }
  // The record takes the text already decoded: a large answer is then held once, not twice.
  record(request, undefined, response, answer.text);
  return answer.outcome;
}

/**
 * Hands the facts over. The callbacks are made here, not in runApiNode, so that what a log keeps
 * until it makes the record holds the facts alone: a closure made there would also hold the call's
 * scope and settings (its signals, the execution's values), for as long as the record waits.
 */
function offerExchange(onExchange: NonNullable<ApiCallSettings['onExchange']>, facts: ExchangeFacts): void {
  onExchange(
    () => recordExchange(facts),
    facts.node,
    () => pendingExchangeSize(facts),
  );
}

/**
 * The node's result from its answer, and the body as text (UTF-8); NodeError for a status of 400
 * or more, or JSON that is not.
 */
function readAnswer(
  node: ApiNodePlan,
  response: HttpResponse,
  redactor: Redactor,
  shownUrl: string,
  deferJson: boolean,
): { readonly outcome: ApiNodeOutcome; readonly text: string } {
  const outcome = { method: node.method, url: shownUrl, bytes: response.body.length };
  if (response.status >= 400) {
    throw new NodeError(
      node.id,
      `${node.method} ${shownUrl} answered ${response.status}${describeBody(response.body, redactor)}.`,
      'status',
      { httpStatus: response.status, bytes: response.body.length },
    );
  }
  const text = response.body.toString('utf8');
  if (response.truncated) {
    // The start of an answer is not the answer: it is not parsed, and says it was cut.
    return { outcome: { ...outcome, truncated: true, result: { status: response.status, headers: response.headers, body: text } }, text };
  }
  const fields = { status: response.status, headers: response.headers };
  const contentType = response.headers['content-type'];
  if (node.method === 'HEAD') return { outcome: { ...outcome, result: { ...fields, body: '' } }, text };
  if (!contentType || !JSON_TYPE.test(contentType.trim())) return { outcome: { ...outcome, result: { ...fields, body: text } }, text };
  if (text.trim() === '') return { outcome: { ...outcome, result: { ...fields, body: null } }, text };
  const notJson = (): NodeError =>
    new NodeError(
      node.id,
      `The answer says it is JSON (${contentType}) but is not valid JSON${describeBody(response.body, redactor)}.`,
      'response',
      { bytes: response.body.length },
    );
  const tooDeep = (error: JsonTooDeepError): NodeError =>
    new NodeError(node.id, `The answer is JSON that ${error.message}.`, 'response', { bytes: response.body.length });
  if (deferJson) {
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw tooDeep(new JsonTooDeepError(MAX_JSON_DEPTH));
    if (!isJson(text)) throw notJson();
    return { outcome: { ...outcome, result: deferredJsonResult(fields, text, response.body.length) }, text };
  }
  try {
    return { outcome: { ...outcome, result: { ...fields, body: parseJson(text) } }, text };
  } catch (error) {
    throw error instanceof JsonTooDeepError ? tooDeep(error) : notJson();
  }
}

/** The header strings of a node as written (a request that could not be built shows them so). */
function headersAsWritten(node: ApiNodePlan): Record<string, string> {
  return Object.fromEntries(node.headers.map((header) => [header.name.text, header.value.text]));
}

/** A node's failure as an exchange says it: the network's own kind when the network failed. */
function exchangeFailure(error: unknown): ExchangeFailure {
  if (error instanceof NodeError) {
    const cause = error.details.cause;
    if (error.kind === 'request' || error.kind === 'cancelled')
      return { kind: cause instanceof NetworkError ? cause.kind : 'other', message: error.reason };
    return { kind: error.kind, message: error.reason };
  }
  if (error instanceof ExpressionError) return { kind: 'expression', message: error.message };
  return { kind: 'other', message: errorMessage(error) };
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Characters of an answer quoted in an error. */
const QUOTE_LIMIT = 200;
/** Bytes of an answer read for the quote: enough for the limit once secrets and spaces shrink. */
const QUOTE_WINDOW = 64 * 1024;

/** The start of an answer for an error message, secrets redacted before it is cut. */
function describeBody(body: Buffer, redactor: Redactor): string {
  const text = redactor.excerpt(body.toString('utf8', 0, Math.min(body.length, QUOTE_WINDOW)), QUOTE_LIMIT, {
    normalize: (redacted) => redacted.replace(/\s+/g, ' ').trim(),
    more: body.length > QUOTE_WINDOW,
  });
  return text === '' || text === '…' ? '' : `: "${text}"`;
}
