// The Debug Adapter Protocol's base protocol read from a byte stream (stdin of `agent-workflows dap`):
// `Content-Length: N`, a blank line, N bytes of JSON. @vscode/debugadapter's own reader concatenates
// every chunk onto what it holds (quadratic in a long message), has no bound, and takes a message
// that is not JSON as a fatal error (the session shuts down, exit 0, nothing said). This one holds
// the chunks of a message in a list (linear), refuses a message over MAX_DEBUG_MESSAGE_BYTES without
// holding it, and says what was wrong with a message it skips, then reads the next one.
import { errorDetail } from '../core/errors';
import { parseJson } from '../core/json';

/** The largest message read: a launch configuration with its inputs, a Set Value of a big body. */
export const MAX_DEBUG_MESSAGE_BYTES = 16 * 1024 * 1024;
/** The header of a message (`Content-Length: N` and maybe `Content-Type`) is a few dozen bytes. */
export const MAX_DEBUG_HEADER_BYTES = 8 * 1024;

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = Buffer.from('Content-Length:');
/** Header fields (`Name: value` lines), which may come before Content-Length. */
const HEADER_LINES = /^(?:[A-Za-z][A-Za-z0-9-]*:[^\r\n]*\r\n)*$/;
const BASE_PROTOCOL =
  'Each message is "Content-Length: N", an empty line ("\\r\\n\\r\\n"), then N bytes of JSON (the Debug Adapter Protocol\'s base protocol).';

/** A message of the protocol, as far as the reader checks it: an object with a type and a sequence number. */
export interface DebugProtocolMessage {
  readonly type: string;
  readonly seq: number;
  readonly [key: string]: unknown;
}

export class DebugMessageReader {
  /** Bytes of a header not yet ended (at most MAX_DEBUG_HEADER_BYTES and one chunk). */
  private header: Buffer = Buffer.alloc(0);
  /** The chunks of the body being read, and their length in all. */
  private body: Buffer[] = [];
  private bodyBytes = 0;
  /** The Content-Length of the message being read; undefined while a header is read. */
  private contentLength: number | undefined;
  /** Bytes of a refused message still to be passed over. */
  private skipping = 0;
  /** Bytes that are no message are being passed over (said once, until a message is read again). */
  private discarding = false;

  constructor(
    private readonly onMessage: (message: DebugProtocolMessage) => void,
    /** What was wrong with what was skipped, in words (what, why, how to send it). */
    private readonly onProblem: (problem: string) => void,
    private readonly maxMessageBytes = MAX_DEBUG_MESSAGE_BYTES,
  ) {}

  /** The bytes held for the message being read: bounded by the header and message bounds. */
  get heldBytes(): number {
    return this.header.length + this.bodyBytes;
  }

