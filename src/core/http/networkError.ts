// Network failures, classified so callers can say what happened and what to do about it.
import { errorMessage } from '../errors';

export type NetworkErrorKind = 'timeout' | 'refused' | 'reset' | 'dns' | 'tls' | 'aborted' | 'too-large' | 'redirect' | 'other';

export class NetworkError extends Error {
  constructor(
    readonly kind: NetworkErrorKind,
    message: string,
    /** The request URL without query, fragment or user info (they may carry credentials). */
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'NetworkError';
  }

  /** Faults worth trying again for a safe request (GET): the server may answer next time. */
  get transient(): boolean {
    return this.kind === 'timeout' || this.kind === 'reset' || this.kind === 'refused';
  }
}

/** A URL fit for messages and logs: no user info, query or fragment. */
export function safeUrl(url: string | URL): string {
  try {
    const parsed = new URL(String(url));
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

const TLS_CODES = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|HOSTNAME_MISMATCH|ERR_OSSL)/;

/** Turns what undici or Node throws into a NetworkError. */
export function classifyNetworkError(
  error: unknown,
  url: string,
  context: { timedOut: boolean; cancelled: boolean; timeoutMs?: number },
): NetworkError {
  if (error instanceof NetworkError) return error;
  const where = safeUrl(url);
  const code = findCode(error);
  if (context.cancelled) return new NetworkError('aborted', `The request to ${where} was cancelled.`, where, { cause: error });
  if (
    context.timedOut ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'ETIMEDOUT'
  ) {
    const after = context.timeoutMs !== undefined ? ` after ${formatSeconds(context.timeoutMs)}` : '';
    return new NetworkError('timeout', `${where} did not answer${after}. Check that the service is up, or allow more time.`, where, {
      cause: error,
    });
  }
  switch (code) {
    case 'ECONNREFUSED': {
      // Refused on another port than the URL's: the connection was to a proxy, not the service.
      const peer = findPeer(error);
      if (peer && peer.port !== portOf(where)) {
        return new NetworkError(
          'refused',
          `The connection to ${peer.address}:${peer.port} was refused on the way to ${origin(where)}. If that is your proxy (http.proxy, HTTPS_PROXY), check that it is running.`,
          where,
          { cause: error },
        );
      }
      return new NetworkError(
        'refused',
        `Nothing is listening at ${origin(where)} (connection refused). Check the URL and that the service is running.`,
        where,
        { cause: error },
      );
    }
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return new NetworkError('reset', `The connection to ${origin(where)} was closed before the answer was complete. Try again.`, where, {
        cause: error,
      });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new NetworkError('dns', `The host of ${origin(where)} could not be found. Check the URL and your network.`, where, {
        cause: error,
      });
    default:
      if (code && TLS_CODES.test(code)) {
        return new NetworkError(
          'tls',
          `The TLS certificate of ${origin(where)} could not be verified: ${tlsReason(code)} (${code}). Check the URL, or the certificate settings of your network.`,
          where,
          { cause: error },
        );
      }
      return new NetworkError('other', `The request to ${where} failed: ${errorMessage(error)}`, where, { cause: error });
  }
}

/** What a certificate error code means, in words. */
function tlsReason(code: string): string {
  switch (code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'it is self-signed, so nothing vouches for it';
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return 'its chain ends in a self-signed certificate that is not trusted here (a company proxy or a private authority?)';
    case 'CERT_HAS_EXPIRED':
      return 'it has expired';
    case 'CERT_NOT_YET_VALID':
      return 'it is not valid yet (check the clock of this machine)';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
    case 'HOSTNAME_MISMATCH':
      return 'it was issued for another host name than the one in the URL';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'it was issued by an authority that is not trusted here, or the server does not send its whole chain';
    case 'CERT_REVOKED':
      return 'it has been revoked';
    default:
      return 'the secure connection could not be set up';
  }
}

function findCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function findPeer(error: unknown): { address: string; port: number } | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { address, port } = current as { address?: unknown; port?: unknown };
    if (typeof address === 'string' && typeof port === 'number') return { address, port };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function portOf(url: string): number | undefined {
  try {
    const parsed = new URL(url);
    return parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : undefined;
  } catch {
    return undefined;
  }
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
