// How much the server holds for its client, bounded both ways. vscode-jsonrpc reads requests as fast
// as they come and queues them without bound, and its StreamMessageWriter waits for each write to be
// taken before the next, holding the rest in a list without bound: a client that sends requests and
// never reads the answers makes the server grow until the machine runs out (50,000 completions: 60 →
// 229 MB). Here the writer writes each message as the protocol frames it (`Content-Length: N`, an
// empty line, the JSON) and counts what the client has not read; the reader counts the requests not
// yet answered. Past PAUSE_READING_AT (either) no more is read (requests wait in the pipe, with the
// client) until half of it is gone; past MAX_UNREAD (messages the server sends by itself) nothing
// more is written, and that is said once. Messages are counted as well as bytes: small answers cost
// more than their bytes.
import { AbstractMessageWriter, StreamMessageReader } from 'vscode-languageserver/node';
import type { DataCallback, Disposable, Message, MessageWriter } from 'vscode-languageserver/node';

/** Requests unanswered, or messages unread, past which the server reads no more requests. */
export const PAUSE_READING_AT = { requests: 1000, messages: 1000, bytes: 4 * 1024 * 1024 } as const;
/** What the server holds for a client that does not read before it gives up on it. */
export const MAX_UNREAD = { messages: 10_000, bytes: 32 * 1024 * 1024 } as const;

/** Requests read and not yet answered; messages and bytes written and not yet taken by the client. */
export interface Backlog {
  readonly requests: number;
  readonly messages: number;
  readonly bytes: number;
}

export interface FlowListener {
  /** The backlog reached PAUSE_READING_AT: the input is paused. */
  readonly onPause: (backlog: Backlog) => void;
  /** The client left MAX_UNREAD unread: nothing more is written (told once). */
  readonly onOverflow: (backlog: Backlog) => void;
}

export class ClientFlow {
  private requests = 0;
  private messages = 0;
  private bytes = 0;
  private paused = false;
  overflowed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly listener: FlowListener,
    private readonly bounds: { readonly pauseAt: typeof PAUSE_READING_AT; readonly max: typeof MAX_UNREAD } = {
      pauseAt: PAUSE_READING_AT,
      max: MAX_UNREAD,
    },
  ) {}

  get backlog(): Backlog {
    return { requests: this.requests, messages: this.messages, bytes: this.bytes };
  }

  requestRead(): void {
    this.requests++;
    this.check();
  }

  /** A message handed to the writer: false when it must be dropped (past MAX_UNREAD). */
  writing(message: Message, bytes: number): boolean {
    if (this.overflowed) return false;
    if (this.messages + 1 > this.bounds.max.messages || this.bytes + bytes > this.bounds.max.bytes) {
      this.overflowed = true;
      this.listener.onOverflow(this.backlog);
      return false;
    }
    if (isResponse(message)) this.requests = Math.max(0, this.requests - 1);
    this.messages++;
    this.bytes += bytes;
    this.check();
    return true;
  }

  /** A message the stream took. */
  written(bytes: number): void {
    this.messages--;
    this.bytes -= bytes;
    this.check();
  }

  private check(): void {
    const { pauseAt } = this.bounds;
    if (!this.paused && (this.requests >= pauseAt.requests || this.messages >= pauseAt.messages || this.bytes >= pauseAt.bytes)) {
      this.paused = true;
      this.input.pause();
      this.listener.onPause(this.backlog);
    } else if (
      this.paused &&
      this.requests <= pauseAt.requests / 2 &&
      this.messages <= pauseAt.messages / 2 &&
      this.bytes <= pauseAt.bytes / 2
    ) {
      this.paused = false;
      this.input.resume();
    }
  }
}

/** The protocol read from the input, each request counted until it is answered. */
export class CountingMessageReader extends StreamMessageReader {
  constructor(
    input: NodeJS.ReadableStream,
    private readonly flow: ClientFlow,
  ) {
    super(input);
  }

  override listen(callback: DataCallback): Disposable {
    return super.listen((message) => {
      if (isRequest(message)) this.flow.requestRead();
      callback(message);
    });
  }
}

export class BoundedMessageWriter extends AbstractMessageWriter implements MessageWriter {
  constructor(
    private readonly output: NodeJS.WritableStream,
    private readonly flow: ClientFlow,
  ) {
    super();
    output.on('error', (error: Error) => this.fireError(error));
    output.on('close', () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    const framed = Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
    // Dropped without an error: an error would be logged, as a message to the client, and dropped again.
    if (!this.flow.writing(message, framed.length)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.output.write(framed, (error?: Error | null) => {
        this.flow.written(framed.length);
        if (error) {
          this.fireError(error, message);
          reject(error);
        } else resolve();
      });
    });
  }

  end(): void {
    this.output.end();
  }
}

function isRequest(message: Message): boolean {
  return 'id' in message && 'method' in message;
}

function isResponse(message: Message): boolean {
  return 'id' in message && !('method' in message);
}
