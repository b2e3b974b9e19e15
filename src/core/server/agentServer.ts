// The local agent server: the agent service's HTTP interface on node:http for the agents of a
// folder, run by the workflow engine.
//   POST /api/{account}/agent/{agent}/execute            {"inputs": {…}, "stream": false}
//   POST /api/{account}/agent/{agent}/execute/multipart  part "payload" (that JSON) + one part per file input
//   GET  /api/{account}/agent/{executionId}/status       running / finished with outputs / failed with the error
// Every request needs "Authorization: Bearer <key>".
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import type { EngineOptions } from '../engine/engine';
import { InputError, resolveInputs } from '../engine/inputs';
import type { GivenInputs } from '../engine/inputs';
import type { SecretResolver } from '../engine/secrets';
import { AgentDirectory } from './agentDirectory';
import type { DirectoryChange, ServedAgent } from './agentDirectory';
import { generateApiKey, hasBearerKey } from './apiKey';
import { ExecutionStore } from './executionStore';
import type { ExecutionView } from './executionStore';
import { HttpError, sendError, sendJson } from './httpErrors';
import { receiveUpload } from './multipartUpload';
import { parsePayload, readBody } from './requestBody';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';

export interface ServerLimits {
  /** Body of a JSON execute request, and the payload part of a multipart one. */
  readonly maxJsonBytes: number;
  readonly maxFileBytes: number;
  /** File parts of one multipart request. */
  readonly maxFiles: number;
  /** Executions running at once; more wait in a queue. */
  readonly maxRunning: number;
  readonly maxQueued: number;
  /** How long an ended execution can still be read. */
  readonly retentionMs: number;
  readonly maxRetained: number;
  /** Time limit of one execution. */
  readonly executionTimeoutMs: number;
}

