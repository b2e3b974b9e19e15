// A real Language Server Protocol client for tests and benchmarks: vscode-languageserver-protocol's
// JSON-RPC connection over the standard input and output of `agent-workflows lsp --stdio` (the built
// dist/cli.js), or over in-memory streams to a server in this process. Diagnostics and messages are
// waited for as they arrive (no sleeps): `diagnostics(uri, accept)` resolves with the first
// publication for the document that `accept` takes, including one that came before the call.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  createProtocolConnection,
  PublishDiagnosticsNotification,
  ShowMessageNotification,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import type { Diagnostic, InitializeParams, ProtocolConnection, PublishDiagnosticsParams } from 'vscode-languageserver-protocol/node';
import { createConnection } from 'vscode-languageserver/node';
import { serveLanguage } from '../../src/lsp/languageServer';
import type { LanguageServerOptions } from '../../src/lsp/languageServer';
import { repoRoot } from './paths';

export interface LspClient {
  readonly connection: ProtocolConnection;
  /** Every publication of diagnostics so far, in order. */
  readonly published: PublishDiagnosticsParams[];
  /** The capabilities the server registered (client/registerCapability), by method. */
  readonly registrations: { method: string; registerOptions?: unknown }[];
  /** Every window/showMessage so far. */
  readonly messages: { type: number; message: string }[];
  /** The first publication for `uri` that `accept` takes (the latest one first among those already received). */
  diagnostics(
    uri: string,
    accept?: (diagnostics: readonly Diagnostic[], version: number | undefined) => boolean,
  ): Promise<PublishDiagnosticsParams>;
  /** The first window/showMessage that `accept` takes. */
  message(accept: (message: string) => boolean): Promise<string>;
  initialize(params?: Partial<InitializeParams>): Promise<void>;
  open(uri: string, text: string, version?: number): Promise<void>;
  change(uri: string, text: string, version: number): Promise<void>;
  close(uri: string): Promise<void>;
  /** Stops the connection (and the server process, if one was spawned). */
  dispose(): void;
}

interface Waiter<T> {
  readonly accept: (value: T) => boolean;
  readonly resolve: (value: T) => void;
}

function clientOver(connection: ProtocolConnection, onDispose: () => void): LspClient {
  const published: PublishDiagnosticsParams[] = [];
  const messages: { type: number; message: string }[] = [];
  const registrations: { method: string; registerOptions?: unknown }[] = [];
  const diagnosticWaiters: Waiter<PublishDiagnosticsParams>[] = [];
  const messageWaiters: Waiter<string>[] = [];
  const notify = <T>(waiters: Waiter<T>[], value: T): void => {
    for (const waiter of [...waiters])
      if (waiter.accept(value)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(value);
      }
  };
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
    published.push(params);
    notify(diagnosticWaiters, params);
  });
  connection.onNotification(ShowMessageNotification.type, (params) => {
    messages.push(params);
    notify(messageWaiters, params.message);
  });
  // The server asks to watch files; the test client agrees to anything it asks.
  connection.onRequest('client/registerCapability', (params: { registrations: { method: string; registerOptions?: unknown }[] }) => {
    registrations.push(...params.registrations);
    return null;
  });
  connection.onRequest('window/workDoneProgress/create', () => null);
  connection.listen();
  return {
    connection,
    published,
    messages,
    registrations,
    diagnostics(uri, accept = () => true) {
      const match = (params: PublishDiagnosticsParams): boolean => params.uri === uri && accept(params.diagnostics, params.version);
      const latest = [...published].reverse().find((params) => params.uri === uri);
      if (latest && match(latest)) return Promise.resolve(latest);
      return new Promise((resolve) => diagnosticWaiters.push({ accept: match, resolve }));
    },
    message(accept) {
      const seen = messages.find((message) => accept(message.message));
      if (seen) return Promise.resolve(seen.message);
      return new Promise((resolve) => messageWaiters.push({ accept, resolve }));
    },
    async initialize(params = {}) {
      await connection.sendRequest('initialize', {
        processId: null,
        rootUri: null,
        capabilities: {
          textDocument: { completion: { completionItem: { snippetSupport: true } } },
          workspace: { didChangeWatchedFiles: { dynamicRegistration: true } },
        },
        ...params,
      });
      await connection.sendNotification('initialized', {});
    },
    open: (uri, text, version = 1) =>
      connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version, text } }),
    change: (uri, text, version) =>
      connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] }),
    close: (uri) => connection.sendNotification('textDocument/didClose', { textDocument: { uri } }),
    dispose() {
      connection.dispose();
      onDispose();
    },
  };
}

/** `node dist/cli.js lsp --stdio` and a client of it; `stderr()` is what the server printed there. */
export function spawnLanguageServer(
  cwd = repoRoot,
  nodeArgs: readonly string[] = [],
): LspClient & {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;
  stderr(): string;
} {
  const child = spawn(process.execPath, [...nodeArgs, join(repoRoot, 'dist', 'cli.js'), 'lsp', '--stdio'], {
    cwd,
    env: { PATH: process.env.PATH ?? '' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const client = clientOver(connection, () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return { ...client, child, exited, stderr: () => stderr };
}

/** A server in this process (its own clock, say) and a client of it, over in-memory streams; never send it `exit`. */
export function inProcessLanguageServer(options: LanguageServerOptions = {}): LspClient {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const server = createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
  const served = serveLanguage(server, options);
  server.listen();
  const connection = createProtocolConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  return clientOver(connection, () => {
    served.dispose();
    server.dispose();
    toServer.end();
    toClient.end();
  });
}
