// The local agent server: the agent service's HTTP interface on node:http for the agents of a
// folder, run by the workflow engine.
//   POST /api/{account}/agent/{agent}/execute            {"inputs": {…}, "stream": false}
//   POST /api/{account}/agent/{agent}/execute/multipart  part "payload" (that JSON) + one part per file input
//   GET  /api/{account}/agent/{executionId}/status       running / finished with outputs / failed with the error
//   GET  /api/{account}/agent/{executionId}/exchanges    each API node's request and answer (this server only)
// Every request needs "Authorization: Bearer <key>", and a Host naming the server's own address.
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import type { EngineOptions } from '../engine/engine';
import { ByteBudget } from '../http/byteBudget';
import { resolveInputs } from '../engine/inputs';
import type { GivenFile } from '../engine/inputs';
import { InputError } from '../inputs/inputValues';
import type { GivenInputs } from '../inputs/inputValues';
import type { SecretResolver } from '../engine/secrets';
import { AgentDirectory } from './agentDirectory';
import type { DirectoryChange, ServedAgent } from './agentDirectory';
import { AllowedHosts, quotedHost } from './allowedHosts';
import { bearerToken, generateApiKey, hasBearerKey } from './apiKey';
import { SERVER_LIMITS } from '../limits';
import type { ServerLimits } from '../limits';
import { ServerExecutions } from './serverExecutions';
import type { ExecutionView, StartRequest } from './serverExecutions';
import { HttpError, sendError, sendJson, sendJsonText } from './httpErrors';
import { KeyFailures } from './keyFailures';
import { receiveUpload } from './multipartUpload';
import { formatBytes, parsePayload, readBody } from './requestBody';
import { errorDetail } from '../errors';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';

export { SERVER_LIMITS };
export type { ServerLimits };

export type ServerEvent =
  | { readonly kind: 'agents-changed'; readonly changes: readonly DirectoryChange[] }
  | { readonly kind: 'execution-ended'; readonly execution: ExecutionView }
  | { readonly kind: 'warning'; readonly message: string };

export interface AgentServerOptions {
  /** The folder whose agent files are served. */
  readonly directory: string;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Generated when not given or undefined (see AgentServer.apiKeyGenerated). */
  readonly apiKey?: string | undefined;
  readonly secrets?: SecretResolver;
  readonly secretHint?: (name: string) => string;
  readonly engine?: Pick<
    EngineOptions,
    'concurrency' | 'nodeTimeoutMs' | 'maxResponseBytes' | 'followRedirects' | 'maxRedirects' | 'dispatcher'
  >;
  readonly limits?: Partial<ServerLimits>;
  /** Reload agents when files change (default true). */
  readonly watch?: boolean;
  /** Where uploads are stored while their execution runs (default: the system's temporary folder). */
  readonly uploadDirectory?: string;
  readonly onEvent?: (event: ServerEvent) => void;
  /**
   * More names a request may give as its Host: a tunnel's or a proxy's (the address listened on
   * and this machine's loopback names are always accepted).
   */
  readonly allowedHosts?: readonly string[];
  /**
   * How whoever started the server lets another Host name in (a flag of the command line), said
   * in the answer to a request naming one; nothing is said without it.
   */
  readonly allowHostHint?: string;
  /** The clock of the waits after wrong keys (tests give a fake one). */
  readonly now?: () => number;
}

export interface AgentServer {
  /** http://host:port */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly apiKey: string;
  readonly apiKeyGenerated: boolean;
  readonly directory: string;
  readonly limits: ServerLimits;
  /** Every agent file found, including those that cannot run (with the reason). */
  agents(): ServedAgent[];
  /** Looks for changed agent files now. */
  rescan(): Promise<void>;
  /** Bytes of inputs held now (limits.maxInFlightInputBytes bounds them): by executions and by bodies being received. */
  heldInputBytes(): number;
  /** Stops accepting requests, cancels running executions, removes uploads, stops watching. */
  close(): Promise<void>;
}

