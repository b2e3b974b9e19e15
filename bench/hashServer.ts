// A server for the upload benchmark, run as its own process so the benchmark measures only the
// client's memory. It parses every multipart start with busboy, hashes each file part as it streams
// in, and answers like the agent service; the status of an execution carries what arrived, so the
// benchmark can check that the client sent the file byte for byte, as curl did.
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';

export interface ReceivedFile {
  readonly filename: string;
  readonly mimeType: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface Received {
  /** Bytes of the whole request body, and what Content-Length announced. */
  readonly bodyBytes: number;
  readonly contentLength: number;
  readonly payload: string;
  readonly files: Readonly<Record<string, ReceivedFile>>;
}

const executions = new Map<string, Received>();

function answer(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

const server = createServer((request, response) => {
  const url = request.url ?? '';
  const status = /^\/api\/[^/]+\/agent\/([^/]+)\/status$/.exec(url);
  if (request.method === 'GET' && status) {
    const received = executions.get(decodeURIComponent(status[1]!));
    if (received) answer(response, 200, { status: 'finished', outputs: received });
    else answer(response, 404, { error: 'no such execution' });
    return;
  }
  if (request.method !== 'POST' || !url.endsWith('/execute/multipart')) {
    answer(response, 404, { error: `no route ${request.method} ${url}` });
    return;
  }
  let bodyBytes = 0;
  let payload = '';
  const files: Record<string, ReceivedFile> = {};
  const pending: Promise<void>[] = [];
  request.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
  const parser = busboy({ headers: request.headers, defParamCharset: 'utf8', limits: { fieldSize: 1024 * 1024 } });
  parser.on('field', (name, value) => {
    if (name === 'payload') payload = value;
  });
  parser.on('file', (name, stream, info) => {
    const hash = createHash('sha256');
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      hash.update(chunk);
    });
    pending.push(
      new Promise<void>((resolve) =>
        stream.on('end', () => {
          files[name] = { filename: info.filename, mimeType: info.mimeType, bytes, sha256: hash.digest('hex') };
          resolve();
        }),
      ),
    );
  });
  parser.on('error', (error: Error) => answer(response, 400, { error: error.message }));
  parser.on('close', () => {
    void Promise.all(pending).then(() => {
      const executionId = randomUUID();
      executions.set(executionId, { bodyBytes, contentLength: Number(request.headers['content-length'] ?? -1), payload, files });
      answer(response, 200, { status: 'ok', executionId });
    });
  });
  request.pipe(parser);
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
