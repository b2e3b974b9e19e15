// Real HTTP servers on 127.0.0.1 for tests: no mocked fetch.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export interface TestServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  readonly server: Server;
  close(): Promise<void>;
}

export type Handler = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void | Promise<void>;

/** Starts a server whose handler sees each request with its whole body read. */
export async function startServer(handler: Handler, options: { readBody?: boolean } = {}): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    const respond = (): void => {
      const body = Buffer.concat(chunks);
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      Promise.resolve(handler(request, response, body)).catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
    };
    if (options.readBody === false) {
      respond();
      return;
    }
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', respond);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function json(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(value));
}
