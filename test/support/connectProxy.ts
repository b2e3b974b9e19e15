// A real CONNECT proxy on 127.0.0.1 for tests of proxy support: every tunnel goes to one local
// port, whatever host the client asked for, and what was asked is recorded.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

export interface Tunnel {
  /** host:port the client asked for. */
  readonly target: string;
  readonly headers: IncomingHttpHeaders;
}

export interface TestProxy {
  readonly url: string;
  readonly port: number;
  readonly tunnels: Tunnel[];
  close(): Promise<void>;
}

/**
 * A CONNECT proxy that opens every tunnel to 127.0.0.1:`port()`, whatever host was asked for, and
 * records what it was asked; `refuse` answers CONNECT with that status instead.
 */
export async function startConnectProxy(port: () => number, refuse?: number): Promise<TestProxy> {
  const tunnels: Tunnel[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_request, response) => {
    response.writeHead(405);
    response.end('only CONNECT');
  });
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push({ target: request.url ?? '', headers: request.headers });
    sockets.add(client);
    client.on('error', () => client.destroy());
    if (refuse !== undefined) {
      client.end(`HTTP/1.1 ${refuse} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const upstream = connect(port(), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${own}`,
    port: own,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
