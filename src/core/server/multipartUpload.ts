// Receives an …/execute/multipart request with busboy: the "payload" part (the JSON) and one file
// part per file input, each streamed to a fresh temporary folder so no file is held in memory.
// Limits on file size and on the number of parts, and the bytes counted against the server's
// budget as they arrive (refused as soon as they would pass it); on any failure the folder is removed.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { GivenFile } from '../engine/inputs';
import { HttpError } from './httpErrors';
import { formatBytes } from './requestBody';

export interface MultipartLimits {
  readonly maxFileBytes: number;
  readonly maxFiles: number;
  /** Size of the payload part (the JSON). */
  readonly maxPayloadBytes: number;
}

export interface ReceivedUpload {
  /** The payload part's text, when there was one. */
  readonly payload?: string;
  /** Files by input name. */
  readonly files: Readonly<Record<string, GivenFile>>;
  /** The temporary folder holding the files; remove it when the execution ends. */
  readonly directory: string;
}

/** Where the bytes of an upload are counted as they arrive. */
export interface UploadBudget {
  /** Counts `bytes` more; answers why not (counting nothing) when the server cannot hold them. */
  take(bytes: number): HttpError | undefined;
}

/** Field parts besides "payload" are refused, so this bounds only mistakes. */
const MAX_FIELDS = 4;

export async function receiveUpload(
  request: IncomingMessage,
  limits: MultipartLimits,
  tempRoot: string,
  budget: UploadBudget,
): Promise<ReceivedUpload> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: request.headers,
      defParamCharset: 'utf8',
      // busboy cuts a part off when it reaches the size limit: one byte more lets exactly the limit through.
      limits: {
        fileSize: limits.maxFileBytes + 1,
        files: limits.maxFiles,
        fields: MAX_FIELDS,
        fieldSize: limits.maxPayloadBytes + 1,
        parts: limits.maxFiles + MAX_FIELDS,
      },
    });
  } catch (error) {
    throw new HttpError(400, 'bad-multipart', `The request is not multipart/form-data with a boundary (${(error as Error).message}).`);
  }
  const directory = await mkdtemp(join(tempRoot, 'agent-workflows-upload-'));
  // Part names come from the client: no inherited property may pass for a file.
  const files: Record<string, GivenFile> = Object.create(null) as Record<string, GivenFile>;
  let payload: string | undefined;
  let failure: HttpError | undefined;
  let fileCount = 0;
  const writes: Promise<void>[] = [];
  /** Stops the files still being written. */
  const open = new Set<() => void>();

  const received = new Promise<void>((resolve) => {
    const fail = (error: HttpError): void => {
      if (failure) return;
      failure = error;
      // Stop parsing and writing; the rest of the body is read and dropped so the client can see the answer.
      request.unpipe(parser);
      request.resume();
      for (const stop of open) stop();
      resolve();
    };
    parser.on('field', (name, value, info) => {
      if (failure) return;
      if (name !== 'payload')
        fail(
          new HttpError(
            400,
            'bad-multipart',
            `Unexpected part "${name}": send the inputs as JSON in a part named "payload", and one file part per file input, named as the input.`,
          ),
        );
      else if (info.valueTruncated)
        fail(new HttpError(413, 'too-large', `The payload part is larger than ${formatBytes(limits.maxPayloadBytes)}.`));
      else if (payload !== undefined) fail(new HttpError(400, 'bad-multipart', 'The request has two "payload" parts; send one.'));
      else {
        const refusal = budget.take(Buffer.byteLength(value));
        if (refusal) fail(refusal);
        else payload = value;
      }
    });
    parser.on('file', (name, stream, info) => {
      if (failure) {
        stream.resume();
        return;
      }
      if (Object.hasOwn(files, name) || name === 'payload') {
        stream.resume();
        fail(
          new HttpError(
            400,
            'bad-multipart',
            name === 'payload'
              ? 'The "payload" part must be JSON text, not a file.'
              : `The request has two files for input "${name}"; a file input takes one.`,
          ),
        );
        return;
      }
      // The name on disk is a counter: the sender's file name never becomes a path.
      const path = join(directory, String(++fileCount));
      let size = 0;
      // Counted before the file's writer sees the chunk (it listens after this): a refused chunk
      // stops the writer first and is never written.
      stream.on('data', (chunk: Buffer) => {
        if (failure) return;
        const refusal = budget.take(chunk.length);
        if (refusal) fail(refusal);
        else size += chunk.length;
      });
      stream.on('limit', () =>
        fail(
          new HttpError(
            413,
            'too-large',
            `The file for input "${name}" is larger than ${formatBytes(limits.maxFileBytes)}, the most this server accepts.`,
          ),
        ),
      );
      const file: GivenFile = { name: baseName(info.filename) || name, size: 0, type: info.mimeType || 'application/octet-stream', path };
      files[name] = file;
      const sink = createWriteStream(path, { flags: 'wx' });
      // Destroying the file side settles the pipeline in every state busboy may be in.
      const stop = (): void => {
        sink.destroy();
        stream.resume();
      };
      open.add(stop);
      writes.push(
        pipeline(stream, sink).then(
          () => {
            open.delete(stop);
            files[name] = { ...file, size };
          },
          (error: unknown) =>
            fail(new HttpError(500, 'internal', `The file for input "${name}" could not be stored: ${(error as Error).message}.`)),
        ),
      );
    });
    const tooMany = (): void =>
      fail(new HttpError(413, 'too-large', `The request has too many parts: at most ${limits.maxFiles} files and one payload part.`));
    parser.on('filesLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('error', (error) =>
      fail(new HttpError(400, 'bad-multipart', `The multipart body cannot be read: ${(error as Error).message}.`)),
    );
    parser.on('close', () => resolve());
    const gone = (): void => {
      if (!request.complete) fail(new HttpError(400, 'bad-multipart', 'The client stopped sending the request.'));
    };
    request.on('aborted', gone);
    request.on('close', gone);
    // The client may have gone while the folder was made, before these listeners: nothing would end the wait.
    if (request.destroyed) gone();
    request.pipe(parser);
  });

  await received;
  await Promise.allSettled(writes);
  if (failure) {
    await rm(directory, { recursive: true, force: true });
    throw failure;
  }
  return { ...(payload !== undefined ? { payload } : {}), files, directory };
}

/** The last part of a file name as sent (browsers may send C:\\path\\name). */
function baseName(filename: string | undefined): string {
  return (filename ?? '').split(/[\\/]/).pop()!.trim();
}
