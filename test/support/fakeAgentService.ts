// A stand-in for the cloud agent service on 127.0.0.1, speaking its HTTP interface, for tests of
// the client: it records what arrives (multipart parsed with busboy) and answers as told.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import { json, startServer } from './httpServer';
import type { TestServer } from './httpServer';

export interface ReceivedPart {
  readonly name: string;
  readonly filename?: string;
  readonly mimeType?: string;
  readonly data: Buffer;
}

export interface ReceivedStart {
  readonly path: string;
  readonly authorization?: string;
  readonly contentType?: string;
  /** JSON body, or the payload part of a multipart start. */
  readonly payload: unknown;
  readonly parts: readonly ReceivedPart[];
}

export interface FakeService {
  readonly url: string;
  readonly server: TestServer;
  readonly starts: ReceivedStart[];
  /** Every status request path, in order. */
  readonly statusRequests: string[];
  /** What the status route answers, per request number (0-based); defaults to finished. */
  statusAnswer: (request: number, executionId: string, response: ServerResponse) => void;
  /** What the start route answers; defaults to {status: ok, executionId}. */
  startAnswer: (response: ServerResponse, executionId: string) => void;
  apiKey: string;
  close(): Promise<void>;
}

export async function startFakeService(apiKey = 'test-key'): Promise<FakeService> {
  const service: Partial<FakeService> & { starts: ReceivedStart[]; statusRequests: string[] } = {
    starts: [],
    statusRequests: [],
    apiKey,
    statusAnswer: (_n, _id, response) => json(response, 200, { status: 'finished', outputs: { ok: true } }),
    startAnswer: (response, executionId) => json(response, 200, { status: 'ok', executionId }),
  };
  const handle = async (request: IncomingMessage, response: ServerResponse, body: Buffer): Promise<void> => {
    const url = request.url ?? '';
    if (request.headers.authorization !== `Bearer ${service.apiKey}`) {
      json(response, 401, { error: 'invalid API key' });
      return;
    }
    if (request.method === 'POST' && /\/execute(\/multipart)?$/.test(url)) {
      const parts = /\/multipart$/.test(url) ? await parseMultipart(request, body) : [];
      const payloadPart = parts.find((part) => part.name === 'payload');
      service.starts.push({
        path: url,
        ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
        ...(request.headers['content-type'] ? { contentType: request.headers['content-type'] } : {}),
        payload: payloadPart ? JSON.parse(payloadPart.data.toString('utf8')) : body.length ? JSON.parse(body.toString('utf8')) : undefined,
        parts,
      });
      service.startAnswer!(response, randomUUID());
      return;
    }
    if (request.method === 'GET' && /\/status$/.test(url)) {
      const n = service.statusRequests.length;
      service.statusRequests.push(url);
      const executionId = decodeURIComponent(url.split('/').slice(-2)[0] ?? '');
      service.statusAnswer!(n, executionId, response);
      return;
    }
    json(response, 404, { error: `no route ${request.method} ${url}` });
  };
  const server = await startServer((request, response, body) => handle(request, response, body));
  return Object.assign(service, { url: server.url, server, close: () => server.close() }) as FakeService;
}

function parseMultipart(request: IncomingMessage, body: Buffer): Promise<ReceivedPart[]> {
  return new Promise((resolve, reject) => {
    const parts: ReceivedPart[] = [];
    const parser = busboy({ headers: request.headers, defParamCharset: 'utf8' });
    parser.on('field', (name, value) => parts.push({ name, data: Buffer.from(value, 'utf8') }));
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => parts.push({ name, filename: info.filename, mimeType: info.mimeType, data: Buffer.concat(chunks) }));
    });
    parser.on('close', () => resolve(parts));
    parser.on('error', reject);
    parser.end(body);
  });
}
