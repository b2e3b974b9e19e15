// The exchanges of local executions as they are kept: per execution, in the order the API nodes
// answered, within EXECUTION_EXCHANGE_BYTES (later exchanges are kept without their bodies, and
// say so); across executions, at most so many executions (the history's cap). Plain data, so an
// execution's log can be written to a file, sent on a status answer or to a view.
import { formatBytes } from '../executions/executionRecord';
import { EXCHANGE_BODY_LIMITS, EXECUTION_EXCHANGE_BYTES } from './exchange';
import type { Exchange, ExchangeHeader, RecordedBody } from './exchange';
import type { ExchangeFacts } from './recordExchange';

/** Exchanges kept for one execution at most (an agent file's nodes are far fewer). */
export const MAX_EXCHANGES_PER_EXECUTION = 1000;

/** What one execution keeps. */
export interface ExecutionExchanges {
  readonly exchanges: readonly Exchange[];
  /** Bytes the kept exchanges take, as `exchangeBytes` counts them. */
  readonly bytes: number;
  /** Ids of the exchanges kept without their bodies: the execution's byte budget was spent. */
  readonly bodiesNotKept: readonly string[];
  /** Exchanges not kept at all (past MAX_EXCHANGES_PER_EXECUTION, or headers alone past the budget). */
  readonly notKept: number;
}

export interface ExchangeLogLimits {
  readonly maxBytes?: number;
  readonly maxExchanges?: number;
}

/**
 * What an exchange whose record is not made yet counts: `recordBytes`, what exchangeBytes will
 * count of its record (near enough, never less but for the masks of secrets), and `heldBytes`, the
 * bodies its facts keep alive until it is made.
 */
export interface PendingExchangeSize {
  readonly recordBytes: number;
  readonly heldBytes: number;
}

/** A record to make when the log is read. */
class PendingRecord {
  constructor(readonly make: () => Exchange) {}
}

/**
 * A record whose facts hold more than this is made at once: what a log keeps unmade stays close to
 * what it counts (a record keeps at most EXCHANGE_BODY_LIMITS.execution of each body).
 */
const MAX_PENDING_HELD_BYTES = 4 * EXCHANGE_BODY_LIMITS.execution;

/** The exchanges of one execution, kept as they come within the byte budget. */
export class ExchangeLog {
  private readonly kept: (Exchange | PendingRecord)[] = [];
  private readonly withoutBodies: string[] = [];
  private bytes = 0;
  private dropped = 0;
  private readonly maxBytes: number;
  private readonly maxExchanges: number;

  constructor(limits: ExchangeLogLimits = {}) {
    this.maxBytes = limits.maxBytes ?? EXECUTION_EXCHANGE_BYTES;
    this.maxExchanges = limits.maxExchanges ?? MAX_EXCHANGES_PER_EXECUTION;
  }

  /** Keeps an exchange: whole while the budget allows, else without its bodies, else not at all. */
  add(exchange: Exchange): void {
    if (this.kept.length >= this.maxExchanges) {
      this.dropped++;
      return;
    }
    const size = exchangeBytes(exchange);
    if (this.bytes + size <= this.maxBytes) {
      this.kept.push(exchange);
      this.bytes += size;
      return;
    }
    const bare = withoutBodies(exchange);
    const bareSize = exchangeBytes(bare);
    // Headers and URLs are bounded by the HTTP client, but a thousand of them still are not: past
    // twice the budget, an exchange is only counted.
    if (this.bytes + bareSize > this.maxBytes * 2) {
      this.dropped++;
      return;
    }
    this.kept.push(bare);
    this.withoutBodies.push(bare.id);
    this.bytes += bareSize;
  }

  /**
   * Keeps an exchange whose record is made when the log is read (snapshot), not now: most records
   * of a server's executions are never read, and making one (redacting, decoding, cutting) is most
   * of what recording costs. It counts what the record will, or what its facts hold when that is
   * more. A record that would not fit whole, or whose facts hold large bodies, is made at once and
   * kept as `add` keeps it.
   */
  offer(record: () => Exchange, size: PendingExchangeSize): void {
    if (this.kept.length >= this.maxExchanges) {
      this.dropped++;
      return;
    }
    const counted = Math.max(size.recordBytes, size.heldBytes);
    if (size.heldBytes > MAX_PENDING_HELD_BYTES || this.bytes + counted > this.maxBytes) {
      this.add(record());
      return;
    }
    this.kept.push(new PendingRecord(record));
    this.bytes += counted;
  }

