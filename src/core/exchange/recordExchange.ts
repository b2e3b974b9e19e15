// Making an Exchange (exchange.ts) of one API node call: the request as built, what httpRequest
// saw on the way (redirects, times) and the answer, with every secret written by name
// (`{{ secrets.NAME }}`, through the one Redactor) BEFORE any body is cut to its limit. Bodies are
// kept as text when they decode (UTF-8, or the charset their Content-Type names), else as bytes.
import { randomUUID } from 'node:crypto';
import { TextDecoder } from 'node:util';
import type { ApiRequest } from '../engine/apiRequest';
import type { HttpCapture, HttpResponse } from '../http/httpRequest';
import { BoundedCache } from '../boundedCache';
import { isoTime } from '../clock';
import type { Mutable } from '../mutable';
import { isJson } from './prettyJson';
import { Redactor, secretMask } from '../redaction';
import type { Exchange, ExchangeFailure, ExchangeHeader, RecordedBody, RecordedRedirect, RecordedResponse } from './exchange';

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
  /** The response body as the engine decoded it (UTF-8, bad bytes replaced): kept as is when it is the body's exact text. */
  readonly responseText?: string;
  readonly failure?: ExchangeFailure;
  /** The most bytes of each body kept (EXCHANGE_BODY_LIMITS). */
  readonly bodyLimit: number;
}

/**
 * The redactors of the secrets runs use, made once for all their exchanges: making one derives
 * every encoded form of each secret, which cost more than the rest of an exchange's record, and
 * the runs of a server or a test suite use the same secrets again and again. Keyed by the secrets
 * themselves (names and values), in a bounded memo; each run's map of secrets remembers
 * its redactor until the map grows (a run's secrets may grow as its nodes ask for them).
 */
const redactorsBySecrets = new BoundedCache<Redactor>(32, 64 * 1024);
const redactorOfRun = new WeakMap<ReadonlyMap<string, string>, { readonly size: number; readonly redactor: Redactor }>();

function exchangeRedactor(secrets: ReadonlyMap<string, string>): Redactor {
  const ofRun = redactorOfRun.get(secrets);
  if (ofRun && ofRun.size === secrets.size) return ofRun.redactor;
  let key = '';
  for (const [name, value] of secrets) key += `${name}\u0000${value}\u0000`;
  let redactor = redactorsBySecrets.get(key);
  if (!redactor) {
    redactor = namedSecretRedactor(secrets);
    redactorsBySecrets.set(key, redactor);
  }
  redactorOfRun.set(secrets, { size: secrets.size, redactor });
  return redactor;
}

export function recordExchange(facts: ExchangeFacts): Exchange {
  const redactor = exchangeRedactor(facts.secrets);
  const { request, capture, response } = facts;
  const answer = response ?? capture?.answer;
  const asWritten = 'template' in request;
  const body = asWritten ? undefined : request.body;
  const requestBody: RecordedBody = !body
    ? EMPTY_BODY
    : body.file
      ? { kind: 'file', name: body.file.name, size: body.file.size }
      : typeof body.content === 'string'
        ? recordSentText(body.content, headerOf(request.headers, 'content-type'), redactor, facts.bodyLimit)
        : EMPTY_BODY;
  // Built field by field rather than with conditional spreads: this runs for every API call of
  // every local execution, and the spreads were a fifth of its cost.
  const timing: { totalMs: number; firstByteMs?: number } = { totalMs: capture?.totalMs ?? capture?.elapsed() ?? 0 };
  if (capture?.firstByteMs !== undefined) timing.firstByteMs = capture.firstByteMs;
  const exchange: Mutable<Exchange> = {
    id: nextExchangeId(),
    node: facts.node,
    startedAt: isoTime(facts.startedAt.getTime()),
    request: {
      method: request.method,
      url: asWritten ? request.template : redactor.text(request.url),
      headers: recordHeaders(request.headers, redactor, asWritten),
      body: requestBody,
    },
    redirects:
      capture && capture.redirects.length > 0 ? capture.redirects.map((redirect) => recordRedirect(redirect, redactor)) : NO_REDIRECTS,
    timing,
  };
  if (answer) exchange.response = recordResponse(answer, response, redactor, facts.bodyLimit, facts.responseText);
  if (facts.failure) exchange.failure = { kind: facts.failure.kind, message: redactor.text(facts.failure.message) };
  return exchange;
}