/** What every request handler of one server works with. */
interface ServerContext {
  readonly limits: ServerLimits;
  readonly apiKey: string;
  readonly agents: AgentDirectory;
  readonly executions: ServerExecutions;
  readonly keyFailures: KeyFailures;
  /** The Host values a request may name. */
  readonly allowedHosts: AllowedHosts;
  readonly allowHostHint: string | undefined;
  /** Where uploads are stored while their execution runs. */
  readonly uploadRoot: string;
  readonly emit: (event: ServerEvent) => void;
}

/** A served agent that can run. */
type RunnableAgent = ServedAgent & { loaded: NonNullable<ServedAgent['loaded']> };

export async function startAgentServer(options: AgentServerOptions): Promise<AgentServer> {
  const limits: ServerLimits = { ...SERVER_LIMITS, ...options.limits };
  const apiKey = options.apiKey ?? generateApiKey();
  if (apiKey.trim() === '' || /\s/.test(apiKey)) throw new Error('The API key must be one word without spaces.');
  const directory = resolve(options.directory);
  const emit = (event: ServerEvent): void => options.onEvent?.(event);
  const agents = await AgentDirectory.open(directory, {
    watch: options.watch ?? true,
    onChange: (changes) => emit({ kind: 'agents-changed', changes }),
    onWarning: (message) => emit({ kind: 'warning', message }),
  });
  const executions = new ServerExecutions({
    engine: {
      ...options.engine,
      ...(options.secrets ? { secrets: options.secrets } : {}),
      ...(options.secretHint ? { secretHint: options.secretHint } : {}),
      timeoutMs: limits.executionTimeoutMs,
      answerBudget: new ByteBudget(
        limits.maxInFlightAnswerBytes,
        `the answers of API nodes held by the executions running on this server would pass ${formatBytes(limits.maxInFlightAnswerBytes)}, the most it holds at once. Run the execution again when fewer are running.`,
      ),
    },
    maxRunning: limits.maxRunning,
    maxQueued: limits.maxQueued,
    maxInFlightInputBytes: limits.maxInFlightInputBytes,
    retentionMs: limits.retentionMs,
    maxRetained: limits.maxRetained,
    maxRetainedBytes: limits.maxRetainedBytes,
    maxStatusAnswerBytes: limits.maxStatusAnswerBytes,
    maxRetainedExchangeBytes: limits.maxRetainedExchangeBytes,
    onEnded: (execution) => emit({ kind: 'execution-ended', execution }),
  });
  const context: ServerContext = {
    limits,
    apiKey,
    agents,
    executions,
    keyFailures: new KeyFailures(limits.maxKeyFailures, options.now),
    allowedHosts: new AllowedHosts(options.host ?? DEFAULT_HOST, options.allowedHosts),
    allowHostHint: options.allowHostHint,
    uploadRoot: options.uploadDirectory ?? tmpdir(),
    emit,
  };
  const handling = new Set<Promise<void>>();
  const server = createServer((request, response) => {
    // Kept here: a request destroyed while its body is read no longer has its socket, nor a
    // socket its peer's address.
    const { socket } = request;
    const from = socket.remoteAddress;
    const handled = handle(context, request, response).catch((error: unknown) =>
      answerFailure(request, response, { socket, from }, error, emit),
    );
    handling.add(handled);
    void handled.finally(() => handling.delete(handled));
  });
  server.maxConnections = limits.maxConnections;
  let refusedConnections = 0;
  server.on('drop', () => {
    refusedConnections++;
    // Said for the 1st, 10th, 100th… refused: a flood of connections does not flood the log.
    if (!/^10*$/.test(String(refusedConnections))) return;
    emit({
      kind: 'warning',
      message: `${refusedConnections === 1 ? 'A connection was' : `${refusedConnections} connections were`} closed as soon as ${refusedConnections === 1 ? 'it' : 'they'} came: the server keeps at most ${limits.maxConnections} open at once. A client that opens many should reuse them (keep-alive) or open fewer; if it is not one of your clients, something on this machine or network is flooding the server.`,
    });
  });

  try {
    await listen(server, options.port ?? DEFAULT_PORT, options.host ?? DEFAULT_HOST);
  } catch (error) {
    await Promise.all([agents.close(), executions.close()]);
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    host,
    port: address.port,
    apiKey,
    apiKeyGenerated: options.apiKey === undefined,
    directory,
    limits,
    agents: () => agents.list(),
    rescan: () => agents.rescan(),
    heldInputBytes: () => executions.heldInputBytes(),
    close: () =>
      (closing ??= (async () => {
        const closed = new Promise<void>((done) => server.close(() => done()));
        server.closeIdleConnections();
        await Promise.all([agents.close(), executions.close()]);
        server.closeAllConnections();
        await Promise.allSettled([...handling]);
        await closed;
      })()),
  };
}

