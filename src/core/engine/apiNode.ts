// The generic API node: builds the request (apiRequest.ts), sends it with httpRequest (time limit, cancellation, size cap, redirects that drop credentials and every
// header holding a secret on another origin) and turns the answer into { status, headers, body }.
import type { Dispatcher } from 'undici';
import { httpRequest } from '../http/httpRequest';
import { JsonTooDeepError, parseJson } from '../json';
import type { ResponseBudget } from '../http/httpRequest';
import { NetworkError } from '../http/networkError';
import { Redactor } from '../redaction';
import type { ApiNodePlan } from './agentPlan';
import { buildApiRequest } from './apiRequest';
import type { NodeResult, Scope } from './evaluate';
import { NodeError } from './nodeError';

export interface ApiCallSettings {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly followRedirects: boolean;
  readonly maxRedirects: number;
  readonly signal: AbortSignal;
  readonly dispatcher?: Dispatcher;
  /** Knows the run's secrets: quotes of answers are redacted before they are cut. */
  readonly redactor?: Redactor;
  /** Bytes this call's answer takes from, shared with other calls (a server's executions). */
  readonly responseBudget?: ResponseBudget;
}

export interface ApiNodeOutcome {
  readonly result: NodeResult;
  /** Bytes of the response body. */
  readonly bytes: number;
  readonly method: string;
  /** The URL called, without query or fragment (they may carry keys). */
  readonly url: string;
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
  const request = buildApiRequest(node, scope, redactor);
  const { url, headers, body, secretHeaders, shownUrl } = request;
  onRequest?.({ method: node.method, url: shownUrl });
  let response;
  try {
    response = await httpRequest({
      method: node.method,
      url,
      headers,
      ...(body !== undefined ? { body: body.content } : {}),
      timeoutMs: settings.timeoutMs,
      signal: settings.signal,
      maxResponseBytes: settings.maxResponseBytes,
      followRedirects: settings.followRedirects,
      maxRedirects: settings.maxRedirects,
      ...(settings.dispatcher ? { dispatcher: settings.dispatcher } : {}),
      ...(settings.responseBudget ? { responseBudget: settings.responseBudget } : {}),
      secretHeaders,
    });
  } catch (error) {
    if (error instanceof NetworkError)
      throw new NodeError(
        node.id,
        `${node.method} ${shownUrl} failed: ${error.message}`,
        error.kind === 'aborted' ? 'cancelled' : 'request',
        { cause: error },
      );
    throw error;
  } finally {
    body?.cleanup?.();
  }
  const outcome = { method: node.method, url: shownUrl, bytes: response.body.length };
  if (response.status >= 400) {
    throw new NodeError(
      node.id,
      `${node.method} ${shownUrl} answered ${response.status}${describeBody(response.body, redactor)}.`,
      'status',
      { httpStatus: response.status, bytes: response.body.length },
    );
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
