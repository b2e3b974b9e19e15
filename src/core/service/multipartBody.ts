// A multipart/form-data body for execute/multipart, streamed from disk: the payload part holds the
// JSON, then one part per file input named as the input. The length is known before sending, so
// even a very large file is never held in memory.
import { randomBytes } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { FilePart } from '../inputs/inputValues';
import { mediaTypeOf } from '../inputs/mediaTypes';
import { ServiceError } from './serviceError';

export interface MultipartBody {
  readonly body: Readable;
  readonly contentType: string;
  readonly contentLength: number;
  /** Size of each file, by input name, as checked before sending. */
  readonly fileSizes: Readonly<Record<string, number>>;
}

/**
 * Encodes a name or filename for a Content-Disposition parameter as browsers do (WHATWG HTML):
 * quotes and line breaks percent-encoded, other characters sent as UTF-8. Nothing in it can end the
 * header or the parameter early.
 */
export function encodeDispositionParameter(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Checks every file before anything is sent: it must exist, be a regular file and be readable. */
export async function checkFiles(files: readonly FilePart[]): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const file of files) {
    let info;
    try {
      info = await stat(file.path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ServiceError(
        'config',
        code === 'ENOENT'
          ? `The file for input "${file.field}" does not exist: ${file.path}.`
          : `The file for input "${file.field}" cannot be read: ${file.path} (${code ?? String(error)}).`,
      );
    }
    if (info.isDirectory())
      throw new ServiceError('config', `The file for input "${file.field}" is a directory: ${file.path}. Give a file.`);
    if (!info.isFile()) throw new ServiceError('config', `The file for input "${file.field}" is not a regular file: ${file.path}.`);
    try {
      await access(file.path, constants.R_OK);
    } catch {
      throw new ServiceError('config', `The file for input "${file.field}" is not readable: ${file.path}. Check its permissions.`);
    }
    sizes[file.field] = info.size;
  }
  return sizes;
}

export async function buildMultipartBody(payload: unknown, files: readonly FilePart[]): Promise<MultipartBody> {
  const clash = files.find((file) => file.field === 'payload');
  if (clash) {
    throw new ServiceError(
      'config',
      'A file input named "payload" cannot be sent: the multipart start uses that name for the part with the JSON. Rename the input.',
    );
  }
  const fileSizes = await checkFiles(files);
  const boundary = `----AgentWorkflows${randomBytes(16).toString('hex')}`;
  const payloadPart = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="payload"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(payload)}\r\n`,
    'utf8',
  );
  const fileHeaders = files.map((file) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${encodeDispositionParameter(file.field)}"; filename="${encodeDispositionParameter(basename(file.path))}"\r\nContent-Type: ${file.type ?? mediaTypeOf(file.path)}\r\n\r\n`,
      'utf8',
    ),
  );
  const crlf = Buffer.from('\r\n');
  const closing = Buffer.from(`--${boundary}--\r\n`);
  const contentLength =
    payloadPart.length +
    fileHeaders.reduce((sum, header) => sum + header.length, 0) +
    files.reduce((sum, file) => sum + fileSizes[file.field]! + crlf.length, 0) +
    closing.length;

  async function* parts(): AsyncGenerator<Buffer> {
    yield payloadPart;
    for (const [index, file] of files.entries()) {
      yield fileHeaders[index]!;
      const size = fileSizes[file.field]!;
      let sent = 0;
      // Never more than the size measured up front: Content-Length was computed from it, so a file
      // that grows meanwhile must not overrun the body.
      if (size > 0) {
        for await (const chunk of createReadStream(file.path, { start: 0, end: size - 1, highWaterMark: 1024 * 1024 })) {
          sent += (chunk as Buffer).length;
          yield chunk as Buffer;
        }
      }
      if (sent !== size) {
        throw new ServiceError(
          'config',
          `The file for input "${file.field}" changed while it was being sent (${size} bytes expected, ${sent} read). Try again.`,
        );
      }
      yield crlf;
    }
    yield closing;
  }
  return {
    body: Readable.from(parts(), { objectMode: false }),
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength,
    fileSizes,
  };
}