export const SERVER_LIMITS: ServerLimits = {
  maxJsonBytes: 1024 * 1024,
  maxFileBytes: 100 * 1024 * 1024,
  maxFiles: 20,
  maxRunning: 64,
  maxQueued: 10_000,
  retentionMs: 60 * 60_000,
  maxRetained: 10_000,
  executionTimeoutMs: 10 * 60_000,
};

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
  /** Generated when not given (see AgentServer.apiKeyGenerated). */
  readonly apiKey?: string;
  readonly secrets?: SecretResolver;
  readonly secretHint?: (name: string) => string;
  readonly engine?: Pick<EngineOptions, 'concurrency' | 'nodeTimeoutMs' | 'maxResponseBytes' | 'followRedirects' | 'maxRedirects' | 'dispatcher'>;
  readonly limits?: Partial<ServerLimits>;
  /** Reload agents when files change (default true). */
  readonly watch?: boolean;
  /** Where uploads are stored while their execution runs (default: the system's temporary folder). */
  readonly uploadDirectory?: string;
  readonly onEvent?: (event: ServerEvent) => void;
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
  /** Stops accepting requests, cancels running executions, removes uploads, stops watching. */
  close(): Promise<void>;
}

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
  const store = new ExecutionStore({
    engine: {
      ...options.engine,
      ...(options.secrets ? { secrets: options.secrets } : {}),
      ...(options.secretHint ? { secretHint: options.secretHint } : {}),
      timeoutMs: limits.executionTimeoutMs,
    },
    maxRunning: limits.maxRunning,
    maxQueued: limits.maxQueued,
    retentionMs: limits.retentionMs,
    maxRetained: limits.maxRetained,
    onEnded: (execution) => emit({ kind: 'execution-ended', execution }),
  });
  const uploadRoot = options.uploadDirectory ?? tmpdir();
  const handling = new Set<Promise<void>>();

  const server = createServer((request, response) => {
    const handled = handle(request, response).catch((error: unknown) => {
      const httpError = error instanceof HttpError ? error : toHttpError(error, emit);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      // A body not read to its end would be taken for the next request on this connection.
      sendError(response, httpError, request.complete ? {} : { connection: 'close' });
      if (!request.complete) request.resume();
    });
    handling.add(handled);
    void handled.finally(() => handling.delete(handled));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!hasBearerKey(request.headers.authorization, apiKey)) {
      throw new HttpError(401, 'unauthorized', 'Missing or wrong API key: send "Authorization: Bearer <key>" with the key the local agent server printed when it started.', {}, { 'www-authenticate': 'Bearer realm="agent-workflows"' });
    }
    const route = matchRoute(request.method ?? 'GET', request.url ?? '/');
    switch (route.kind) {
      case 'execute': {
        const served = servedAgent(route.account, route.agent);
        if (/^multipart\//i.test(request.headers['content-type'] ?? '')) {
          throw new HttpError(415, 'unsupported-media-type', `Multipart requests go to /api/${route.account}/agent/${route.agent}/execute/multipart.`);
        }
        const payload = parsePayload((await readBody(request, limits.maxJsonBytes)).toString('utf8'), 'The request body');
        const executionId = start(served, { values: payload.inputs });
        sendJson(response, 200, { status: 'ok', executionId });
        return;
      }
      case 'execute-multipart': {
        const served = servedAgent(route.account, route.agent);
        if (!/^multipart\/form-data\s*;/i.test(request.headers['content-type'] ?? '')) {
          throw new HttpError(415, 'unsupported-media-type', 'Send multipart/form-data with a "payload" part (the JSON) and one part per file input, named as the input.');
        }
        const upload = await receiveUpload(request, { maxFileBytes: limits.maxFileBytes, maxFiles: limits.maxFiles, maxPayloadBytes: limits.maxJsonBytes }, uploadRoot);
        const cleanup = (): Promise<void> => rm(upload.directory, { recursive: true, force: true });
        try {
          const payload = parsePayload(upload.payload ?? '', 'The "payload" part');
          const executionId = start(served, { values: payload.inputs, files: upload.files }, cleanup);
          sendJson(response, 200, { status: 'ok', executionId });
        } catch (error) {
          await cleanup();
          throw error;
        }
        return;
      }
      case 'status': {
        const execution = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(route.executionId) ? store.get(route.executionId.toLowerCase()) : undefined;
        if (!execution || execution.account !== route.account) {
          throw new HttpError(404, 'unknown-execution', `No execution "${route.executionId}" in account "${route.account}". Executions are kept for ${Math.round(limits.retentionMs / 60_000)} minutes after they end, and not across server restarts.`);
        }
        sendJson(response, 200, execution);
        return;
      }
    }
  }

  function servedAgent(account: string, agent: string): ServedAgent & { loaded: NonNullable<ServedAgent['loaded']> } {
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
    return served as ServedAgent & { loaded: NonNullable<ServedAgent['loaded']> };
  }

  function start(served: ServedAgent & { loaded: NonNullable<ServedAgent['loaded']> }, given: GivenInputs, cleanup?: () => Promise<void>): string {
    let inputs;
    try {
      inputs = resolveInputs(served.loaded.model, given);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      const unknownOnly = error.problems.every((problem) => problem.startsWith('The agent has no input'));
      throw new HttpError(400, unknownOnly ? 'unknown-input' : 'invalid-inputs', error.problems.join(' '), { problems: error.problems });
    }
    return store.start({ account: served.account, agent: served.agent, loaded: served.loaded, inputs, ...(cleanup ? { cleanup } : {}) });
  }

  try {
    await listen(server, options.port ?? DEFAULT_PORT, options.host ?? DEFAULT_HOST);
  } catch (error) {
    await Promise.all([agents.close(), store.close()]);
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
    close: () =>
      (closing ??= (async () => {
        const closed = new Promise<void>((done) => server.close(() => done()));
        server.closeIdleConnections();
        await Promise.all([agents.close(), store.close()]);
        server.closeAllConnections();
        await Promise.allSettled([...handling]);
        await closed;
      })()),
  };
}

type Route =
  | { readonly kind: 'execute' | 'execute-multipart'; readonly account: string; readonly agent: string }
  | { readonly kind: 'status'; readonly account: string; readonly executionId: string };

function matchRoute(method: string, rawUrl: string): Route {
  // A request target is a path with an optional query (absolute URLs are for proxies).
  const pathname = rawUrl.startsWith('/') ? rawUrl.split(/[?#]/, 1)[0]! : new URL(rawUrl, 'http://localhost').pathname;
  let segments: string[];
  try {
    segments = pathname.split('/').slice(1).map((segment) => decodeURIComponent(segment));
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
    if (action === 'status' && extra === undefined) {
      allow('GET');
      return { kind: 'status', account, executionId: target };
    }
  }
  throw new HttpError(
    404,
    'no-route',
    `Nothing at ${method} ${pathname}. This server answers POST /api/{account}/agent/{agent}/execute, POST /api/{account}/agent/{agent}/execute/multipart and GET /api/{account}/agent/{executionId}/status.`,
  );
}

function toHttpError(error: unknown, emit: (event: ServerEvent) => void): HttpError {
  emit({ kind: 'warning', message: `Internal error while answering a request: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}` });
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
