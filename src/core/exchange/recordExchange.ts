// Making an Exchange (exchange.ts) of one API node call: the request as built, what httpRequest
// saw on the way (redirects, times) and the answer, with every secret written by name
// (`{{ secrets.NAME }}`, through the one Redactor) BEFORE any body is cut to its limit. Bodies are
// kept as text when they decode (UTF-8, or the charset their Content-Type names), else as bytes.
import { randomUUID } from 'node:crypto';
import { TextDecoder } from 'node:util';
import type { ApiRequest } from '../engine/apiRequest';
import type { HttpCapture, HttpResponse } from '../http/httpRequest';
import { Redactor, secretMask } from '../redaction';
import type { Exchange, ExchangeFailure, ExchangeHeader, RecordedBody, RecordedResponse } from './exchange';

/** A redactor that writes each secret as `{{ secrets.NAME }}` (secrets: name → value). */
export function namedSecretRedactor(secrets: ReadonlyMap<string, string>): Redactor {
  const redactor = new Redactor();
  for (const [name, value] of secrets) redactor.add(value, { mask: secretMask(name) });
  return redactor;
}

/** What was sent: the built request, or, when it could not be built, the node's fields as written. */
export type SentRequest =
  | ApiRequest
  | {
      readonly method: string;
      /** The url as written in the agent file (its `{{ }}` not filled in). */
      readonly template: string;
      readonly headers: Readonly<Record<string, string>>;
    };

export interface ExchangeFacts {
  readonly node: string;
  readonly startedAt: Date;
  readonly request: SentRequest;
  /** Secrets by name: how the record writes them. */
  readonly secrets: ReadonlyMap<string, string>;
  /** What httpRequest saw; missing when no request was made. */
  readonly capture?: HttpCapture;
  readonly response?: HttpResponse;
  readonly failure?: ExchangeFailure;
  /** The most bytes of each body kept (EXCHANGE_BODY_LIMITS). */
  readonly bodyLimit: number;
}

/**
 * The redactor of each run's secrets, made once for all its exchanges: making one derives every
 * encoded form of each secret, which cost more than the rest of an exchange's record. A run's
 * secrets may grow as its nodes ask for them, so each use adds any new one (adding is idempotent).
 */
const exchangeRedactors = new WeakMap<ReadonlyMap<string, string>, Redactor>();

function exchangeRedactor(secrets: ReadonlyMap<string, string>): Redactor {
  const known = exchangeRedactors.get(secrets);
  if (!known) {
    const redactor = namedSecretRedactor(secrets);
    exchangeRedactors.set(secrets, redactor);
    return redactor;
  }
  for (const [name, value] of secrets) known.add(value, { mask: secretMask(name) });
  return known;
}

export function recordExchange(facts: ExchangeFacts): Exchange {
  const redactor = exchangeRedactor(facts.secrets);
  const { request, capture, response } = facts;
  const answer = response ?? capture?.answer;
  const url = 'template' in request ? request.template : redactor.text(request.url);
  const requestBody: RecordedBody =
    'template' in request || !request.body
      ? { kind: 'empty' }
      : request.body.file
        ? { kind: 'file', name: request.body.file.name, size: request.body.file.size }
        : typeof request.body.content === 'string'
          ? recordBody(Buffer.from(request.body.content, 'utf8'), headerOf(request.headers, 'content-type'), redactor, facts.bodyLimit)
          : { kind: 'empty' };
  return {
    id: randomUUID(),
    node: facts.node,
    startedAt: facts.startedAt.toISOString(),
    request: {
      method: request.method,
      url,
      headers: recordHeaders(request.headers, redactor, 'template' in request),
      body: requestBody,
    },
    redirects: (capture?.redirects ?? []).map((redirect) => ({
      status: redirect.status,
      from: redactor.text(redirect.from),
      to: redactor.text(redirect.to),
      droppedHeaders: redirect.droppedHeaders,
    })),
    ...(answer ? { response: recordResponse(answer, response, redactor, facts.bodyLimit) } : {}),
    timing: {
      totalMs: capture?.totalMs ?? capture?.elapsed() ?? 0,
      ...(capture?.firstByteMs !== undefined ? { firstByteMs: capture.firstByteMs } : {}),
    },
    ...(facts.failure ? { failure: { kind: facts.failure.kind, message: redactor.text(facts.failure.message) } } : {}),
  };
}

function recordResponse(
  answer: NonNullable<HttpCapture['answer']>,
  response: HttpResponse | undefined,
  redactor: Redactor,
  bodyLimit: number,
): RecordedResponse {
  const contentType = answer.headers['content-type'];
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  return {
    status: answer.status,
    statusText: answer.statusText,
    headers: recordHeaders(answer.headers, redactor, false),
    ...(mediaType ? { contentType: mediaType } : {}),
    ...(response?.decodedFrom ? { contentEncoding: response.decodedFrom } : {}),
    // Without a response the body was not read (too large, cut off): nothing of it is kept.
    body: response
      ? recordBody(response.body, contentType, redactor, bodyLimit, {
          truncated: response.truncated ?? false,
          ...(response.declaredSize !== undefined ? { declaredSize: response.declaredSize } : {}),
        })
      : { kind: 'empty' },
  };
}

