// The API the server benchmark's agents call, in a process of its own so the agent server is
// measured alone: answers every request with JSON describing it, after `?delay=` milliseconds, or
// with `&jitter=` after a random time that much either side of it, as a real API varies.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const answer = JSON.stringify({ method: request.method, path: url.pathname, body: Buffer.concat(chunks).toString('utf8') });
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer)) });
      response.end(answer);
    }, delayOf(url.searchParams));
  });
});
function delayOf(query: URLSearchParams): number {
  const delay = Number(query.get('delay') ?? 0);
  const jitter = Number(query.get('jitter') ?? 0);
  return Math.max(0, delay + (Math.random() * 2 - 1) * jitter);
}

server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
