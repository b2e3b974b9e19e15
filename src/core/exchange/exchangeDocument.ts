// The text of the exchange view: a block of comment lines (the status, times, sizes, the response
// headers, the request as sent) above the body formatted by its type, so the editor's folding,
// search and copy work on it. The adapter shows it read-only; images and other bytes are shown or
// saved by the adapter, the text says what they are.
import { formatBytes, formatDuration } from '../executions/executionRecord';
import type { Exchange, ExchangeHeader, RecordedBody, RecordedResponse } from './exchange';
import { prettyJson } from './prettyJson';

export type ExchangeLanguage = 'jsonc' | 'xml' | 'html' | 'plaintext';

/** How the response body is shown. */
export type ShownBody = 'json' | 'raw-json' | 'text' | 'xml' | 'html' | 'image' | 'binary' | 'empty' | 'none';

export interface ExchangeDocument {
  readonly language: ExchangeLanguage;
  /** The file extension that makes the editor pick `language` (`.jsonc`…). */
  readonly extension: string;
  readonly text: string;
  readonly body: ShownBody;
  /** Only about the first JSON_LINES_SHOWN lines of the formatted body are shown; `wholeBody` shows all. */
  readonly startOnly: boolean;
}

export interface ExchangeDocumentOptions {
  /** The whole JSON body formatted, however long (Open Whole Body). */
  readonly wholeBody?: boolean;
}

/**
 * Lines of a formatted JSON body the view shows; the rest on request (Open Whole Body). A 10 MiB
 * body is about 860,000 lines: code-server took 8-16 s to show them, without folding (it folds no
 * document past 300,000 lines). Its first 20,000 lines show in 0.6-0.9 s and fold; 50,000 took
 * 1.4 s (`npm run bench -- exchange-view-editor`).
 */
export const JSON_LINES_SHOWN = 20_000;

/** Request bodies are shown in the header block up to this many characters. */
export const REQUEST_BODY_SHOWN_CHARS = 64 * 1024;

const EXTENSIONS: Record<ExchangeLanguage, string> = { jsonc: '.jsonc', xml: '.xml', html: '.html', plaintext: '.txt' };

const IMAGE_TYPES: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/bmp': '.bmp',
  'image/x-icon': '.ico',
  'image/vnd.microsoft.icon': '.ico',
};

/** The extension of an image the editor can show, for a response of that media type. */
export function imageExtension(contentType: string | undefined): string | undefined {
  return contentType ? IMAGE_TYPES[contentType] : undefined;
}

export function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && (contentType === 'application/json' || contentType.endsWith('+json') || contentType === 'text/json');
}

function isXmlType(contentType: string | undefined): boolean {
  return contentType !== undefined && (contentType === 'application/xml' || contentType === 'text/xml' || contentType.endsWith('+xml'));
}

/** A file name extension for a saved body of that media type. */
export function bodyFileExtension(contentType: string | undefined): string {
  const image = imageExtension(contentType);
  if (image) return image;
  if (isJsonType(contentType)) return '.json';
  if (isXmlType(contentType)) return '.xml';
  if (contentType === 'text/html') return '.html';
  if (contentType === 'application/pdf') return '.pdf';
  if (contentType?.startsWith('text/')) return '.txt';
  return '.bin';
}

/** "lookup 200", "lookup failed": the view's title. */
export function exchangeTitle(exchange: Exchange): string {
  return `${exchange.node} ${exchange.response ? String(exchange.response.status) : 'failed'}`;
}

/** The bytes of a body as kept (text in UTF-8), for Save Body. */
export function bodyBytes(body: RecordedBody): Uint8Array {
  if (body.kind === 'text') return Buffer.from(body.text, 'utf8');
  if (body.kind === 'binary') return Buffer.from(body.base64, 'base64');
  return new Uint8Array(0);
}