  get size(): number {
    return this.kept.length;
  }

  /** Bytes the kept exchanges take, as counted when each was kept. */
  get keptBytes(): number {
    return this.bytes;
  }

  /** The log as plain data: the records not made yet are made now, once. */
  snapshot(): ExecutionExchanges {
    const exchanges: Exchange[] = [];
    let failed = 0;
    for (let index = 0; index < this.kept.length; index++) {
      const entry = this.kept[index]!;
      if (!(entry instanceof PendingRecord)) {
        exchanges.push(entry);
        continue;
      }
      try {
        const made = entry.make();
        this.kept[index] = made;
        exchanges.push(made);
      } catch {
        // A record that cannot be made is counted as not kept rather than losing the others.
        failed++;
      }
    }
    if (failed) {
      this.kept.splice(0, this.kept.length, ...exchanges);
      this.dropped += failed;
    }
    return { exchanges, bytes: this.bytes, bodiesNotKept: [...this.withoutBodies], notKept: this.dropped };
  }
}

/** What the record of these facts will count and what they hold until it is made (see PendingExchangeSize). */
export function pendingExchangeSize(facts: ExchangeFacts): PendingExchangeSize {
  const { request, response, capture, bodyLimit } = facts;
  let recordBytes = EXCHANGE_FRAME_BYTES + rawHeadersBytes(request.headers);
  let heldBytes = 0;
  if ('template' in request) recordBytes += request.template.length;
  else {
    recordBytes += request.url.length;
    const body = request.body;
    if (body?.file) recordBytes += body.file.name.length + BODY_FRAME_BYTES;
    else if (typeof body?.content === 'string') {
      const bytes = Buffer.byteLength(body.content);
      recordBytes += Math.min(bytes, bodyLimit) + BODY_FRAME_BYTES;
      heldBytes += bytes;
    }
  }
  for (const redirect of capture?.redirects ?? []) recordBytes += redirect.from.length + redirect.to.length + 64;
  const answer = response ?? capture?.answer;
  if (answer) recordBytes += rawHeadersBytes(answer.headers);
  if (response && response.body.length > 0) {
    // As Base64 when the bytes are not text: a third more.
    recordBytes += 4 * Math.ceil(Math.min(response.body.length, bodyLimit) / 3) + BODY_FRAME_BYTES;
    heldBytes += response.body.length;
  }
  if (facts.responseText !== undefined) heldBytes += facts.responseText.length;
  if (facts.failure) recordBytes += facts.failure.message.length;
  return { recordBytes, heldBytes };
}

function rawHeadersBytes(headers: Readonly<Record<string, string>>): number {
  let bytes = 0;
  for (const name in headers) bytes += name.length + headers[name]!.length + HEADER_FRAME_BYTES;
  return bytes;
}

/** An empty log, for an execution that made no call. */
export const NO_EXCHANGES: ExecutionExchanges = { exchanges: [], bytes: 0, bodiesNotKept: [], notKept: 0 };

/**
 * The bytes an exchange takes as kept: its bodies (text as UTF-8, binary as its base64), URLs and
 * headers, and what JSON writes around them (names, quotes, braces). What the budgets count (an
 * execution's, a server's); close to its size as JSON.
 */
export function exchangeBytes(exchange: Exchange): number {
  let bytes =
    EXCHANGE_FRAME_BYTES + exchange.request.url.length + headersBytes(exchange.request.headers) + bodyBytes(exchange.request.body);
  for (const redirect of exchange.redirects) bytes += redirect.from.length + redirect.to.length + 64;
  if (exchange.response) bytes += headersBytes(exchange.response.headers) + bodyBytes(exchange.response.body);
  if (exchange.failure) bytes += exchange.failure.message.length;
  return bytes;
}