/** Checks the Host and the key, then answers the route. */
async function handle(context: ServerContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
  checkHost(context.allowedHosts, context.allowHostHint, request);
  authorize(context, request);
  const route = matchRoute(request.method ?? 'GET', request.url ?? '/');
  switch (route.kind) {
    case 'execute':
      return handleExecute(context, request, response, route);
    case 'execute-multipart':
      return handleExecuteMultipart(context, request, response, route);
    case 'status':
      return handleStatus(context, response, route);
    case 'exchanges':
      return handleExchanges(context, response, route);
  }
}

/**
 * A request must name the server's own address: a web page that reached it through a name of its
 * own (DNS rebinding) sends that name. The authority of an absolute request target is checked too,
 * as HTTP reads it before the Host header.
 */
function checkHost(allowedHosts: AllowedHosts, allowHostHint: string | undefined, request: IncomingMessage): void {
  const { localAddress, localPort } = request.socket;
  const target = request.url ?? '/';
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? authorityOf(target) : undefined;
  // HTTP/1.1 requires Host (Node refuses a request without it); an HTTP/1.0 client may leave it out.
  const named = [request.headers.host, absolute].filter((host): host is string => host !== undefined);
  const wrong = named.find((host) => !allowedHosts.allows(host, localAddress));
  if (wrong === undefined) return;
  const address = localAddress?.includes(':') ? `[${localAddress}]` : (localAddress ?? '127.0.0.1');
  throw new HttpError(
    421,
    'wrong-host',
    `This server answers only requests whose Host header names ${allowedHosts.described}; this one names ${quotedHost(wrong)}. A web page may be trying to reach the server through a name of its own (DNS rebinding). Connect to http://${address}:${localPort ?? ''}${allowHostHint !== undefined ? `, or ${allowHostHint}` : ''}.`,
  );
}

/** The host and port of an absolute request target ("" when it has none, which no Host matches). */
function authorityOf(target: string): string {
  try {
    return new URL(target).host;
  } catch {
    return '';
  }
}

/**
 * Every request needs the key. An address that keeps sending a wrong one has its wrong keys
 * answered 429 for longer each time; a request without a key (from any program on the machine)
 * is not counted, and the right key always passes, so no one can lock the real client out.
 */
function authorize({ apiKey, keyFailures, limits, emit }: ServerContext, request: IncomingMessage): void {
  const { authorization } = request.headers;
  if (hasBearerKey(authorization, apiKey)) return;
  const unauthorized = new HttpError(
    401,
    'unauthorized',
    'Missing or wrong API key: send "Authorization: Bearer <key>" with the key the local agent server printed when it started.',
    {},
    { 'www-authenticate': 'Bearer realm="agent-workflows"' },
  );
  // Only a Bearer token can be a guess of the key.
  if (bearerToken(authorization) === undefined) throw unauthorized;
  const address = request.socket.remoteAddress ?? '';
  const waitMs = keyFailures.waitMs(address);
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    throw new HttpError(
      429,
      'too-many-key-failures',
      `Too many requests with a wrong API key from ${address}: wait ${seconds} s before trying again, and send "Authorization: Bearer <key>" with the key the local agent server printed when it started.`,
      {},
      { 'retry-after': String(seconds) },
    );
  }
  keyFailures.failed(address);
  if (keyFailures.count(address) === limits.maxKeyFailures) {
    emit({
      kind: 'warning',
      message: `${limits.maxKeyFailures} requests with a wrong API key from ${address} within a minute: its wrong keys are answered 429 for a while (the right key is still let in). If this is not one of your clients, something on this machine or network is guessing the key.`,
    });
  }
  throw unauthorized;
}