export function exchangeDocument(exchange: Exchange, options: ExchangeDocumentOptions = {}): ExchangeDocument {
  const response = exchange.response;
  const shown = response ? showBody(response, options.wholeBody === true) : { body: 'none' as const, text: '' };
  const language = languageOf(shown.body);
  const lines = [...summaryLines(exchange, shown), ''];
  const header = language === 'xml' || language === 'html' ? htmlComment(lines) : lineComments(lines);
  return {
    language,
    extension: EXTENSIONS[language],
    text: `${header}${shown.text}`,
    body: shown.body,
    startOnly: shown.start !== undefined,
  };
}

function languageOf(body: ShownBody): ExchangeLanguage {
  if (body === 'json') return 'jsonc';
  if (body === 'xml' || body === 'html') return body;
  return 'plaintext';
}

interface Shown {
  readonly body: ShownBody;
  readonly text: string;
  /** Said in the header block: why the body is shown as it is. */
  readonly note?: string;
  /** Only the start of the JSON body is shown: how many characters of it. */
  readonly start?: { readonly chars: number };
}

function showBody(response: RecordedResponse, wholeBody: boolean): Shown {
  const body = response.body;
  const type = response.contentType;
  if (body.kind === 'empty') return { body: 'empty', text: '' };
  if (body.kind === 'file') return { body: 'binary', text: '' };
  if (body.kind === 'binary') return { body: imageExtension(type) ? 'image' : 'binary', text: '' };
  const looksJson = type === undefined && /^\s*[[{]/.test(body.text.slice(0, 64));
  if (isJsonType(type) || looksJson) {
    const pretty = prettyJson(body.text, {
      partial: body.truncated,
      ...(wholeBody
        ? {}
        : {
            maxLines: JSON_LINES_SHOWN,
            cutNote: (shownChars: number) =>
              `… the rest of the body, ${formatBytes(Buffer.byteLength(body.text.slice(shownChars)))}, is not shown here. ${OPEN_WHOLE_BODY}`,
          }),
    });
    if (pretty.kind === 'pretty') {
      if (pretty.shownChars === undefined) return { body: 'json', text: pretty.text };
      return { body: 'json', text: pretty.text, start: { chars: pretty.shownChars } };
    }
    if (looksJson) return { body: 'text', text: body.text };
    const note =
      pretty.kind === 'too-large'
        ? `Shown as it came: pretty-printed it would take more than ${pretty.maxChars.toLocaleString('en-US')} characters.`
        : `Not valid JSON at character ${pretty.offset} (Content-Type says ${type ?? 'JSON'}): shown as it came.`;
    return { body: 'raw-json', text: body.text, note };
  }
  if (isXmlType(type)) return { body: 'xml', text: body.text };
  if (type === 'text/html') return { body: 'html', text: body.text };
  return { body: 'text', text: body.text };
}

/** What the header line and the note where a long body stops say (the view puts its action there). */
export const OPEN_WHOLE_BODY = 'Open Whole Body shows all of it.';

function summaryLines(exchange: Exchange, { body: shown, note, start }: Shown): string[] {
  const { request, response, timing, failure } = exchange;
  const lines: string[] = [];
  const time = `${formatDuration(timing.totalMs)}${timing.firstByteMs !== undefined ? ` (first byte ${formatDuration(timing.firstByteMs)})` : ''}`;
  if (response) {
    const body = response.body;
    const size =
      body.kind === 'empty' ? 'no body' : `${body.kind !== 'file' && body.sizeUnknown ? 'more than ' : ''}${formatBytes(body.size)}`;
    lines.push(`${response.status} ${response.statusText} · ${time} · ${size}`);
  } else {
    lines.push(`No answer · ${time}`);
  }
  if (failure) lines.push(...splitLines(failure.message));
  lines.push(`${request.method} ${request.url}`);
  lines.push(`Node ${exchange.node} · sent ${exchange.startedAt}`);
  if (exchange.redirects.length > 0) {
    lines.push('', 'Redirects');
    for (const redirect of exchange.redirects) {
      const dropped = redirect.droppedHeaders.length > 0 ? ` (not sent there: ${redirect.droppedHeaders.join(', ')})` : '';
      lines.push(`  ${redirect.status} ${redirect.from} -> ${redirect.to}${dropped}`);
    }
  }
  if (response) {
    lines.push('', 'Response headers');
    lines.push(...headerLines(response.headers));
    if (response.contentEncoding) lines.push(`  (body arrived ${response.contentEncoding}-encoded; shown decoded)`);
  }
  lines.push('', 'Request');
  lines.push(`  ${request.method} ${request.url}`);
  lines.push(...headerLines(request.headers));
  lines.push(...requestBodyLines(request.body, contentTypeOf(request.headers)));
  if (response) {
    lines.push('', ...responseBodyLines(response, shown, start));
    if (note) lines.push(note);
  }
  return lines;
}

function responseBodyLines(response: RecordedResponse, shown: ShownBody, start: Shown['start']): string[] {
  const body = response.body;
  const type = response.contentType ?? 'no Content-Type';
  if (body.kind === 'empty') return ['Response body: empty'];
  const cut = body.kind !== 'file' && body.truncated ? `, cut: the first ${formatBytes(keptBytes(body))} are kept` : '';
  const size =
    body.kind !== 'file' && body.sizeUnknown
      ? `more than ${formatBytes(body.size)} (the server did not say how much; the first ${body.size.toLocaleString('en-US')} bytes are kept)`
      : `${formatBytes(body.size)} (${body.size.toLocaleString('en-US')} bytes)${cut}`;
  if (shown === 'image') return [`Response body: image, ${type}, ${size}: shown beside. Save Body saves it.`];
  if (shown === 'binary') return [`Response body: binary, ${type}, ${size}: not shown as text. Save Body saves it.`];
  if (start && body.kind === 'text') {
    const formatted = formatBytes(Buffer.byteLength(body.text.slice(0, start.chars)));
    return [`Response body: ${type}, ${size}, shown below: its first ${formatted} formatted. ${OPEN_WHOLE_BODY}`];
  }
  return [`Response body: ${type}, ${size}${cut ? ', shown below' : ''}`];
}

function keptBytes(body: RecordedBody): number {
  if (body.kind === 'text') return Buffer.byteLength(body.text, 'utf8');
  if (body.kind === 'binary')
    return Math.floor((body.base64.length * 3) / 4) - (body.base64.endsWith('==') ? 2 : body.base64.endsWith('=') ? 1 : 0);
  return 0;
}

function requestBodyLines(body: RecordedBody, contentType: string | undefined): string[] {
  switch (body.kind) {
    case 'empty':
      return [];
    case 'file':
      return ['', `  (body: the file ${body.name}, ${formatBytes(body.size)})`];
    case 'binary':
      return ['', `  (body: ${formatBytes(body.size)} of bytes, not shown as text)`];
    case 'text': {
      let text = body.text;
      if (isJsonType(contentType)) {
        const pretty = prettyJson(text, { partial: body.truncated });
        if (pretty.kind === 'pretty') text = pretty.text;
      }
      const cut = text.length > REQUEST_BODY_SHOWN_CHARS || body.truncated;
      if (text.length > REQUEST_BODY_SHOWN_CHARS) text = text.slice(0, REQUEST_BODY_SHOWN_CHARS);
      const lines = ['', ...splitLines(text).map((line) => `  ${line}`)];
      if (cut) lines.push(`  (body cut: ${formatBytes(body.size)} in all)`);
      return lines;
    }
  }
}

function contentTypeOf(headers: readonly ExchangeHeader[]): string | undefined {
  const header = headers.find((candidate) => candidate.name.toLowerCase() === 'content-type');
  return header?.value.split(';')[0]?.trim().toLowerCase();
}

function headerLines(headers: readonly ExchangeHeader[]): string[] {
  return headers.map((header) => `  ${header.name}: ${header.value}`);
}

function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

function lineComments(lines: readonly string[]): string {
  return lines.map((line) => (line ? `// ${line}\n` : '//\n')).join('');
}

/** One `<!-- -->` block; a `-->` in a value cannot end it early. */
function htmlComment(lines: readonly string[]): string {
  const safe = lines.map((line) => line.replace(/--(!?)>/g, '--$1&gt;'));
  return `<!--\n${safe.join('\n')}\n-->\n`;
}
