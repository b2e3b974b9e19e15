// Reading request bodies with a size cap, and the execute payload {"inputs": {…}, "stream": false}.
import { JsonTooDeepError, parseJson } from '../json';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './httpErrors';

/**
 * The body, at most `limit` bytes. `count` is told each piece as it arrives, before it is kept
 * (bytes held across requests), and answers the error to stop with instead.
 */
export async function readBody(
  request: IncomingMessage,
  limit: number,
  count: (bytes: number) => HttpError | undefined = () => undefined,
): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    const refused = count(chunk.length);
    if (refused) throw refused;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): HttpError {
  return new HttpError(
    413,
    'too-large',
    `The request body is larger than ${formatBytes(limit)}, the most this server accepts. Send files with …/execute/multipart.`,
  );
}

export interface ExecutePayload {
  readonly inputs: Readonly<Record<string, unknown>>;
}

/**
 * Parses and checks the JSON of an execute request (or of a multipart request's payload part);
 * `where` names it in lower case, e.g. 'the request body'. A UTF-8 byte order mark is skipped.
 */
export function parsePayload(text: string, where: string): ExecutePayload {
  const json = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const subject = where.charAt(0).toUpperCase() + where.slice(1);
  if (json.trim() === '') return { inputs: {} };
  let value: unknown;
  try {
    value = parseJson(json);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw new HttpError(400, 'bad-json', `${subject} ${error.message}.`);
    throw new HttpError(
      400,
      'bad-json',
      `${subject} is not valid JSON (${(error as Error).message}). Send {"inputs": {…}, "stream": false}.`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'bad-json', `${subject} must be a JSON object: {"inputs": {…}, "stream": false}.`);
  }
  const { inputs, stream } = value as { inputs?: unknown; stream?: unknown };
  if (inputs !== undefined && inputs !== null && (typeof inputs !== 'object' || Array.isArray(inputs))) {
    throw new HttpError(
      400,
      'bad-request',
      `"inputs" in ${where} must be an object of input names and values, e.g. {"inputs": {"ticket": "…"}}.`,
    );
  }
  if (stream !== undefined && stream !== false) {
    throw new HttpError(400, 'bad-request', `The local agent server does not stream results; send "stream": false and poll …/status.`);
  }
  return { inputs: (inputs ?? {}) as Record<string, unknown> };
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
