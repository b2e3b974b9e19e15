// What this process's HTTP client (undici, under every request the core sends) reports on its
// diagnostics channels, for tests that run the batch in-process and must act at the moment the
// client does something: stop a service once an answer has reached the batch, start it again once
// a connection to it has been refused, let fake time move on only while no request is under way.
// A positive signal, where a sleep would guess.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';

interface RequestMessage {
  readonly request: { readonly origin: string | URL; readonly method: string };
}

const sameOrigin = (request: RequestMessage['request'], origin: string): boolean =>
  new URL(String(request.origin)).origin === new URL(origin).origin;

interface ConnectErrorMessage {
  readonly connectParams: { readonly hostname: string; readonly port: string | number };
  readonly error: { readonly code?: string };
}

/** Calls `listener` with the method of each request to `origin` whose answer has been read whole. Returns the unsubscribe. */
export function onAnswered(origin: string, listener: (method: string) => void): () => void {
  const channel = 'undici:request:trailers';
  const handler = (message: unknown): void => {
    const { request } = message as RequestMessage;
    if (sameOrigin(request, origin)) listener(request.method);
  };
  subscribe(channel, handler);
  return () => unsubscribe(channel, handler);
}

/** Calls `listener` with the error code of each connection to 127.0.0.1:`port` that could not be opened. Returns the unsubscribe. */
export function onConnectError(port: number, listener: (code: string | undefined) => void): () => void {
  const channel = 'undici:client:connectError';
  const handler = (message: unknown): void => {
    const { connectParams, error } = message as ConnectErrorMessage;
    if (connectParams.hostname === '127.0.0.1' && Number(connectParams.port) === port) listener(error.code);
  };
  subscribe(channel, handler);
  return () => unsubscribe(channel, handler);
}

/**
 * Counts the requests to `origin` under way: created and not yet answered whole nor failed. Zero
 * is the signal that nothing is on its way (for withVirtualTime: time may move on).
 */
export function requestsUnderWay(origin: string): { readonly count: number; close(): void } {
  const under = new Set<object>();
  const created = (message: unknown): void => {
    const { request } = message as RequestMessage;
    if (sameOrigin(request, origin)) under.add(request);
  };
  const done = (message: unknown): void => {
    under.delete((message as RequestMessage).request);
  };
  subscribe('undici:request:create', created);
  subscribe('undici:request:trailers', done);
  subscribe('undici:request:error', done);
  return {
    get count() {
      return under.size;
    },
    close() {
      unsubscribe('undici:request:create', created);
      unsubscribe('undici:request:trailers', done);
      unsubscribe('undici:request:error', done);
    },
  };
}