/** POST …/execute: the inputs as JSON. */
async function handleExecute(context: ServerContext, request: IncomingMessage, response: ServerResponse, route: AgentRoute): Promise<void> {
  const served = servedAgent(context.agents, route.account, route.agent);
  if (/^multipart\//i.test(request.headers['content-type'] ?? '')) {
    throw new HttpError(
      415,
      'unsupported-media-type',
      `Multipart requests go to /api/${route.account}/agent/${route.agent}/execute/multipart.`,
    );
  }
  // As an upload's, the body's bytes count against the inputs held in flight as they arrive: each
  // request holds at most 1 MiB, and all of them together no more than the inputs may.
  const reservation = context.executions.reserveBody('this request body');
  try {
    const body = await readBody(request, context.limits.maxJsonBytes, (bytes) => reservation.take(bytes));
    const payload = parsePayload(body.toString('utf8'), 'the request body');
    const executionId = startExecution(context, served, { values: payload.inputs }, { body: reservation });
    sendJson(response, 200, { status: 'ok', executionId });
  } finally {
    // Nothing once the execution took the bytes over.
    reservation.release();
  }
}

/** POST …/execute/multipart: the JSON in a "payload" part, then one part per file input; the files are removed once the execution ends. */
async function handleExecuteMultipart(
  context: ServerContext,
  request: IncomingMessage,
  response: ServerResponse,
  route: AgentRoute,
): Promise<void> {
  const { limits } = context;
  const served = servedAgent(context.agents, route.account, route.agent);
  if (!/^multipart\/form-data\s*;/i.test(request.headers['content-type'] ?? '')) {
    throw new HttpError(
      415,
      'unsupported-media-type',
      'Send multipart/form-data with a "payload" part (the JSON) and one part per file input, named as the input.',
    );
  }
  // The upload's bytes count against the inputs held in flight as they arrive; the execution it
  // starts takes them over, else they are given back once its files are removed.
  const reservation = context.executions.reserveBody();
  const upload = await receiveUpload(
    request,
    { maxFileBytes: limits.maxFileBytes, maxFiles: limits.maxFiles, maxPayloadBytes: limits.maxJsonBytes },
    context.uploadRoot,
    reservation,
  ).catch((error: unknown) => {
    // Its folder is removed already.
    reservation.release();
    throw error;
  });
  const cleanup = (): Promise<void> => rm(upload.directory, { recursive: true, force: true });
  try {
    const payload = parsePayload(upload.payload ?? '', 'the "payload" part');
    const executionId = startExecution(context, served, { values: payload.inputs, files: upload.files }, { cleanup, body: reservation });
    sendJson(response, 200, { status: 'ok', executionId });
  } catch (error) {
    await cleanup().finally(() => reservation.release());
    throw error;
  }
}

/** GET …/status: the execution's status answer, or why it is not kept (any more). */
function handleStatus({ executions, limits }: ServerContext, response: ServerResponse, route: StatusRoute): void {
  const found = executionOf(route, limits, (id) => executions.read(id));
  if ('removed' in found)
    throw new HttpError(410, 'execution-removed', `Execution "${route.executionId}" is no longer kept. ${found.removed}`);
  sendJsonText(response, 200, found.answer);
}

/**
 * GET …/exchanges: each API node's request and answer (secrets by name), as the status answer of
 * the service does not carry them; or why they are not kept.
 */
