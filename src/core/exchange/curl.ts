// "Copy as curl" of an API node's request (an exchange, or a request built by buildApiRequest): a
// shell command that sends the same request, each secret written as a shell variable
// ("$AGENT_SECRET_NAME", as `agent-workflows send` reads them), never as its value.
import type { ApiRequest } from '../engine/apiRequest';
import { SECRET_ENV_PREFIX } from '../engine/secrets';
import { shellQuote } from '../service/curl';
import type { Exchange, ExchangeHeader, RecordedBody } from './exchange';
import { namedSecretRedactor } from './recordExchange';

/** `{{ secrets.NAME }}` as an exchange writes it. */
const SECRET_PLACE = /\{\{ secrets\.([A-Za-z_][A-Za-z0-9_]*) \}\}/g;
/** Basic credentials an exchange shows as `Basic base64(user:{{ secrets.NAME }})`. */
const BASIC_SHOWN = /^Basic base64\((.*)\)$/s;

/**
 * One shell word of a text in which secrets are written `{{ secrets.NAME }}`: single-quoted when
 * it has none; else double-quoted, with `\`, `"`, `$` and backquotes of the text escaped and each
 * secret as `${AGENT_SECRET_NAME}`.
 */
export function shellWordWithSecrets(text: string): string {
  if (!SECRET_PLACE.test(text)) return shellQuote(text);
  SECRET_PLACE.lastIndex = 0;
  let word = '"';
  let at = 0;
  for (const match of text.matchAll(SECRET_PLACE)) {
    word += escapeInDoubleQuotes(text.slice(at, match.index)) + `\${${SECRET_ENV_PREFIX}${match[1]}}`;
    at = match.index + match[0].length;
  }
  return `${word}${escapeInDoubleQuotes(text.slice(at))}"`;
}

