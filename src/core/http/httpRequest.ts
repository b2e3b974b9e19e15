// One HTTP exchange over undici with the safety every caller needs: an overall time limit,
// cancellation, a cap on the response size, redirects that never carry credentials (or any header
// but a few harmless ones) to another origin (or, when asked, are not followed there at all), and
// one retry of a GET or HEAD on a kept-alive connection the server had already closed. Bodies sent
// gzip, br or deflate are decoded, the size cap counting the decoded bytes (a small compressed
// answer can hold gigabytes). When asked (`capture`), it also says what happened on the way:
// each redirect, the times, the reason phrase (an exchange record, see core/exchange/).
import { STATUS_CODES } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants as zlib, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import { MAX_ANSWER_BYTES, MAX_TIMER_MS } from '../limits';
import { classifyNetworkError, NetworkError, safeUrl } from './networkError';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface HttpRequest {
  readonly method: HttpMethod;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string or bytes, or a stream (then the request cannot be repeated for a 307/308 redirect). */
  readonly body?: string | Uint8Array | Readable;
  /** Overall limit for the whole exchange, redirects included. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Responses larger than this (decoded) fail with a 'too-large' NetworkError, or are cut (`overLimit`). */
  readonly maxResponseBytes?: number;
  /**
   * What an answer larger than maxResponseBytes does: fail (the default), or `cut`: its first
   * maxResponseBytes bytes are kept and reading stops there (Send Request shows the start of a
   * huge answer and says its size).
   */
  readonly overLimit?: 'fail' | 'cut';
  /** Filled in as the exchange goes, for a record of it; nothing is measured without it. */
  readonly capture?: HttpCapture;
  /** Follow redirects (default) or return the 3xx response as it is. */
  readonly followRedirects?: boolean;
  /**
   * Fail on a redirect to another origin instead of following it without credentials: for a
   * request whose body or answer only the first origin may have (the agent service's inputs and
   * results), so nothing is sent there and no answer from there is taken.
   */
  readonly sameOriginRedirectsOnly?: boolean;
  readonly maxRedirects?: number;
  /** A proxy or a custom agent. */
  readonly dispatcher?: Dispatcher;
  /** Names of headers whose value holds a secret: never sent to another origin, even if safelisted. */
  readonly secretHeaders?: readonly string[];
  /** The body holds a secret: a redirect to another origin that would send it again is refused. */
  readonly secretBody?: boolean;
  /** Bytes shared with other requests: the answer fails with a 'too-large' NetworkError when it runs out. */
  readonly responseBudget?: ResponseBudget;
}

/** Where an answer's bytes are taken from as they arrive (see ByteBudget). */
export interface ResponseBudget {
  /** Takes the bytes, or answers false when there are not enough left. */
  take(bytes: number): boolean;
  /** Why an answer stopped when the budget ran out, and what to do. */
  readonly exceeded: string;
}

/** A redirect that was followed. */
export interface HttpRedirect {
  readonly status: number;
  readonly from: string;
  readonly to: string;
  /** Request headers not sent to `to`: credentials on another origin, body headers when the method became GET. */
  readonly droppedHeaders: readonly string[];
}

// One function for every capture: a capture is kept as long as its exchange record waits.
const performanceNow = (): number => performance.now();

/** What happened during one httpRequest, for an exchange record. */
export class HttpCapture {
  readonly redirects: HttpRedirect[] = [];
  /** Milliseconds from the start until the status line and headers of the final answer. */
  firstByteMs?: number;
  /** Milliseconds of the whole exchange, body included; set when it ends, well or not. */
  totalMs?: number;
  /** The final answer's status and headers, known even when reading its body then failed. */
  answer?: { readonly status: number; readonly statusText: string; readonly headers: Readonly<Record<string, string>> };
  private readonly started: number;

  /** `now` in milliseconds (a fake clock in tests). */
  constructor(readonly now: () => number = performanceNow) {
    this.started = now();
  }

