// An exchange as `curl -v` prints one: `*` lines say what happened, `>` lines are the request as
// sent, `<` lines the answer's status and headers, then the body. What `run --local --verbose`
// prints on stderr. Secrets are already written as `{{ secrets.NAME }}` in the exchange.
import { formatBytes } from '../executions/executionRecord';
import type { Exchange, RecordedBody } from './exchange';

export interface VerboseOptions {
  /** The exchange was kept without its bodies (the execution's budget was spent). */
  readonly bodiesNotKept?: boolean;
}

/** The exchange as text, one line per `\n`, ending with a line feed. */
export function formatVerboseExchange(exchange: Exchange, options: VerboseOptions = {}): string {
  const lines: string[] = [];
  const { method, url, headers } = exchange.request;
  lines.push(`* node ${exchange.node}: ${method} ${url}`);
  const target = requestTarget(url);
  lines.push(`> ${method} ${target.path} HTTP/1.1`);
  if (target.host && !headers.some((header) => header.name.toLowerCase() === 'host')) lines.push(`> Host: ${target.host}`);
  for (const header of headers) lines.push(`> ${header.name}: ${header.value}`);
  lines.push('>');
  pushBody(lines, exchange.request.body, options);
  for (const redirect of exchange.redirects) {
    const dropped = redirect.droppedHeaders.length ? ` (not sent there: ${redirect.droppedHeaders.join(', ')})` : '';
    lines.push(`* redirected (${redirect.status}) to ${redirect.to}${dropped}`);
  }
  const response = exchange.response;
  if (response) {
    lines.push(`< HTTP/1.1 ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
    for (const header of response.headers) lines.push(`< ${header.name}: ${header.value}`);
    lines.push('<');
    if (response.contentEncoding) lines.push(`* body decoded from ${response.contentEncoding}`);
    pushBody(lines, response.body, options);
  }
  if (exchange.failure) lines.push(`* failed: ${exchange.failure.message}`);
  const firstByte = exchange.timing.firstByteMs !== undefined ? `, first byte after ${Math.round(exchange.timing.firstByteMs)} ms` : '';
  lines.push(`* took ${Math.round(exchange.timing.totalMs)} ms${firstByte}`);
  return `${lines.join('\n')}\n`;
}

function pushBody(lines: string[], body: RecordedBody, options: VerboseOptions): void {
  if (body.kind === 'empty') return;
  if (body.kind === 'file') {
    lines.push(`* body: the file ${body.name} (${formatBytes(body.size)}), not shown`);
    return;
  }
  if (options.bodiesNotKept && body.truncated && (body.kind === 'text' ? body.text === '' : body.base64 === '')) {
    lines.push(`* body of ${formatBytes(body.size)} not kept: the execution's exchanges took their whole budget`);
    return;
  }
  if (body.kind === 'binary') {
    lines.push(`* binary body of ${formatBytes(body.size)}, not shown`);
    return;
  }
  lines.push(body.text.endsWith('\n') ? body.text.slice(0, -1) : body.text);
  if (body.truncated) lines.push(`* body cut: ${formatBytes(Buffer.byteLength(body.text))} of ${formatBytes(body.size)} shown`);
}

/** The request line's target (path and query) and the Host header's value, from a full URL. */
function requestTarget(url: string): { path: string; host?: string } {
  try {
    const parsed = new URL(url);
    // The URL may hold `{{ secrets.NAME }}` in its query: shown as it is written, not percent-encoded.
    let path = url.slice(url.indexOf(parsed.host) + parsed.host.length);
    const hash = path.indexOf('#');
    if (hash >= 0) path = path.slice(0, hash);
    return { path: path.startsWith('/') ? path : `/${path}`, host: parsed.host };
  } catch {
    return { path: url };
  }
}
