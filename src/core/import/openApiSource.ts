// Where an OpenAPI document comes from: a file (bounded, a regular file only) or a URL (a timeout,
// a size cap, cancellable). Its text, or an error that says what went wrong.
import { readTextFile } from '../document/readTextFile';
import { httpRequest } from '../http/httpRequest';
import { NetworkError } from '../http/networkError';
import { MAX_OPENAPI_BYTES } from '../limits';
import { OpenApiError } from './openApi';

export async function readOpenApiSource(
  source: string,
  options: { readonly signal?: AbortSignal; readonly timeoutMs?: number } = {},
): Promise<string> {
  if (/^https?:\/\//i.test(source)) {
    try {
      const response = await httpRequest({
        method: 'GET',
        url: source,
        headers: { Accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' },
        timeoutMs: options.timeoutMs ?? 30_000,
        maxResponseBytes: MAX_OPENAPI_BYTES,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (response.status >= 400) throw new OpenApiError(`${source} answered ${response.status}: no document was read.`);
      return response.body.toString('utf8');
    } catch (error) {
      if (error instanceof NetworkError) throw new OpenApiError(`The document could not be read from ${error.url}: ${error.message}`);
      throw error;
    }
  }
  const read = await readTextFile(source, { maxBytes: MAX_OPENAPI_BYTES });
  if ('text' in read) return read.text;
  if (read.code === 'file-too-large')
    throw new OpenApiError(`${source} is larger than ${MAX_OPENAPI_BYTES / 1024 / 1024} MB, the most read for an import.`);
  if (read.code === 'not-text') throw new OpenApiError(`${source} is not UTF-8 text, so it is not a JSON or YAML document.`);
  throw new OpenApiError(`${source} cannot be read: ${read.error}`);
}
