// The generic API node: builds the request (apiRequest.ts), sends it with httpRequest (time limit, cancellation, size cap, redirects that drop credentials and every
// header holding a secret on another origin) and turns the answer into { status, headers, body }.
import type { Dispatcher } from 'undici';
import { errorMessage } from '../errors';
import { EXCHANGE_BODY_LIMITS } from '../exchange/exchange';
import type { Exchange, ExchangeFailure } from '../exchange/exchange';
import { recordExchange } from '../exchange/recordExchange';
import type { SentRequest } from '../exchange/recordExchange';
import { HttpCapture, httpRequest } from '../http/httpRequest';
import type { HttpResponse, ResponseBudget } from '../http/httpRequest';
import { NetworkError } from '../http/networkError';
import { JsonTooDeepError, parseJson } from '../json';
import { Redactor } from '../redaction';
import type { ApiNodePlan } from './agentPlan';
import { buildApiRequest } from './apiRequest';
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
   * decoded and cut): a caller that keeps only some records (a failed case's) makes only those.
   * Nothing is recorded without it.
   */
  readonly onExchange?: (record: () => Exchange, node: string) => void;
  /** The most bytes of each body the record keeps (default EXCHANGE_BODY_LIMITS.execution). */
  readonly exchangeBodyLimit?: number;
  /** The clock of the record's times, in milliseconds (a fake one in tests). */
  readonly now?: () => number;
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
  const record = (request: SentRequest, failure?: unknown, response?: HttpResponse): void => {
    if (!recording || !settings.onExchange) return;
    settings.onExchange(
      () =>
        recordExchange({
          node: node.id,
          startedAt: recording.startedAt,
          request,
          secrets: scope.secrets,
          capture: recording.capture,
          ...(response ? { response } : {}),
          ...(failure !== undefined ? { failure: exchangeFailure(failure) } : {}),
          bodyLimit: settings.exchangeBodyLimit ?? EXCHANGE_BODY_LIMITS.execution,
        }),
      node.id,
    );
  };
  let request: ApiRequest;
  try {
    request = buildApiRequest(node, scope, redactor);
  } catch (error) {
    record({ method: node.method, template: node.url.text, headers: headersAsWritten(node) }, error);
    throw error;
  }
  const { url, headers, body, secretHeaders, shownUrl } = request;
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
  let outcome: ApiNodeOutcome;
  try {
    outcome = readAnswer(node, response, redactor, shownUrl);
  } catch (error) {
    record(request, error, response);
    throw error;
  }
  record(request, undefined, response);
  return outcome;
}

/** The node's result from its answer; NodeError for a status of 400 or more, or JSON that is not. */
function readAnswer(node: ApiNodePlan, response: HttpResponse, redactor: Redactor, shownUrl: string): ApiNodeOutcome {
  const outcome = { method: node.method, url: shownUrl, bytes: response.body.length };
  if (response.status >= 400) {
    throw new NodeError(
      node.id,
      `${node.method} ${shownUrl} answered ${response.status}${describeBody(response.body, redactor)}.`,
      'status',
      { httpStatus: response.status, bytes: response.body.length },
    );
  }
  if (response.truncated) {
    // The start of an answer is not the answer: it is not parsed, and says it was cut.
    return {
      ...outcome,
      truncated: true,
      result: { status: response.status, headers: response.headers, body: response.body.toString('utf8') },
    };
  }
  return {
    ...outcome,
    result: {
      status: response.status,
      headers: response.headers,
      body: parseBody(node, response.headers['content-type'], response.body, node.method, redactor),
    },
  };
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

function parseBody(node: ApiNodePlan, contentType: string | undefined, body: Buffer, method: string, redactor: Redactor): unknown {
  if (method === 'HEAD') return '';
  const text = body.toString('utf8');
  if (!contentType || !JSON_TYPE.test(contentType.trim())) return text;
  if (text.trim() === '') return null;
  try {
    return parseJson(text);
  } catch (error) {
    if (error instanceof JsonTooDeepError)
      throw new NodeError(node.id, `The answer is JSON that ${error.message}.`, 'response', { bytes: body.length });
    throw new NodeError(
      node.id,
      `The answer says it is JSON (${contentType}) but is not valid JSON${describeBody(body, redactor)}.`,
      'response',
      { bytes: body.length },
    );
  }
}

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
