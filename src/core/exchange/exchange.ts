// One HTTP exchange of an API node as it is shown to people (the exchange view, `send --json`,
// `run --local --verbose`, an execution's nodes): the request as sent and the answer, with every
// secret written as `{{ secrets.NAME }}`. Plain data, so it can be kept, sent to a webview or saved.
import type { NetworkErrorKind } from '../http/networkError';

export interface ExchangeHeader {
  readonly name: string;
  /** Secrets written as `{{ secrets.NAME }}`. */
  readonly value: string;
}

/**
 * A body as kept: text when it decodes (UTF-8, or the charset its Content-Type names), with
 * secrets written by name; bytes otherwise (an image, a PDF), never turned into mojibake.
 */
export type RecordedBody =
  | { readonly kind: 'empty' }
  | {
      readonly kind: 'text';
      readonly text: string;
      /** Bytes of the whole body (after gzip, br or deflate are undone). */
      readonly size: number;
      /** Only the first `keptBytes` bytes were kept: the view says the full size. */
      readonly truncated: boolean;
      /** Cut before its end with no size announced: `size` is the bytes kept, the whole is more. */
      readonly sizeUnknown?: true;
    }
  | {
      readonly kind: 'binary';
      /** Base64 of the bytes kept. */
      readonly base64: string;
      readonly size: number;
      readonly truncated: boolean;
      readonly sizeUnknown?: true;
    }
  /** A request body streamed from a file input: only its name and size are kept. */
  | { readonly kind: 'file'; readonly name: string; readonly size: number };

export interface RecordedRequest {
  readonly method: string;
  /** The whole URL, query included, with every secret (a `?api_key=` too) written by name. */
  readonly url: string;
  readonly headers: readonly ExchangeHeader[];
  readonly body: RecordedBody;
}

export interface RecordedResponse {
  readonly status: number;
  /** The reason phrase the server sent, else the standard one for the status. */
  readonly statusText: string;
  readonly headers: readonly ExchangeHeader[];
  /** The media type of the body (Content-Type without parameters), lower case. */
  readonly contentType?: string;
  /** `gzip`, `br` or `deflate` when the body arrived encoded (it is kept decoded). */
  readonly contentEncoding?: string;
  readonly body: RecordedBody;
}

/** A redirect that was followed: where to, and which request headers were left behind. */
export interface RecordedRedirect {
  readonly status: number;
  readonly from: string;
  readonly to: string;
  /** Names of the headers not sent to `to` (another origin: credentials dropped). */
  readonly droppedHeaders: readonly string[];
}

export interface ExchangeTiming {
  /** Whole exchange, redirects included. */
  readonly totalMs: number;
  /** Until the status line and headers of the final answer arrived. */
  readonly firstByteMs?: number;
}

export interface ExchangeFailure {
  /** `status` when the API answered 4xx/5xx (the response is there too). */
  readonly kind: NetworkErrorKind | 'status' | 'response' | 'expression';
  readonly message: string;
}

export interface Exchange {
  /** Unique in the process: how a view, a pin or a command names this exchange. */
  readonly id: string;
  readonly node: string;
  /** ISO 8601. */
  readonly startedAt: string;
  readonly request: RecordedRequest;
  readonly redirects: readonly RecordedRedirect[];
  /** Missing when no answer came (refused, DNS, TLS, timeout). */
  readonly response?: RecordedResponse;
  readonly timing: ExchangeTiming;
  readonly failure?: ExchangeFailure;
}

/** How much of each body an exchange keeps. */
export const EXCHANGE_BODY_LIMITS = {
  /** Send Request: the exchange view shows up to this much and says the full size past it. */
  send: 10 * 1024 * 1024,
  /** Each node of a local execution (Run Locally, run --local, tests, batches, the server). */
  execution: 64 * 1024,
} as const;

/** Bytes of all exchanges kept for one local execution; later ones are kept without bodies. */
export const EXECUTION_EXCHANGE_BYTES = 1024 * 1024;