const EMPTY_BODY: RecordedBody = { kind: 'empty' };
/** One empty list for every exchange that was not redirected (most): a record is kept as long as its execution. */
const NO_REDIRECTS: readonly RecordedRedirect[] = Object.freeze([]);

/**
 * Ids unique in the process and across processes (an execution's exchanges are kept in files and
 * read again): a random prefix made once, and a count. A UUID for each was a tenth of a record.
 */
const EXCHANGE_ID_PREFIX = randomUUID();
let exchangesRecorded = 0;

function nextExchangeId(): string {
  return `${EXCHANGE_ID_PREFIX}-${++exchangesRecorded}`;
}

const SURROGATE = /[\ud800-\udfff]/;

/** A request body sent as text: kept as it is when it is all of it, without encoding it to decode it again. */
function recordSentText(content: string, contentType: string | undefined, redactor: Redactor, limit: number): RecordedBody {
  const bytes = Buffer.byteLength(content);
  const charset = charsetOf(contentType);
  // Sent as UTF-8. A lone surrogate went as U+FFFD and decoding drops a byte order mark: such a
  // text (rare) is recorded from its bytes, as any other.
  if (
    bytes <= limit &&
    (charset === undefined || UTF8_LABELS.has(charset)) &&
    content.charCodeAt(0) !== 0xfeff &&
    !SURROGATE.test(content)
  ) {
    const text = withoutNul(content);
    if (text !== undefined) return bytes === 0 ? EMPTY_BODY : { kind: 'text', text: redactor.text(text), size: bytes, truncated: false };
  }
  return recordBody(Buffer.from(content, 'utf8'), contentType, redactor, limit);
}

function recordRedirect(redirect: HttpCapture['redirects'][number], redactor: Redactor): RecordedRedirect {
  return {
    status: redirect.status,
    from: redactor.text(redirect.from),
    to: redactor.text(redirect.to),
    droppedHeaders:
      redirect.droppedHeaders.length === 0 ? redirect.droppedHeaders : redirect.droppedHeaders.map((name) => redactor.text(name)),
  };
}

function recordResponse(
  answer: NonNullable<HttpCapture['answer']>,
  response: HttpResponse | undefined,
  redactor: Redactor,
  bodyLimit: number,
  responseText: string | undefined,
): RecordedResponse {
  const contentType = answer.headers['content-type'];
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  const recorded: Mutable<RecordedResponse> = {
    status: answer.status,
    statusText: answer.statusText,
    headers: recordHeaders(answer.headers, redactor, false),
    // Without a response the body was not read (too large, cut off): nothing of it is kept.
    body: response ? recordBody(response.body, contentType, redactor, bodyLimit, response, responseText) : EMPTY_BODY,
  };
  if (mediaType) recorded.contentType = mediaType;
  if (response?.decodedFrom) recorded.contentEncoding = response.decodedFrom;
  return recorded;
}

