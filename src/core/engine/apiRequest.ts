// The one request builder of an API node: its URL with the `{{ }}` values filled in, its header
// strings, its body, and which headers hold a secret. The engine, Send Request (`sendNode`) and
// Copy as curl all build from here, so what they send is the same request, byte for byte.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { maskExpressions } from '../document/expressions';
import type { Expression } from '../document/expressions';
import { HEADER_NAME } from '../document/headers';
import { authorityEnd } from '../document/urlCredentials';
import type { HttpMethod } from '../http/httpRequest';
import { safeUrl } from '../http/networkError';
import type { Redactor } from '../redaction';
import type { ApiNodePlan, BodyTemplate } from './agentPlan';
import { evaluateString, renderString } from './evaluate';
import type { Scope, Where } from './evaluate';
import { NodeError } from './nodeError';
import { FileValue, kindOf, renderText } from './values';

declare const AGENT_WORKFLOWS_VERSION: string | undefined;

/** An API node's request, ready to send. */
export interface ApiRequest {
  readonly method: HttpMethod;
  /** The whole URL, query included (it may carry keys: show `shownUrl`, or redact it). */
  readonly url: string;
  /** The URL without user info, query or fragment, for messages and traces. */
  readonly shownUrl: string;
  /** In the order sent; User-Agent, Content-Type and Content-Length added where the node leaves them out. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: BuiltBody;
  /** Headers whose value holds a secret: never sent to another origin on a redirect, whatever their name. */
  readonly secretHeaders: readonly string[];
  /** The body holds a secret: a redirect to another origin that would send it again is not followed. */
  readonly secretBody?: true;
}

/**
 * Builds the request of an API node from its plan and the values of the scope. The redactor knows
 * the secrets: it tells which headers hold one, and learns the Base64 of credentials moved from the
 * URL into an Authorization header. Throws NodeError (kind 'expression') or ExpressionError when a
 * value cannot be used where it is written.
 */
export function buildApiRequest(node: ApiNodePlan, scope: Scope, redactor: Redactor): ApiRequest {
  const headers = buildHeaders(node, scope);
  const url = sendUserinfoAsBasic(node, buildUrl(node, scope), headers, redactor);
  return readyRequest(node.method, url, headers, buildBody(node, scope, headers), redactor);
}

/**
 * The request with what its redirects need to know: headers built from a secret (directly or
 * through a node's answer) never follow one to another origin, whatever their name, and neither
 * does a body that holds one.
 */
function readyRequest(
  method: HttpMethod,
  url: string,
  headers: Record<string, string>,
  body: BuiltBody | undefined,
  redactor: Redactor,
): ApiRequest {
  const secretHeaders = Object.entries(headers)
    .filter(([, value]) => redactor.text(value) !== value)
    .map(([name]) => name);
  return { method, url, shownUrl: safeUrl(url), headers, ...(body ? { body } : {}), secretHeaders, ...secretBodyOf(body, redactor) };
}

/** Whether a body of text holds a secret (a file's bytes are the user's file, sent as it is). */
function secretBodyOf(body: BuiltBody | undefined, redactor: Redactor): { secretBody?: true } {
  return typeof body?.content === 'string' && redactor.text(body.content) !== body.content ? { secretBody: true } : {};
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

/** Where the path starts in a URL template (expressions masked): after "scheme://host", at the first "/", "\", "?" or "#". */
function originEndOf(masked: string): number {
  const scheme = masked.indexOf('://');
  const from = scheme === -1 ? 0 : scheme + 3;
  return authorityEnd(masked, from);
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

export interface BuiltBody {
  /** Text (JSON or plain), or a file input's bytes as a stream. */
  readonly content: string | Readable;
  /** Closes the stream when the request ends or never starts. */
  readonly cleanup?: () => void;
  /** The file input whose bytes are sent (the exchange keeps only its name and size). */
  readonly file?: { readonly name: string; readonly size: number };
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
    // Opened only when the request is sent: a request built and never sent leaves no file open.
    let stream: Readable | undefined;
    return {
      get content(): Readable {
        stream ??= createReadStream(value.localPath);
        return stream;
      },
      cleanup: () => stream?.destroy(),
      file: { name: value.name, size: value.size },
    };
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

/** What a debugger may change in a built request before it is sent. */
export interface RequestChanges {
  readonly url?: string;
  /** Every header, in the order sent (replaces the built ones). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body as text (replaces the built one, a file's bytes too). */
  readonly body?: string;
}

/**
 * A built request with a debugger's changes, checked as the builder checks its own: an http(s)
 * URL, valid header names, no line breaks in values. Throws an Error saying what is wrong. The
 * redactor knows the secrets, so a header that now holds one still never follows a redirect.
 */
export function changeRequest(request: ApiRequest, changes: RequestChanges, redactor: Redactor): ApiRequest {
  let url = request.url;
  if (changes.url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(changes.url.trim());
    } catch {
      throw new Error(`"${changes.url}" is not a valid URL: write it whole, e.g. https://api.example.com/items?id=1.`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new Error(`The URL must be http:// or https://, not ${parsed.protocol}//.`);
    if (parsed.username !== '' || parsed.password !== '')
      throw new Error('The URL may not carry a user name or password here: set an Authorization header instead.');
    url = parsed.toString();
  }
  const headers: Record<string, string> = { ...(changes.headers ?? request.headers) };
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name))
      throw new Error(`"${name}" is not a valid header name: letters, digits and ! # $ % & ' * + - . ^ _ \` | ~, with no spaces.`);
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))
      throw new Error(`The value of header "${name}" contains a line break or control character.`);
  }
  let body = request.body;
  if (changes.body !== undefined) {
    // The length of a file's bytes is not the length of the new text: the client counts it again.
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-length') delete headers[name];
    body = { content: changes.body };
  }
  return readyRequest(request.method, url, headers, body, redactor);
}
