// A server for the upload benchmark, run as its own process so the benchmark measures only the
// client's memory: it hashes every request body it receives and answers like the agent service.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((request, response) => {
  const hash = createHash('sha256');
  let bytes = 0;
  request.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    hash.update(chunk);
  });
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: 'ok', executionId: '3f2b9c1e-8a4d-4c3e-9f1a-2b6c7d8e9f01', bytes, sha256: hash.digest('hex') }));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
