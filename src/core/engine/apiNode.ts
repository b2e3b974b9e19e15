// The generic API node: builds the request from the node's URL, header strings and body, sends it
// with httpRequest (time limit, cancellation, size cap, redirects that drop credentials and every
// header holding a secret on another origin) and turns the answer into { status, headers, body }.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { maskExpressions } from '../document/expressions';
import type { Expression } from '../document/expressions';
import { HEADER_NAME } from '../document/headers';
import { httpRequest } from '../http/httpRequest';
import { JsonTooDeepError, parseJson } from '../json';
import type { ResponseBudget } from '../http/httpRequest';
import { NetworkError, safeUrl } from '../http/networkError';
import { Redactor } from '../redaction';
import type { ApiNodePlan, BodyTemplate } from './agentPlan';
import { evaluateString, renderString } from './evaluate';
import type { NodeResult, Scope, Where } from './evaluate';
import { NodeError } from './nodeError';
import { FileValue, kindOf, renderText } from './values';

declare const AGENT_WORKFLOWS_VERSION: string | undefined;

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
  const headers = buildHeaders(node, scope);
  const redactor = settings.redactor ?? new Redactor();
  const url = sendUserinfoAsBasic(node, buildUrl(node, scope), headers, redactor);
  const body = buildBody(node, scope, headers);
  const shownUrl = safeUrl(url);
  // Headers built from a secret (directly or through a node's answer) never follow a redirect to
  // another origin, whatever their name.
  const secretHeaders = Object.entries(headers)
    .filter(([, value]) => redactor.text(value) !== value)
    .map(([name]) => name);
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

/**
 * Expressions in the scheme and host part are used as they are (a whole base URL may come from an
 * input); in the path, query and fragment each value is percent-encoded, so a value cannot add
 * path segments or query parameters.
 */
function buildUrl(node: ApiNodePlan, scope: Scope): string {
  const where: Where = { node: node.id, field: 'url' };
  const template = node.url;
  let text: string;
  if (template.single) {
    const value = evaluateString(template, scope, where);
    if (typeof value !== 'string')
      throw new NodeError(
        node.id,
        `The url is ${kindOf(value)} after filling in ${template.text.trim()}, not a URL. Make the expression give the URL as text.`,
        'expression',
      );
    text = value.trim();
  } else {
    const originEnd = originEndOf(maskExpressions(template.text, template.expressions));
    text = renderString(template, scope, where, (value: unknown, expression: Expression) =>
      expression.start < originEnd ? renderText(value) : encodeURIComponent(renderText(value)),
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new NodeError(
      node.id,
      `The url is not a valid URL once its expressions are filled in: "${text}". Check the values it is built from.`,
      'expression',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NodeError(
      node.id,
      `The url must be http:// or https://, not ${url.protocol}// (after filling in its expressions).`,
      'expression',
    );
  }
  return url.toString();
}

/**
 * undici drops a URL's user name and password without a word, so "https://user:password@host/"
 * would call the API with no credentials: they are sent as Basic credentials instead (as curl
 * does), and taken out of the URL. The Base64 of a secret password is a secret too.
 */
function sendUserinfoAsBasic(node: ApiNodePlan, url: string, headers: Record<string, string>, redactor: Redactor): string {
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return url;
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
    throw new NodeError(
      node.id,
      'The url carries a user name and password, and the settings an Authorization header: only one can be sent. Remove one of them.',
      'expression',
    );
  }
  const decode = (part: string): string => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  const credentials = `${decode(parsed.username)}:${decode(parsed.password)}`;
  const encoded = Buffer.from(credentials, 'utf8').toString('base64');
  if (redactor.text(credentials) !== credentials) redactor.add(encoded);
  headers['Authorization'] = `Basic ${encoded}`;
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

/** Where the path starts in a URL template (expressions masked): after "scheme://host", or at the first "/", "?" or "#". */
function originEndOf(masked: string): number {
  const scheme = masked.indexOf('://');
  const from = scheme === -1 ? 0 : scheme + 3;
  const rest = masked.slice(from).search(/[/?#]/);
  return rest === -1 ? masked.length : from + rest;
}

function buildHeaders(node: ApiNodePlan, scope: Scope): Record<string, string> {
  // By lower-case name: a repeated header is joined, as HTTP reads repeated headers.
  const headers = new Map<string, { readonly name: string; value: string }>();
  for (const header of node.headers) {
    const nameWhere: Where = { node: node.id, field: `settings "${header.name.text}"` };
    const name = renderText(evaluateString(header.name, scope, nameWhere)).trim();
    if (!HEADER_NAME.test(name))
      throw new NodeError(
        node.id,
        `The header name "${name}" (from ${header.name.text}) is not a valid header name: a name is letters, digits and ! # $ % & ' * + - . ^ _ \` | ~, with no spaces (RFC 9110). Check the value it is built from.`,
        'expression',
      );
    const value = renderString(header.value, scope, { node: node.id, field: `settings "${name}"` }, renderText);
    // A value filled in from an input or a response must not be able to start a new header line.
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) {
      throw new NodeError(
        node.id,
        `The value of header "${name}" contains a line break or control character once its expressions are filled in; HTTP does not allow that.`,
        'expression',
      );
    }
    const existing = headers.get(name.toLowerCase());
    if (existing) existing.value = `${existing.value}, ${value}`;
    else headers.set(name.toLowerCase(), { name, value });
  }
  if (!headers.has('user-agent'))
    headers.set('user-agent', {
      name: 'User-Agent',
      value: `agent-workflows/${typeof AGENT_WORKFLOWS_VERSION === 'string' ? AGENT_WORKFLOWS_VERSION : 'dev'}`,
    });
  return Object.fromEntries([...headers.values()].map((header) => [header.name, header.value]));
}

interface BuiltBody {
  readonly content: string | Readable;
  readonly cleanup?: () => void;
}

/**
 * A mapping or list is sent as JSON; a string as text. A string that is exactly one expression
 * naming a file input sends the file's bytes, and one that yields an object or list sends JSON.
 * Content-Type is added when the settings do not give one.
 */
function buildBody(node: ApiNodePlan, scope: Scope, headers: Record<string, string>): BuiltBody | undefined {
  if (!node.body) return undefined;
  const setType = (type: string): void => {
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['Content-Type'] = type;
  };
  if (node.body.kind === 'json') {
    setType('application/json');
    return { content: JSON.stringify(fillTemplate(node.body.template, scope, node.id)) };
  }
  const value = evaluateString(node.body.value, scope, { node: node.id, field: 'body' });
  if (value instanceof FileValue) {
    setType(value.type || 'application/octet-stream');
    headers['Content-Length'] = String(value.size);
    const stream = createReadStream(value.localPath);
    return { content: stream, cleanup: () => stream.destroy() };
  }
  if (value !== null && typeof value === 'object') {
    setType('application/json');
    return { content: JSON.stringify(value) };
  }
  setType('text/plain; charset=utf-8');
  return { content: renderText(value) };
}

function fillTemplate(template: BodyTemplate, scope: Scope, nodeId: string): unknown {
  switch (template.kind) {
    case 'string':
      return evaluateString(template.value, scope, { node: nodeId, field: template.path });
    case 'list':
      return template.items.map((item) => fillTemplate(item, scope, nodeId));
    case 'map':
      return Object.fromEntries(template.entries.map(([key, item]) => [key, fillTemplate(item, scope, nodeId)]));
    case 'literal':
      return template.value;
  }
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
