// One HTTP exchange over undici with the safety every caller needs: an overall time limit,
// cancellation, a cap on the response size, redirects that never carry credentials (or any header
// but a few harmless ones) to another origin (or, when asked, are not followed there at all), and
// one retry of a GET or HEAD on a kept-alive connection the server had already closed.
import { Readable } from 'node:stream';
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
  /** Responses larger than this fail with a 'too-large' NetworkError. */
  readonly maxResponseBytes?: number;
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

export interface HttpResponse {
  readonly status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** The URL that answered, after redirects. */
  readonly url: string;
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
        return {
          status: response.statusCode,
          headers: flattenHeaders(response.headers),
          body: await readBody(response.body, options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, url, options.responseBudget),
          url,
        };
      }
      response.body.resume();
      if (redirects >= maxRedirects) {
        throw new NetworkError('redirect', `${safeUrl(url)} redirected more than ${maxRedirects} times.`, safeUrl(url));
      }
      const next = new URL(location, url);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new NetworkError(
          'redirect',
          `${safeUrl(url)} redirected to a "${next.protocol}" address, which is not followed: only redirects to http:// and https:// are. Call an address that answers over http:// or https://.`,
          safeUrl(url),
        );
      }
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
      if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')) {
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
      url = next.toString();
    }
  } catch (error) {
    throw classifyNetworkError(error, url, {
      timedOut: timeout.signal.aborted,
      cancelled: options.signal?.aborted ?? false,
      timeoutMs: options.timeoutMs,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** Reads a response body, stopping as soon as it grows past the limit or the budget runs out. */
async function readBody(
  stream: AsyncIterable<Uint8Array> & { destroy(error?: Error): void },
  limit: number,
  url: string,
  budget: ResponseBudget | undefined,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) {
      stream.destroy();
      throw new NetworkError(
        'too-large',
        `The answer of ${safeUrl(url)} is larger than ${limit} bytes, the most that is read.`,
        safeUrl(url),
      );
    }
    if (budget && !budget.take(chunk.length)) {
      stream.destroy();
      throw new NetworkError(
        'too-large',
        `The answer of ${safeUrl(url)} was stopped after ${size} bytes: ${budget.exceeded}`,
        safeUrl(url),
      );
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
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
