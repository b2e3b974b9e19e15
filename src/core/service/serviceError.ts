// Failures talking to the agent service, typed so every caller (command line, extension) can say
// what happened and what to do. Messages never contain the API key.
import type { NetworkError } from '../http/networkError';
import { keyRedactor } from '../redaction';

export type ServiceErrorKind =
  /** 401/403: the key is missing, wrong, or lacks the license. */
  | 'auth'
  /** 404: wrong account or agent path, or unknown execution. */
  | 'not-found'
  | 'too-large'
  | 'rate-limited'
  /** 5xx. */
  | 'server'
  /** 400 and other 4xx. */
  | 'bad-request'
  /** An answer that is not what the service sends (HTML, no execution id...). */
  | 'bad-response'
  | 'network'
  | 'timeout'
  | 'cancelled'
  /** A setting or argument that cannot work (insecure URL, bad id, unreadable file). */
  | 'config';

export class ServiceError extends Error {
  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
    readonly details: { readonly status?: number; readonly body?: string; readonly retryAfterMs?: number; readonly cause?: unknown } = {},
  ) {
    super(message, details.cause !== undefined ? { cause: details.cause } : undefined);
    this.name = 'ServiceError';
  }

  get status(): number | undefined {
    return this.details.status;
  }
}

const MAX_QUOTE = 300;

/**
 * A short, single-line quote of what the service answered, for messages. A service could echo the
 * request back (an error page showing the headers), so Bearer tokens and the key are masked, before
 * the quote is cut.
 */
export function quoteBody(body: string | Buffer, secret?: string): string {
  const text = keyRedactor(secret).excerpt(typeof body === 'string' ? body : body.toString('utf8'), MAX_QUOTE, {
    normalize: (redacted) => redacted.replace(/\s+/g, ' ').trim(),
  });
  return text === '' ? '(an empty answer)' : `"${text}"`;
}

/** Turns an HTTP error status into a ServiceError that says what to do. */
export function errorForStatus(
  status: number,
  body: Buffer,
  what: string,
  headers: Readonly<Record<string, string>>,
  secret?: string,
): ServiceError {
  const quoted = quoteBody(body, secret);
  const details = { status, body: quoted };
  if (status === 401 || status === 403) {
    return new ServiceError(
      'auth',
      `${what} was refused (${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'}): set or check the API key (created in the service's editor under Settings, App Token). The service needs a Builder license or higher. It answered ${quoted}.`,
      details,
    );
  }
  if (status === 404) {
    return new ServiceError(
      'not-found',
      `${what} found nothing (404 Not Found): check the account and agent paths (copy them from the Agents tab of the service's editor) and the base URL. It answered ${quoted}.`,
      details,
    );
  }
  if (status === 410) {
    return new ServiceError(
      'not-found',
      `${what} found nothing (410 Gone): the service no longer keeps this execution (its results are kept for a limited time, and a local server drops the oldest to bound its memory). Run the agent again for new results. It answered ${quoted}.`,
      details,
    );
  }
  if (status === 413)
    return new ServiceError(
      'too-large',
      `${what} was too large for the service (413 Payload Too Large): send smaller inputs or files. It answered ${quoted}.`,
      details,
    );
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers['retry-after']);
    return new ServiceError(
      'rate-limited',
      `${what} was rate-limited (429 Too Many Requests)${retryAfterMs !== undefined ? `; the service asks to wait ${Math.ceil(retryAfterMs / 1000)} s` : ''}. Try again later.`,
      { ...details, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
    );
  }
  if (status >= 500) {
    const retryAfterMs = parseRetryAfter(headers['retry-after']);
    return new ServiceError(
      'server',
      `${what} failed on the service's side (${status}). Try again later; if it persists, the service may be down. It answered ${quoted}.`,
      { ...details, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
    );
  }
  return new ServiceError(
    'bad-request',
    `${what} was rejected (${status}): ${quoted}. Check the inputs against the agent's declarations.`,
    details,
  );
}

/**
 * A network failure as a ServiceError. For a request that must not be repeated (a start), a failure
 * after the request may have arrived does not say "try again": the agent could already be running.
 * `secret` (the key) is masked: a redirect's message names an address the service chose.
 */
export function fromNetworkError(
  error: NetworkError,
  what: string,
  options: { readonly unsafeToRepeat?: boolean; readonly secret?: string } = {},
): ServiceError {
  const kind = error.kind === 'aborted' ? 'cancelled' : error.kind === 'timeout' ? 'timeout' : 'network';
  const mayHaveArrived = error.kind === 'reset' || error.kind === 'timeout' || error.kind === 'aborted' || error.kind === 'other';
  const message =
    options.unsafeToRepeat && mayHaveArrived
      ? `${what}: ${error.message.replace(/ Try again\.$/, '')} The request may have reached the service, so the agent may be running: check its executions before starting it again.`
      : `${what}: ${error.message}`;
  return new ServiceError(kind, keyRedactor(options.secret).text(message), { cause: error });
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Only HTTP dates ("Sun, 06 Nov 1994 08:49:37 GMT", or the obsolete forms that also start with a
  // day name): Date.parse alone would read "-5" or "12" as years.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