  /** Milliseconds since the capture started. */
  elapsed(): number {
    return Math.round((this.now() - this.started) * 10) / 10;
  }
}

export interface HttpResponse {
  readonly status: number;
  /** The reason phrase the server sent, else the standard one ("" for an unknown status). */
  readonly statusText: string;
  /** Header names in lower case; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** Decoded when it came gzip, br or deflate. */
  readonly body: Buffer;
  /** The URL that answered, after redirects. */
  readonly url: string;
  /** The Content-Encoding that was undone (gzip, br, deflate). */
  readonly decodedFrom?: string;
  /** With overLimit 'cut': only the first maxResponseBytes bytes were read. */
  readonly truncated?: boolean;
  /** Bytes of the whole body when the answer said (Content-Length of a body not encoded). */
  readonly declaredSize?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
export const DEFAULT_MAX_RESPONSE_BYTES = MAX_ANSWER_BYTES;

export async function httpRequest(options: HttpRequest): Promise<HttpResponse> {
  const timeout = new AbortController();
  const timeoutMs = Math.min(options.timeoutMs, MAX_TIMER_MS);
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  const maxRedirects = options.followRedirects === false ? 0 : (options.maxRedirects ?? 5);
  let { method, url, body } = options;
  let headers: Record<string, string> = { ...options.headers };
  const { capture } = options;
  const visited = new Set<string>([url]);
  const send = (): Promise<Dispatcher.ResponseData> =>
    request(url, {
      method,
      headers,
      body: body ?? null,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
  try {
    for (let redirects = 0; ; redirects++) {
      if (signal.aborted) throw new Error('aborted');
      let response: Dispatcher.ResponseData;
      try {
        response = await send();
      } catch (error) {
        // A kept-alive connection the server closed while idle fails the next request before any
        // byte of the answer. A GET or HEAD changes nothing on the server, so once on a new
        // connection is safe; anything else could run twice.
        if (
          (method !== 'GET' && method !== 'HEAD') ||
          body instanceof Readable ||
          signal.aborted ||
          classifyNetworkError(error, url, { timedOut: false, cancelled: false }).kind !== 'reset'
        )
          throw error;
        response = await send();
      }
      const location = response.headers.location;
      if (options.followRedirects === false || !REDIRECTS.has(response.statusCode) || typeof location !== 'string') {
        const answerHeaders = flattenHeaders(response.headers);
        const statusText = response.statusText || STATUS_CODES[response.statusCode] || '';
        if (capture) {
          capture.firstByteMs = capture.elapsed();
          capture.answer = { status: response.statusCode, statusText, headers: answerHeaders };
        }
        const encoding = method === 'HEAD' ? undefined : decodableEncoding(answerHeaders['content-encoding']);
        const length = Number(answerHeaders['content-length']);
        const declared = !encoding && method !== 'HEAD' && /^\d+$/.test(answerHeaders['content-length'] ?? '') ? length : undefined;
        const read = await readBody(response.body, {
          limit: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
          cut: options.overLimit === 'cut',
          url,
          budget: options.responseBudget,
          encoding,
          declaredSize: declared,
        });
        return {
          status: response.statusCode,
          statusText,
          headers: answerHeaders,
          body: read.body,
          url,
          ...(encoding ? { decodedFrom: encoding } : {}),
          ...(read.truncated ? { truncated: true } : {}),
          ...(!encoding && /^\d+$/.test(answerHeaders['content-length'] ?? '') ? { declaredSize: length } : {}),
        };
      }
      response.body.resume();
      const next = new URL(location, url);
      if (visited.has(next.toString())) {
        throw new NetworkError(
          'redirect',
          `${safeUrl(url)} redirected (${response.statusCode}) back to ${safeUrl(next)}, a redirect loop: the server sends the request round in circles. Check the URL, or the server's redirects.`,
          safeUrl(url),
        );
      }
      if (redirects >= maxRedirects) {
        throw new NetworkError('redirect', `${safeUrl(url)} redirected more than ${maxRedirects} times.`, safeUrl(url));
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new NetworkError(
          'redirect',
          `${safeUrl(url)} redirected to a "${next.protocol}" address, which is not followed: only redirects to http:// and https:// are. Call an address that answers over http:// or https://.`,
          safeUrl(url),
        );
      }
      const before = headers;
      if (next.origin !== new URL(url).origin) {
        if (options.sameOriginRedirectsOnly) {
          throw new NetworkError(
            'redirect',
            `${safeUrl(url)} redirected (${response.statusCode}) to another origin, ${next.origin}, which is not followed: nothing is sent there. If that is where the service now is, and you trust it, use that address.`,
            safeUrl(url),
          );
        }
        headers = withoutCredentials(headers, options.secretHeaders);
      }
      const bodyDropped =
        response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST');
      // As fetch and curl do, a 307 or 308 sends the body again; the credentials in headers are
      // dropped above, and a body holding a secret is not sent to an origin the user never named.
      if (!bodyDropped && body !== undefined && options.secretBody && next.origin !== new URL(url).origin) {
        throw new NetworkError(
          'redirect',
          `${safeUrl(url)} redirected (${response.statusCode}) to another origin, ${next.origin}, which would be sent the request's body again, and the body holds a secret: it is not sent there. If you trust ${next.origin}, call it directly.`,
          safeUrl(url),
        );
      }
      if (bodyDropped) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        headers = withoutBodyHeaders(headers);
      } else if (body instanceof Readable) {
        throw new NetworkError(
          'redirect',
          `${safeUrl(url)} answered ${response.statusCode} (repeat the request elsewhere), but a streamed upload cannot be sent twice. Use the final URL.`,
          safeUrl(url),
        );
      }
      capture?.redirects.push({
        status: response.statusCode,
        from: url,
        to: next.toString(),
        droppedHeaders: Object.keys(before).filter((name) => !Object.hasOwn(headers, name)),
      });
      url = next.toString();
      visited.add(url);
    }
  } catch (error) {
    throw classifyNetworkError(error, url, {
      timedOut: timeout.signal.aborted,
      cancelled: options.signal?.aborted ?? false,
      timeoutMs: options.timeoutMs,
    });
  } finally {
    clearTimeout(timer);
    if (capture) capture.totalMs = capture.elapsed();
  }
}

/** The Content-Encoding undone when reading, lower case; undefined for none or one not known. */
function decodableEncoding(header: string | undefined): 'gzip' | 'br' | 'deflate' | undefined {
  const encoding = header?.trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return 'gzip';
  if (encoding === 'br' || encoding === 'deflate') return encoding;
  return undefined;
}

function decoderFor(encoding: 'gzip' | 'br' | 'deflate'): Transform {
  // Lenient about a cut-off end, as browsers and curl are: what arrived is kept.
  if (encoding === 'br') return createBrotliDecompress({ finishFlush: zlib.BROTLI_OPERATION_FLUSH });
  const options = { flush: zlib.Z_SYNC_FLUSH, finishFlush: zlib.Z_SYNC_FLUSH };
  return encoding === 'gzip' ? createGunzip(options) : createInflate(options);
}

/** Why the reading of a body stopped early (thrown inside the pipeline, caught below). */
class StopReading extends Error {
  constructor(readonly outcome: 'cut' | NetworkError) {
    super('stop reading');
  }
}

/**
 * Reads a response body (decoded), stopping as soon as it grows past the limit (failing, or with
 * `cut` keeping its start) or the budget runs out. Stopping destroys the streams: no more is read.
 */
async function readBody(
  stream: Readable,
  options: {
    readonly limit: number;
    readonly cut: boolean;
    readonly url: string;
    readonly budget: ResponseBudget | undefined;
    readonly encoding: 'gzip' | 'br' | 'deflate' | undefined;
    /** The Content-Length of a body not encoded. */
    readonly declaredSize: number | undefined;
  },
): Promise<{ body: Buffer; truncated: boolean }> {
  const { limit, url, budget } = options;
  const chunks: Buffer[] = [];
  let size = 0;
  // A body that says its size is copied into one buffer of that size as it comes: collecting its
  // chunks and joining them held it twice (20 MiB for a 10 MiB answer). Not with a shared budget
  // (a server's executions): that takes each chunk as it comes, and so must the memory.
  let whole =
    options.declaredSize !== undefined && options.declaredSize > 0 && options.declaredSize <= limit && !budget
      ? Buffer.allocUnsafe(options.declaredSize)
      : undefined;
  const keep = (chunk: Buffer): void => {
    if (whole && size + chunk.length <= whole.length) {
      chunk.copy(whole, size);
      return;
    }
    // More than it said: collected as chunks from here on.
    if (whole) chunks.push(whole.subarray(0, size));
    whole = undefined;
    chunks.push(chunk);
  };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (size + chunk.length > limit) {
        if (options.cut) {
          keep(chunk.subarray(0, limit - size));
          size = limit;
          done(new StopReading('cut'));
          return;
        }
        done(
          new StopReading(
            new NetworkError(
              'too-large',
              `The answer of ${safeUrl(url)} is larger than ${limit} bytes${options.encoding ? ` once decoded (${options.encoding})` : ''}, the most that is read.`,
              safeUrl(url),
            ),
          ),
        );
        return;
      }
      if (budget && !budget.take(chunk.length)) {
        size += chunk.length;
        done(
          new StopReading(
            new NetworkError(
              'too-large',
              `The answer of ${safeUrl(url)} was stopped after ${size} bytes: ${budget.exceeded}`,
              safeUrl(url),
            ),
          ),
        );
        return;
      }
      keep(chunk);
      size += chunk.length;
      done();
    },
  });
  const collected = (): Buffer => (whole ? (size === whole.length ? whole : whole.subarray(0, size)) : Buffer.concat(chunks));
  const decoder = options.encoding ? decoderFor(options.encoding) : undefined;
  let decodeError: unknown;
  decoder?.once('error', (error) => (decodeError = error));
  try {
    if (decoder) await pipeline(stream, decoder, sink);
    else await pipeline(stream, sink);
  } catch (error) {
    if (!(error instanceof StopReading)) {
      if (decodeError !== undefined && error === decodeError)
        throw new NetworkError(
          'other',
          `The answer of ${safeUrl(url)} says it is ${options.encoding}-encoded (Content-Encoding) but could not be decoded: ${(error as Error).message}.`,
          safeUrl(url),
          { cause: error },
        );
      throw error;
    }
    if (error.outcome !== 'cut') throw error.outcome;
    return { body: collected(), truncated: true };
  }
  return { body: collected(), truncated: false };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/**
 * Headers that carry no credential whatever their value (much as the Fetch standard's CORS-safelisted
 * request headers), so they may follow a redirect to another origin.
 */
const CROSS_ORIGIN_SAFE_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'pragma',
  'user-agent',
]);

/**
 * The headers that may follow a redirect to another origin: only the safelisted ones, and none that
 * holds a secret. Credentials hide in any header (X-Custom-Token), so everything else is dropped.
 */
export function withoutCredentials(
  headers: Readonly<Record<string, string>>,
  secretHeaders: readonly string[] = [],
): Record<string, string> {
  const secret = new Set(secretHeaders.map((name) => name.toLowerCase()));
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (CROSS_ORIGIN_SAFE_HEADERS.has(lower) && !secret.has(lower)) kept[name] = value;
  }
  return kept;
}

function withoutBodyHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!/^content-(type|length|encoding)$/i.test(name)) kept[name] = value;
  }
  return kept;
}