function handleExchanges({ executions, limits }: ServerContext, response: ServerResponse, route: StatusRoute): void {
  const found = executionOf(route, limits, (id) => executions.readExchanges(id));
  if ('notKept' in found)
    throw new HttpError(410, 'exchanges-not-kept', `The exchanges of execution "${route.executionId}" are not kept. ${found.notKept}`);
  sendJsonText(response, 200, found.answer);
}

/** What `read` keeps of the execution a route names (ids are UUIDs, in any case), in its account; else a 404 that says why. */
function executionOf<T extends { readonly account: string }>(
  route: StatusRoute,
  limits: ServerContext['limits'],
  read: (executionId: string) => T | undefined,
): T {
  const found = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(route.executionId)
    ? read(route.executionId.toLowerCase())
    : undefined;
  if (!found || found.account !== route.account) {
    throw new HttpError(
      404,
      'unknown-execution',
      `No execution "${route.executionId}" in account "${route.account}". Executions are kept for ${Math.round(limits.retentionMs / 60_000)} minutes after they end, and not across server restarts.`,
    );
  }
  return found;
}

/** The agent a request names, if it can run; else an answer that says what is served. */
function servedAgent(agents: AgentDirectory, account: string, agent: string): RunnableAgent {
  const served = agents.find(account, agent);
  if (!served) {
    const list = agents.list().filter((entry) => entry.agent !== '');
    const here = list.filter((entry) => entry.account === account).map((entry) => entry.agent);
    const elsewhere = list.find((entry) => entry.agent === agent);
    throw new HttpError(
      404,
      'unknown-agent',
      `No agent "${agent}" in account "${account}".${elsewhere ? ` ${elsewhere.file} is served as ${elsewhere.account}/${elsewhere.agent}.` : ''}${here.length ? ` Agents in "${account}": ${here.join(', ')}.` : ` This server serves ${list.length ? list.map((entry) => `${entry.account}/${entry.agent}`).join(', ') : 'no agents'} (the agent path is the file name without .agent.yaml).`}`,
    );
  }
  if (!served.loaded) throw new HttpError(422, 'agent-has-errors', served.error ?? `${served.file} cannot run.`, { file: served.file });
  return served as RunnableAgent;
}

/** Checks the inputs and starts (or queues) the execution; returns its id. */
function startExecution(
  { limits, executions }: ServerContext,
  served: RunnableAgent,
  given: GivenInputs<unknown, GivenFile>,
  received?: Pick<StartRequest, 'cleanup' | 'body'>,
): string {
  const { maxProblemsListed } = limits;
  // Only the first unknown names are looked at: a body naming thousands of them would otherwise
  // cost a suggestion each and make an answer larger than the request.
  let values = given.values ?? {};
  let unknownLeftOut = 0;
  const declared = served.loaded.model.inputs;
  if (Object.keys(values).filter((name) => !declared.has(name)).length > maxProblemsListed) {
    const kept: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    let unknownKept = 0;
    for (const [name, value] of Object.entries(values)) {
      if (declared.has(name) || unknownKept++ < maxProblemsListed) kept[name] = value;
      else unknownLeftOut++;
    }
    values = kept;
  }
  let inputs;
  try {
    inputs = resolveInputs(served.loaded.model, { ...given, values });
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    const unknownOnly = error.problems.every((problem) => problem.startsWith('The agent has no input'));
    const listed = error.problems.slice(0, maxProblemsListed);
    const more = error.problems.length - listed.length + unknownLeftOut;
    throw new HttpError(
      400,
      unknownOnly ? 'unknown-input' : 'invalid-inputs',
      `${listed.join(' ')}${more > 0 ? ` …and ${more} more problems.` : ''}`,
      { problems: listed, ...(more > 0 ? { moreProblems: more } : {}) },
    );
  }
  return executions.start({ account: served.account, agent: served.agent, loaded: served.loaded, inputs, ...received });
}