/** An exchange as JSON without its URL, headers and bodies: its id, times, names and braces. */
const EXCHANGE_FRAME_BYTES = 512;
/** A header as JSON besides its name and value: `{"name":"","value":""},`. */
const HEADER_FRAME_BYTES = 24;
/** A body as JSON besides its text: its kind, size and whether it was cut. */
const BODY_FRAME_BYTES = 64;

function headersBytes(headers: readonly ExchangeHeader[]): number {
  let bytes = 0;
  for (const header of headers) bytes += header.name.length + header.value.length + HEADER_FRAME_BYTES;
  return bytes;
}

function bodyBytes(body: RecordedBody): number {
  if (body.kind === 'text') return Buffer.byteLength(body.text) + BODY_FRAME_BYTES;
  if (body.kind === 'binary') return body.base64.length + BODY_FRAME_BYTES;
  if (body.kind === 'file') return body.name.length + BODY_FRAME_BYTES;
  return 0;
}

/** The exchange with its bodies let go: each says its full size, with nothing of it kept. */
export function withoutBodies(exchange: Exchange): Exchange {
  return {
    ...exchange,
    request: { ...exchange.request, body: bodyNotKept(exchange.request.body) },
    ...(exchange.response ? { response: { ...exchange.response, body: bodyNotKept(exchange.response.body) } } : {}),
  };
}

function bodyNotKept(body: RecordedBody): RecordedBody {
  if (body.kind === 'text') return { ...body, text: '', truncated: true };
  if (body.kind === 'binary') return { ...body, base64: '', truncated: true };
  return body;
}

/** The exchange of a node in an execution's log: its last one (a node calls once per execution). */
export function exchangeOfNode(log: ExecutionExchanges | undefined, node: string): Exchange | undefined {
  if (!log) return undefined;
  for (let index = log.exchanges.length - 1; index >= 0; index--) if (log.exchanges[index]!.node === node) return log.exchanges[index];
  return undefined;
}

/** Whether an exchange of this log was kept without its bodies. */
export function bodiesNotKept(log: ExecutionExchanges, exchange: Exchange): boolean {
  return log.bodiesNotKept.includes(exchange.id);
}

/**
 * The logs of several executions by key, at most `maxExecutions()` of them: adding one past the cap
 * lets go of the oldest added. `onEvict` hears of each let go (to delete its file).
 */
export class ExchangeStore {
  private readonly logs = new Map<string, ExecutionExchanges>();

  constructor(
    private readonly maxExecutions: () => number,
    private readonly onEvict?: (key: string) => void,
  ) {}

  set(key: string, log: ExecutionExchanges): void {
    this.logs.delete(key);
    this.logs.set(key, log);
    const max = Math.max(0, Math.floor(this.maxExecutions()));
    for (const oldest of this.logs.keys()) {
      if (this.logs.size <= max) break;
      this.logs.delete(oldest);
      this.onEvict?.(oldest);
    }
  }

  get(key: string): ExecutionExchanges | undefined {
    return this.logs.get(key);
  }

  delete(key: string): boolean {
    return this.logs.delete(key);
  }

  get size(): number {
    return this.logs.size;
  }

  keys(): IterableIterator<string> {
    return this.logs.keys();
  }
}

/**
 * An execution's log as read back from a file or an answer: only well-formed exchanges are kept
 * (a file of another version, or edited by hand, must not break the view). Undefined when it is
 * not a log at all.
 */
export function parseExecutionExchanges(value: unknown): ExecutionExchanges | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (!Array.isArray(v.exchanges)) return undefined;
  const exchanges = v.exchanges.filter(isExchange);
  return {
    exchanges,
    bytes: typeof v.bytes === 'number' ? v.bytes : exchanges.reduce((sum, exchange) => sum + exchangeBytes(exchange), 0),
    bodiesNotKept: Array.isArray(v.bodiesNotKept) ? v.bodiesNotKept.filter((id): id is string => typeof id === 'string') : [],
    notKept: (typeof v.notKept === 'number' ? v.notKept : 0) + (v.exchanges.length - exchanges.length),
  };
}