function escapeInDoubleQuotes(text: string): string {
  return text.replace(/[\\"$`]/g, (character) => `\\${character}`);
}

/** The curl command of an exchange's request. A file body is read from a file of its name. */
export function curlForExchange(exchange: Pick<Exchange, 'request'>): string {
  return curlCommand(exchange.request.method, exchange.request.url, exchange.request.headers, exchange.request.body);
}

/** The curl command of a built request; `secrets` (name → value) are written as variables. */
export function curlForRequest(request: ApiRequest, secrets: ReadonlyMap<string, string>): string {
  const redactor = namedSecretRedactor(secrets);
  const headers = Object.entries(request.headers).map(([sentName, value]) => {
    const name = redactor.text(sentName);
    // Credentials from the URL: `-u` with the user and the secret, which curl encodes itself.
    const basic = /^Basic\s+([A-Za-z0-9+/]+=*)$/i.exec(value);
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const shown = redactor.text(decoded);
      if (shown !== decoded) return { name, value: `Basic base64(${shown})` };
    }
    return { name, value: redactor.text(value) };
  });
  const body: RecordedBody = !request.body
    ? { kind: 'empty' }
    : request.body.file
      ? { kind: 'file', name: request.body.file.name, size: request.body.file.size }
      : typeof request.body.content === 'string'
        ? { kind: 'text', text: redactor.text(request.body.content), size: 0, truncated: false }
        : { kind: 'empty' };
  return curlCommand(request.method, redactor.text(request.url), headers, body);
}

function curlCommand(method: string, url: string, headers: readonly ExchangeHeader[], body: RecordedBody): string {
  const lines: string[][] = [
    [
      'curl',
      '-sS',
      ...(method === 'HEAD' ? ['--head'] : method === 'GET' && body.kind === 'empty' ? [] : ['-X', method]),
      shellWordWithSecrets(url),
    ],
  ];
  for (const header of headers) {
    const basic = header.name.toLowerCase() === 'authorization' ? BASIC_SHOWN.exec(header.value) : null;
    if (basic) lines.push(['-u', shellWordWithSecrets(basic[1]!)]);
    // Content-Length is curl's to set (it counts the body it sends).
    else if (header.name.toLowerCase() !== 'content-length') lines.push(['-H', shellWordWithSecrets(`${header.name}: ${header.value}`)]);
  }
  if (body.kind === 'text') lines.push(['--data-raw', shellWordWithSecrets(body.text)]);
  else if (body.kind === 'file') lines.push(['--data-binary', shellQuote(`@${body.name}`)]);
  else if (body.kind === 'binary') lines.push(['--data-binary', '@body.bin']);
  return `${lines.map((parts) => parts.join(' ')).join(' \\\n  ')}\n`;
}

/** What Copy Node as cURL needs of an API node: as written in the file, nothing evaluated. */
export interface NodeRequestSpec {
  readonly method: string;
  readonly url: string;
  readonly settings?: readonly string[];
  readonly body?: unknown;
}

/**
 * `{{ … }}` as written in an agent file, any spacing; the expression trimmed. Words and the spaces
 * between them are matched in turns: a lazy `([^{}]*?)\s*\}\}` scanned each run of spaces again
 * from every character before it, minutes on a long unclosed `{{`.
 */
const EXPRESSION = /\{\{\s*((?:[^{}\s]+(?:\s+[^{}\s]+)*)?)\s*\}\}/g;
const SECRET_EXPRESSION = /^secrets\.([A-Za-z_][A-Za-z0-9_]*)$/;
const INPUT_EXPRESSION = /^inputs\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** Secrets written the one way shellWordWithSecrets reads them; other expressions as `other` says. */
function withPlaceholders(text: string, other: (expression: string, whole: string) => string): string {
  return text.replace(EXPRESSION, (whole, expression: string) => {
    const secret = SECRET_EXPRESSION.exec(expression);
    return secret ? `{{ secrets.${secret[1]} }}` : other(expression, whole);
  });
}

/**
 * An API node as a curl command, without running anything: each secret is "${AGENT_SECRET_NAME}"
 * (set it in the shell), each input of the URL a `{name}` placeholder (what API docs write, and
 * what `import curl` reads back as that input), any other expression of the URL `{expression}`.
 * Headers and the body keep their other expressions as written (`import curl` refuses them: a
 * pasted command is data, never a template). A mapping body is sent as compact JSON, with the Content-Type the engine would add.
 */
export function curlForNode(node: NodeRequestSpec): string {
  const method = node.method.toUpperCase();
  const url = withPlaceholders(node.url.trim(), (expression) => {
    const input = INPUT_EXPRESSION.exec(expression);
    return `{${input ? input[1] : expression.replace(/\s+/g, '')}}`;
  });
  const settings = (node.settings ?? []).map((setting) => withPlaceholders(setting, (_expression, whole) => whole));
  const mapping = node.body !== undefined && node.body !== null && typeof node.body === 'object';
  if (mapping && !settings.some((setting) => /^\s*content-type\s*:/i.test(setting))) settings.push('Content-Type: application/json');
  const bodyText =
    node.body === undefined || node.body === null
      ? undefined
      : withPlaceholders(mapping ? JSON.stringify(node.body) : String(node.body), (_expression, whole) => whole);
  const lines: string[][] = [
    [
      'curl',
      '-sS',
      // Placeholders have braces: curl would read them as a glob (a secret is a variable by then).
      ...(/[{}[\]]/.test(url.replace(SECRET_PLACE, '')) ? ['-g'] : []),
      ...(method === 'HEAD' ? ['--head'] : method === 'GET' && bodyText === undefined ? [] : ['-X', method]),
      shellWordWithSecrets(url),
    ],
  ];
  for (const setting of settings) lines.push(['-H', shellWordWithSecrets(setting)]);
  if (bodyText !== undefined) lines.push(['--data-raw', shellWordWithSecrets(bodyText)]);
  return `${lines.map((parts) => parts.join(' ')).join(' \\\n  ')}\n`;
}

/** Names of the secrets a node's curl command reads from the environment, in order, once each. */
export function secretsOfNode(node: NodeRequestSpec): string[] {
  const texts = [node.url, ...(node.settings ?? []), node.body === undefined ? '' : JSON.stringify(node.body)];
  const names = new Set<string>();
  for (const text of texts)
    for (const match of text.matchAll(EXPRESSION)) {
      const secret = SECRET_EXPRESSION.exec(match[1]!);
      if (secret) names.add(secret[1]!);
    }
  return [...names];
}