function headerOf(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

const BASIC = /^(Basic\s+)([A-Za-z0-9+/]+=*)$/i;

/**
 * Headers with secrets by name. Basic credentials holding a secret (a user:password URL) are shown
 * as `Basic base64(user:{{ secrets.NAME }})`: their Base64 is not the secret itself.
 */
function recordHeaders(headers: Readonly<Record<string, string>>, redactor: Redactor, asWritten: boolean): ExchangeHeader[] {
  return Object.entries(headers).map(([name, value]) => {
    const basic = asWritten ? null : BASIC.exec(value);
    if (basic) {
      const decoded = Buffer.from(basic[2]!, 'base64').toString('utf8');
      const redacted = redactor.text(decoded);
      if (redacted !== decoded) return { name, value: `${basic[1]}base64(${redacted})` };
    }
    return { name, value: redactor.text(value) };
  });
}

/**
 * A body as kept: at most `limit` bytes, text when they decode (the Content-Type's charset, else
 * UTF-8; a decoder that fails on bad bytes, so nothing is shown as mojibake), secrets by name;
 * otherwise Base64 of the bytes. `truncated`: the bytes given are already only the start.
 */
export function recordBody(
  bytes: Buffer,
  contentType: string | undefined,
  redactor: Redactor,
  limit: number,
  cut: { readonly truncated: boolean; readonly declaredSize?: number } = { truncated: false },
): RecordedBody {
  if (bytes.length === 0 && !cut.truncated) return { kind: 'empty' };
  const truncated = cut.truncated || bytes.length > limit;
  const kept = bytes.length > limit ? bytes.subarray(0, limit) : bytes;
  const size = cut.truncated ? Math.max(cut.declaredSize ?? 0, bytes.length) : bytes.length;
  const sizeUnknown = cut.truncated && cut.declaredSize === undefined;
  const facts = { size, truncated, ...(sizeUnknown ? { sizeUnknown: true as const } : {}) };
  const text = decodeText(kept, charsetOf(contentType), truncated);
  if (text === undefined) return { kind: 'binary', base64: kept.toString('base64'), ...facts };
  return { kind: 'text', text: truncated ? redactor.redactCut(text) : redactor.text(text), ...facts };
}

/** The charset parameter of a Content-Type, lower case. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase();
}

/**
 * The bytes as text in the charset (else UTF-8), or undefined when they are not text in it: a byte
 * sequence the charset does not allow, or a NUL (binary data that happens to decode). A body cut
 * in the middle of a character keeps the character's start out of the text.
 */
export function decodeText(bytes: Uint8Array, charset: string | undefined, cutShort = false): string | undefined {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? 'utf-8', { fatal: true });
  } catch {
    // A charset this runtime does not know: UTF-8, or bytes.
    decoder = new TextDecoder('utf-8', { fatal: true });
  }
  let text: string;
  try {
    text = decoder.decode(bytes, { stream: cutShort });
  } catch {
    return undefined;
  }
  return text.includes('\u0000') ? undefined : text;
}

/** How an answer's body differs from what its Content-Type says, when it does. */
export type BodyMismatch =
  /** A JSON type (application/json, …+json) on a body that is not JSON. */
  | 'not-json'
  /** A text type (text/*, JSON, XML) or a charset on bytes that are not text in it. */
  | 'not-text'
  /** A binary type (image/*, application/octet-stream, …) on a body that is text. */
  | 'text-not-binary';

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/;
const TEXT_MEDIA = /^(?:text\/|application\/(?:[\w.+-]+\+)?(?:json|xml)$|application\/(?:javascript|x-www-form-urlencoded)$)/;
const BINARY_MEDIA = /^(?:image\/(?!svg)|audio\/|video\/|font\/|application\/(?:octet-stream|pdf|zip|gzip|x-tar|vnd\.))/;

/** Whether the body is not what the response's Content-Type says (a fact for the adapters to word). */
export function bodyMismatch(response: Pick<RecordedResponse, 'contentType' | 'body'>): BodyMismatch | undefined {
  const type = response.contentType;
  const { body } = response;
  if (!type || body.kind === 'empty' || body.kind === 'file') return undefined;
  if (body.kind === 'binary') return TEXT_MEDIA.test(type) ? 'not-text' : undefined;
  if (BINARY_MEDIA.test(type)) return 'text-not-binary';
  if (JSON_MEDIA.test(type) && !body.truncated && body.text.trim() !== '') {
    try {
      JSON.parse(body.text);
    } catch {
      return 'not-json';
    }
  }
  return undefined;
}