function isExchange(value: unknown): value is Exchange {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const request = v.request as Record<string, unknown> | undefined;
  const response = v.response as Record<string, unknown> | undefined;
  return (
    typeof v.id === 'string' &&
    typeof v.node === 'string' &&
    typeof v.startedAt === 'string' &&
    typeof request === 'object' &&
    request !== null &&
    typeof request.method === 'string' &&
    typeof request.url === 'string' &&
    areHeaders(request.headers) &&
    isBody(request.body) &&
    Array.isArray(v.redirects) &&
    (response === undefined ||
      (typeof response === 'object' &&
        response !== null &&
        typeof response.status === 'number' &&
        typeof response.statusText === 'string' &&
        areHeaders(response.headers) &&
        isBody(response.body))) &&
    typeof v.timing === 'object' &&
    v.timing !== null &&
    typeof (v.timing as Record<string, unknown>).totalMs === 'number'
  );
}

function areHeaders(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every(
      (header) =>
        typeof header === 'object' &&
        header !== null &&
        typeof (header as ExchangeHeader).name === 'string' &&
        typeof (header as ExchangeHeader).value === 'string',
    )
  );
}

function isBody(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (v.kind === 'empty') return true;
  if (v.kind === 'text') return typeof v.text === 'string' && typeof v.size === 'number';
  if (v.kind === 'binary') return typeof v.base64 === 'string' && typeof v.size === 'number';
  if (v.kind === 'file') return typeof v.name === 'string' && typeof v.size === 'number';
  return false;
}

/** A failed run's exchange as reports and results files keep it: a line, and the start of the answer. */
export interface ExchangeSummary {
  readonly node: string;
  /** `POST https://… → 500 Internal Server Error · 1.2 KB · 35 ms`, secrets by name. */
  readonly summary: string;
  /** The start of the answer's text body, on one line. */
  readonly answer?: string;
}

/** The summary of a node's exchange in a log; undefined when the log has none for it. */
export function exchangeSummaryOf(log: ExecutionExchanges | undefined, node: string | undefined): ExchangeSummary | undefined {
  const exchange = node === undefined ? undefined : exchangeOfNode(log, node);
  return exchange && exchangeSummary(exchange);
}

/** The summary of one exchange, as reports show it. */
export function exchangeSummary(exchange: Exchange): ExchangeSummary {
  const answer = responseExcerpt(exchange);
  return { node: exchange.node, summary: summarizeExchange(exchange), ...(answer !== undefined ? { answer } : {}) };
}

/** URL characters a summary shows; the exchange itself has the whole URL. */
const MAX_SUMMARY_URL = 300;

/**
 * One line about an exchange, for reports and test failures:
 * `GET https://api.example.com/items → 500 Internal Server Error · 1.2 KB · 35 ms`.
 */
export function summarizeExchange(exchange: Exchange): string {
  const url =
    exchange.request.url.length > MAX_SUMMARY_URL ? `${exchange.request.url.slice(0, MAX_SUMMARY_URL - 1)}…` : exchange.request.url;
  const answer = exchange.response
    ? `${exchange.response.status}${exchange.response.statusText ? ` ${exchange.response.statusText}` : ''}`
    : `no answer${exchange.failure ? ` (${cut(exchange.failure.message, 300)})` : ''}`;
  const size = exchange.response && exchange.response.body.kind !== 'empty' ? ` · ${bodySizeWords(exchange.response.body)}` : '';
  return detached(`${exchange.request.method} ${url} → ${answer}${size} · ${Math.round(exchange.timing.totalMs)} ms`);
}

function bodySizeWords(body: RecordedBody): string {
  return formatBytes(body.kind === 'empty' ? 0 : body.size);
}

/** The start of a response's text body, for a failure summary: at most `max` characters, on one line. */
export function responseExcerpt(exchange: Exchange, max = 200): string | undefined {
  const body = exchange.response?.body;
  if (!body || body.kind !== 'text' || body.text === '') return undefined;
  // Only the start is read: the body may be 64 KiB.
  const flat = body.text
    .slice(0, max * 4)
    .replace(/\s+/g, ' ')
    .trim();
  return flat === '' ? undefined : detached(cut(flat, max));
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A copy that shares no memory with the text it was cut from: a summary kept in a report must not
 * keep a whole 64 KiB body alive (V8 keeps the string a slice was taken from).
 */
function detached(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}