function headerOf(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

const BASIC = /^(Basic\s+)([A-Za-z0-9+/]+=*)$/i;

/**
 * Headers with secrets by name, in their names as in their values (a name written out, or an
 * answer's, may hold one). Basic credentials holding a secret (a user:password URL) are shown
 * as `Basic base64(user:{{ secrets.NAME }})`: their Base64 is not the secret itself.
 */
function recordHeaders(headers: Readonly<Record<string, string>>, redactor: Redactor, asWritten: boolean): ExchangeHeader[] {
  const recorded: ExchangeHeader[] = [];
  for (const sentName in headers) {
    const value = headers[sentName]!;
    const name = redactor.text(sentName);
    const basic = asWritten ? null : BASIC.exec(value);
    if (basic) {
      const decoded = Buffer.from(basic[2]!, 'base64').toString('utf8');
      const redacted = redactor.text(decoded);
      if (redacted !== decoded) {
        recorded.push({ name, value: `${basic[1]}base64(${redacted})` });
        continue;
      }
    }
    recorded.push({ name, value: redactor.text(value) });
  }
  return recorded;
}

/**
 * A body as kept: at most `limit` bytes, text when they decode (the Content-Type's charset, else
 * UTF-8; a decoder that fails on bad bytes, so nothing is shown as mojibake), secrets by name;
 * otherwise Base64 of the bytes, the secrets in them by name too. `truncated`: the bytes given are
 * already only the start.
 * `utf8Text`: the bytes already decoded as UTF-8 with bad bytes replaced, used when it is their
 * exact text (no replacement character in it), so a large body is not decoded and held twice.
 */
export function recordBody(
  bytes: Buffer,
  contentType: string | undefined,
  redactor: Redactor,
  limit: number,
  cut: { readonly truncated?: boolean; readonly declaredSize?: number } = {},
  utf8Text?: string,
): RecordedBody {
  const cutShort = cut.truncated ?? false;
  if (bytes.length === 0 && !cutShort) return EMPTY_BODY;
  const truncated = cutShort || bytes.length > limit;
  const kept = bytes.length > limit ? bytes.subarray(0, limit) : bytes;
  const size = cutShort ? Math.max(cut.declaredSize ?? 0, bytes.length) : bytes.length;
  const charset = charsetOf(contentType);
  const text =
    utf8Text !== undefined && !truncated && (charset === undefined || UTF8_LABELS.has(charset)) && isExactUtf8(utf8Text)
      ? withoutNul(utf8Text)
      : decodeText(kept, charset, truncated);
  const recorded: Mutable<Extract<RecordedBody, { kind: 'text' | 'binary' }>> =
    text === undefined
      ? { kind: 'binary', base64: Buffer.from(redactor.bytes(kept, truncated)).toString('base64'), size, truncated }
      : { kind: 'text', text: truncated ? redactor.redactCut(text) : redactor.text(text), size, truncated };
  if (cutShort && cut.declaredSize === undefined) recorded.sizeUnknown = true;
  return recorded;
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
  // A decoder that streams keeps the start of a cut character for the next call: not shared.
  const decoder = cutShort ? newDecoder(charset) : sharedDecoder(charset);
  let text: string;
  try {
    text = decoder.decode(bytes, { stream: cutShort });
  } catch {
    return undefined;
  }
  return withoutNul(text);
}

/**
 * Whether a text Buffer#toString('utf8') made is what decodeText makes of the same bytes: no bad
 * byte replaced (U+FFFD), no byte order mark (TextDecoder drops it).
 */
function isExactUtf8(text: string): boolean {
  return text.charCodeAt(0) !== 0xfeff && !text.includes('\ufffd');
}

/** The labels of UTF-8 (WHATWG Encoding). */
const UTF8_LABELS = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8']);

/** The text, or undefined when it holds a NUL: binary data that happens to decode. */
function withoutNul(text: string): string | undefined {
  return text.includes('\u0000') ? undefined : text;
}

/** Decoders by charset label, made once: making one was a tenth of an exchange's record. */
const decoders = new BoundedCache<TextDecoder>(16, 1024);

function sharedDecoder(charset: string | undefined): TextDecoder {
  const label = charset ?? 'utf-8';
  let decoder = decoders.get(label);
  if (!decoder) {
    decoder = newDecoder(charset);
    decoders.set(label, decoder);
  }
  return decoder;
}

/** A decoder that fails on bytes the charset does not allow; UTF-8 for a charset this runtime does not know. */
function newDecoder(charset: string | undefined): TextDecoder {
  try {
    return new TextDecoder(charset ?? 'utf-8', { fatal: true });
  } catch {
    return new TextDecoder('utf-8', { fatal: true });
  }
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
  // Checked by the scan that writes nothing: parsing a 10 MiB body was many times its size in objects.
  if (JSON_MEDIA.test(type) && !body.truncated && body.text.trim() !== '' && !isJson(body.text)) return 'not-json';
  return undefined;
}
