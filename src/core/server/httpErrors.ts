// JSON answers and errors of the local agent server: every error is {"error": "…", "code": "…"}
// with the HTTP status that says what kind of problem it is.
import type { ServerResponse } from 'node:http';

export type ErrorCode =
  | 'unauthorized'
  | 'bad-json'
  | 'bad-request'
  | 'bad-multipart'
  | 'unknown-input'
  | 'invalid-inputs'
  | 'unknown-agent'
  | 'agent-has-errors'
  | 'unknown-execution'
  | 'execution-removed'
  | 'exchanges-not-kept'
  | 'no-route'
  | 'method-not-allowed'
  | 'unsupported-media-type'
  | 'too-large'
  | 'too-many-executions'
  | 'too-many-key-failures'
  | 'wrong-host'
  | 'internal';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** More fields for the JSON answer (e.g. the list of input problems). */
    readonly extra: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  sendJsonText(response, status, JSON.stringify(body), headers);
}

/** Sends JSON already serialized (a status answer is serialized once, when its execution ends). */
export function sendJsonText(
  response: ServerResponse,
  status: number,
  text: string | Buffer,
  headers: Readonly<Record<string, string>> = {},
): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(text);
}

export function sendError(response: ServerResponse, error: HttpError, headers: Readonly<Record<string, string>> = {}): void {
  sendJson(response, error.status, { error: error.message, code: error.code, ...error.extra }, { ...error.headers, ...headers });
}
