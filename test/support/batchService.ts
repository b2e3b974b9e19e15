// A stand-in for the agent service with executions that take time, for batch tests and the batch
// benchmark: it keeps its own log of every execute request (what the tests assert on), can throttle
// (429 with Retry-After, 503) and fail rows, and can be stopped and started again on the same port
// with its executions kept, like a service that restarts.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SYSTEM_CLOCK } from '../../src/core/clock';
import type { Clock } from '../../src/core/clock';

export interface BatchServiceExecution {
  readonly id: string;
  readonly inputs: Record<string, unknown>;
  readonly startedAt: number;
  readonly endsAt: number;
}

export interface BatchServiceOptions {
  readonly apiKey: string;
  /** How long an execution runs (default 200 ms). */
  readonly durationMs?: (inputs: Record<string, unknown>) => number;
  /** The status an ended execution has (default finished, with the inputs echoed as outputs). */
  readonly outcome?: (inputs: Record<string, unknown>) => { status: string; outputs?: unknown };
  /** Answer this request (numbered from 0, starts and polls together) with a throttle, or not. */
  readonly throttle?: (request: number, kind: 'start' | 'status') => { status: 429 | 503; retryAfterSeconds?: number } | undefined;
  /** Called when an execute request has been accepted, before it is answered. */
  readonly onStart?: (execution: BatchServiceExecution) => void;
  /**
   * Start this execution but hold its answer (a start whose answer is lost on the way back): the
   * request stays unanswered until `cutHeld` cuts its connection.
   */
  readonly holdStart?: (inputs: Record<string, unknown>) => boolean;
  /** The time of its log and of its executions' lengths: a fake clock shared with the batch's scheduler (default the system's). */
  readonly clock?: Clock;
}

export interface BatchService {
  readonly url: string;
  readonly port: number;
  /** Every execute request accepted (not throttled), in order: the service's own log. */
  readonly started: BatchServiceExecution[];
  /**
   * Every request: when, what, and the status answered; with the execution it was about (the one a
   * start started, the one a status read asked for) and, for a status read, whether it answered
   * that the execution had ended.
   */
  readonly log: Array<{
    readonly at: number;
    readonly kind: 'start' | 'status';
    readonly status: number;
    readonly executionId?: string;
    readonly ended?: boolean;
  }>;
  /** Starts accepted whose answer is held (holdStart), not yet cut. */
  readonly held: number;
  /** Cuts the connections of the held starts, unanswered: their executions were started all the same. */
  cutHeld(): void;
  /** Stops listening (open connections cut); executions are kept. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startBatchService(options: BatchServiceOptions): Promise<BatchService> {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const executions = new Map<string, BatchServiceExecution>();
  const started: BatchServiceExecution[] = [];
  const log: BatchService['log'] = [];
  let requests = 0;
  const held = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const handle = (request: IncomingMessage, response: ServerResponse, body: string): void => {
    const url = request.url ?? '';
    const kind = request.method === 'POST' ? 'start' : 'status';
    const answer = (
      status: number,
      value: unknown,
      headers?: Record<string, string>,
      about: { executionId?: string; ended?: boolean } = {},
    ): void => {
      log.push({ at: clock.now(), kind, status, ...about });
      send(response, status, value, headers);
    };
    if (request.headers.authorization !== `Bearer ${options.apiKey}`) return answer(401, { error: 'invalid API key' });
    const throttle = options.throttle?.(requests++, kind);
    if (throttle) {
      return answer(
        throttle.status,
        { error: 'slow down' },
        throttle.retryAfterSeconds !== undefined ? { 'retry-after': String(throttle.retryAfterSeconds) } : {},
      );
    }
    if (kind === 'start' && /\/execute$/.test(url)) {
      const inputs = (JSON.parse(body) as { inputs: Record<string, unknown> }).inputs;
      const now = clock.now();
      const execution = { id: randomUUID(), inputs, startedAt: now, endsAt: now + (options.durationMs?.(inputs) ?? 200) };
      executions.set(execution.id, execution);
      started.push(execution);
      options.onStart?.(execution);
      if (options.holdStart?.(inputs)) {
        held.add(response);
        return;
      }
      return answer(200, { status: 'ok', executionId: execution.id }, {}, { executionId: execution.id });
    }
    const match = /\/agent\/([^/]+)\/status$/.exec(url);
    const execution = match ? executions.get(decodeURIComponent(match[1]!)) : undefined;
    if (!execution) return answer(404, { error: 'no such execution' });
    if (clock.now() < execution.endsAt) return answer(200, { status: 'running' }, {}, { executionId: execution.id, ended: false });
    const outcome = options.outcome?.(execution.inputs) ?? { status: 'finished', outputs: { echo: execution.inputs } };
    return answer(200, outcome, {}, { executionId: execution.id, ended: true });
  };
  const newServer = (): Server => {
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => handle(request, response, body));
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return server;
  };
  let server: Server | undefined = newServer();
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const stop = async (): Promise<void> => {
    const closing = server;
    server = undefined;
    if (!closing) return;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    started,
    log,
    get held() {
      return held.size;
    },
    cutHeld() {
      for (const response of held) response.socket?.destroy();
      held.clear();
    },
    stop,
    async restart() {
      server = newServer();
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, '127.0.0.1', resolve);
      });
    },
    close: stop,
  };
}

/**
 * The agent the batch tests run, deployed at `baseUrl` (account acme, agent rows): a number input
 * `id` echoed as output `id`; optional `text` and `doc` (a file) for the rows that give them.
 */
export function rowsAgent(baseUrl: string): string {
  return `version: 1
name: Rows
deployment:
  baseUrl: ${baseUrl}
  account: acme
  agent: rows
inputs:
  id: { type: number, required: true }
  text: { type: string }
  doc: { type: file }
nodes:
  echo:
    type: template
    text: "{{ inputs.id }}"
outputs:
  id: { from: "{{ nodes.echo.body }}" }
`;
}