  /** Reads a chunk of the stream: every message it completes is handed on, in order. */
  push(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0) {
      if (this.skipping > 0) {
        const passed = Math.min(this.skipping, data.length);
        this.skipping -= passed;
        data = data.subarray(passed);
      } else if (this.contentLength === undefined) {
        data = this.readHeader(data);
      } else {
        data = this.readBody(data);
      }
    }
  }

  /** What is left unread when the stream ends, in words; undefined when it ended between messages. */
  unfinished(): string | undefined {
    if (this.contentLength !== undefined)
      return `The input ended in the middle of a message: ${this.bodyBytes} of its ${this.contentLength} bytes came.`;
    if (this.skipping > 0) return undefined;
    return this.header.length > 0 ? `The input ended in the middle of a message's header (${this.header.length} bytes).` : undefined;
  }

  /**
   * A header ends at the first empty line; it is read from its last "Content-Length:" on, so that
   * a message after bytes that are no message is still found. Linear: a header cannot hold an empty
   * line, so each byte is searched once for the empty line and once, backwards, for the field.
   */
  private readHeader(data: Buffer): Buffer {
    const searchFrom = Math.max(0, this.header.length - (HEADER_END.length - 1));
    const text = this.header.length > 0 ? Buffer.concat([this.header, data]) : data;
    const end = text.indexOf(HEADER_END, searchFrom);
    if (end === -1) {
      this.holdHeader(text);
      return Buffer.alloc(0);
    }
    this.header = Buffer.alloc(0);
    const rest = text.subarray(end + HEADER_END.length);
    const found = text.lastIndexOf(CONTENT_LENGTH, end);
    const start = found === -1 ? 0 : found;
    if (end - start > MAX_DEBUG_HEADER_BYTES) {
      this.passedOver(`no header ended within ${MAX_DEBUG_HEADER_BYTES} bytes.`);
      return rest;
    }
    if (start > 0 && (start > MAX_DEBUG_HEADER_BYTES || !HEADER_LINES.test(text.toString('latin1', 0, start))))
      this.passedOver(`${start} bytes before a message's header are no header.`);
    const length = contentLengthOf(text.toString('latin1', start, end));
    if (typeof length === 'string') {
      this.problem(`A message's header was skipped: ${length} ${BASE_PROTOCOL}`);
      return rest;
    }
    if (length > this.maxMessageBytes) {
      this.problem(
        `A message of ${length} bytes was skipped unread: messages of at most ${this.maxMessageBytes} bytes are read. Send a smaller one (a launch configuration's inputs can name files instead of holding their content).`,
      );
      this.skipping = length;
      return rest;
    }
    this.contentLength = length;
    return rest;
  }

  /**
   * Keeps a header not yet ended; past the bound, only from its last "Content-Length:" (a message
   * may start there), else the few bytes that may begin one.
   */
  private holdHeader(text: Buffer): void {
    if (text.length <= MAX_DEBUG_HEADER_BYTES) {
      this.header = Buffer.from(text);
      return;
    }
    this.passedOver(`no header ended within ${MAX_DEBUG_HEADER_BYTES} bytes.`);
    const found = text.lastIndexOf(CONTENT_LENGTH);
    const keepFrom =
      found > 0 && text.length - found <= MAX_DEBUG_HEADER_BYTES ? found : Math.max(0, text.length - (CONTENT_LENGTH.length - 1));
    this.header = Buffer.from(text.subarray(keepFrom));
  }

  /** Bytes that are no message were skipped: said once, until a message is read again. */
  private passedOver(why: string): void {
    if (!this.discarding) this.problem(`Bytes that are no message were skipped: ${why} ${BASE_PROTOCOL}`);
    this.discarding = true;
  }

  private readBody(data: Buffer): Buffer {
    const length = this.contentLength!;
    const wanted = length - this.bodyBytes;
    const taken = data.subarray(0, wanted);
    this.body.push(taken);
    this.bodyBytes += taken.length;
    if (this.bodyBytes < length) return Buffer.alloc(0);
    const body = Buffer.concat(this.body, length);
    this.body = [];
    this.bodyBytes = 0;
    this.contentLength = undefined;
    this.discarding = false;
    this.deliver(body);
    return data.subarray(wanted);
  }

  private deliver(body: Buffer): void {
    let message: unknown;
    try {
      message = parseJson(body.toString('utf8'));
    } catch (error) {
      // The parser's words quote the text: only where it failed is said.
      const why = error instanceof SyntaxError ? 'it is not JSON' : `it ${errorDetail(error)}`;
      this.problem(`A message of ${body.length} bytes was skipped: ${why}. ${BASE_PROTOCOL}`);
      return;
    }
    if (!isProtocolMessage(message)) {
      this.problem(
        `A message was skipped: it is not an object with a "type" ("request", "response" or "event") and a numeric "seq"${
          isObject(message) && message.type === 'request' ? ' (a request also names its "command")' : ''
        }.`,
      );
      return;
    }
    this.onMessage(message);
  }

  private problem(text: string): void {
    this.onProblem(text);
  }
}

/** The Content-Length a header gives, or why it gives none. */
function contentLengthOf(header: string): number | string {
  let found: string | undefined;
  for (const line of header.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'content-length') found = line.slice(colon + 1).trim();
  }
  if (found === undefined) return 'it has no "Content-Length".';
  if (!/^\d{1,15}$/.test(found)) return `its Content-Length, ${JSON.stringify(found.slice(0, 40))}, is not a number of bytes.`;
  return Number(found);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isProtocolMessage(value: unknown): value is DebugProtocolMessage {
  if (!isObject(value) || typeof value.seq !== 'number') return false;
  if (value.type === 'request') return typeof value.command === 'string';
  return value.type === 'response' || value.type === 'event';
}