/** Answers a request that failed: its HttpError, or 500 for anything else; nothing to a client that left. */
function answerFailure(
  request: IncomingMessage,
  response: ServerResponse,
  { socket, from }: { readonly socket: Socket; readonly from: string | undefined },
  error: unknown,
  emit: (event: ServerEvent) => void,
): void {
  if (!request.complete && (socket.destroyed || (error as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET')) {
    // The client went away mid-body: nothing to answer, and nothing went wrong here.
    emit({
      kind: 'warning',
      message: `Aborted request: ${request.method ?? '?'} ${shortPath(request.url)} from ${from ?? 'an unknown address'}; the client closed the connection before sending the whole body.`,
    });
    response.destroy();
    return;
  }
  const httpError = error instanceof HttpError ? error : toHttpError(error, emit);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  // A body not read to its end would be taken for the next request on this connection.
  sendError(response, httpError, request.complete ? {} : { connection: 'close' });
  if (!request.complete) request.resume();
}

interface AgentRoute {
  readonly kind: 'execute' | 'execute-multipart';
  readonly account: string;
  readonly agent: string;
}

interface StatusRoute {
  readonly kind: 'status' | 'exchanges';
  readonly account: string;
  readonly executionId: string;
}

type Route = AgentRoute | StatusRoute;

function matchRoute(method: string, rawUrl: string): Route {
  // A request target is a path with an optional query (absolute URLs are for proxies).
  const pathname = rawUrl.startsWith('/') ? rawUrl.split(/[?#]/, 1)[0]! : new URL(rawUrl, 'http://localhost').pathname;
  let segments: string[];
  try {
    segments = pathname
      .split('/')
      .slice(1)
      .map((segment) => decodeURIComponent(segment));
  } catch {
    throw new HttpError(400, 'bad-request', `The path ${pathname} is not validly percent-encoded.`);
  }
  const [api, account, agentWord, target, action, extra, ...rest] = segments;
  const allow = (allowed: string): void => {
    if (method !== allowed) throw new HttpError(405, 'method-not-allowed', `${pathname} answers ${allowed} only.`, {}, { allow: allowed });
  };
  if (api === 'api' && account && agentWord === 'agent' && target && rest.length === 0) {
    if (action === 'execute' && extra === undefined) {
      allow('POST');
      return { kind: 'execute', account, agent: target };
    }
    if (action === 'execute' && extra === 'multipart') {
      allow('POST');
      return { kind: 'execute-multipart', account, agent: target };
    }
    if ((action === 'status' || action === 'exchanges') && extra === undefined) {
      allow('GET');
      return { kind: action, account, executionId: target };
    }
  }
  throw new HttpError(
    404,
    'no-route',
    `Nothing at ${method} ${pathname}. This server answers POST /api/{account}/agent/{agent}/execute, POST /api/{account}/agent/{agent}/execute/multipart, GET /api/{account}/agent/{executionId}/status and GET /api/{account}/agent/{executionId}/exchanges.`,
  );
}

/** A request path for a log line: never more than a line's worth. */
function shortPath(url: string | undefined): string {
  const path = (url ?? '/').split(/[?#]/, 1)[0]!;
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

function toHttpError(error: unknown, emit: (event: ServerEvent) => void): HttpError {
  emit({ kind: 'warning', message: `Internal error while answering a request: ${errorDetail(error)}` });
  return new HttpError(500, 'internal', 'The local agent server failed to answer this request; see its output for details.');
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      const message =
        error.code === 'EADDRINUSE'
          ? `Port ${port} on ${host} is already in use. Choose another port, or stop what uses it.`
          : error.code === 'EADDRNOTAVAIL'
            ? `${host} is not an address of this machine; use 127.0.0.1 (the default) or an address it has.`
            : `Cannot listen on ${host}:${port}: ${error.message}`;
      reject(Object.assign(new Error(message, { cause: error }), { code: error.code }));
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolvePromise();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}
