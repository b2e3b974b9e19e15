// A mocked API node's transport in an agent test: answers every request the node sends with the
// case's mock, through undici's dispatcher interface, so the engine's real request building, HTTP
// client and redirect handling run unchanged. It does what undici's MockAgent did for one node, without
// MockAgent's agent, two connection pools and a "destroyed" error per close: making and closing those
// for every mocked node of every case was most of the time (and garbage) of a thousand-case run.
import { Dispatcher } from 'undici';

/** The answer every request gets. */
export interface MockReply {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Answers this long after the request (0: at once). */
  readonly delayMs: number;
}

/** What a node sent, as undici hands it to its dispatcher (headers and body as the client gave them). */
export type SentRequest = Pick<Dispatcher.DispatchOptions, 'origin' | 'path' | 'method' | 'headers' | 'body'>;

/** A dispatcher that holds no connection: closing or destroying it has nothing to wait for. */
abstract class LocalDispatcher extends Dispatcher {
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    if (!callback) return Promise.resolve();
    queueMicrotask(callback);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(first?: Error | null | (() => void), second?: () => void): Promise<void> | void {
    const callback = typeof first === 'function' ? first : second;
    if (!callback) return Promise.resolve();
    queueMicrotask(callback);
  }
}

/** Answers every request with `reply`, after telling `onRequest` what was sent. */
export class MockReplyDispatcher extends LocalDispatcher {
  constructor(
    private readonly reply: MockReply,
    private readonly onRequest?: (request: SentRequest) => void,
  ) {
    super();
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.onRequest?.(options);
    const { reply } = this;
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    // Called by the client when the request is aborted (cancelled, timed out): no answer comes then.
    const abort = (reason?: Error): void => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      handler.onError?.(reason ?? new Error('The request was aborted.'));
    };
    handler.onConnect?.(abort);
    const answer = (): void => {
      if (answered) return;
      answered = true;
      const rawHeaders: Buffer[] = [];
      for (const name in reply.headers) rawHeaders.push(Buffer.from(name), Buffer.from(reply.headers[name] as string));
      handler.onHeaders?.(reply.status, rawHeaders, () => {}, '');
      handler.onData?.(Buffer.from(reply.body));
      handler.onComplete?.([]);
    };
    if (reply.delayMs > 0) timer = setTimeout(answer, reply.delayMs);
    else answer();
    return true;
  }
}

/** The transport of a node a case has no mock for: refuses every request, so nothing reaches the network. */
export class NoMockDispatcher extends LocalDispatcher {
  constructor(private readonly node: string) {
    super();
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const error = new Error(
      `Node "${this.node}" has no mock in this case, and a case that is not live sends nothing to ${options.origin ?? 'the network'}.`,
    );
    handler.onConnect?.(() => {});
    handler.onError?.(error);
    return true;
  }
}
