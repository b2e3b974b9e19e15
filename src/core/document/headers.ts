// Header strings of an API node's `settings:` ("Name: value"), read: where the name and the value
// are, which headers carry credentials, and Base64 (RFC 4648) as Basic credentials use it. The
// rules about them are in ../validation/headerChecks.ts.
import { maskExpressions, scanExpressions } from './expressions';
import type { Expression } from './expressions';
import { bytesOfBase64 } from '../utf8';

/** RFC 9110 section 5.6.2: token = 1*tchar. */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Headers whose value is a credential. */
export const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'apikey',
  'x-apikey',
  'x-auth-token',
  'x-access-token',
  'private-token',
  'x-goog-api-key',
  'ocp-apim-subscription-key',
  'x-functions-key',
  'x-rapidapi-key',
  // Datadog, Postmark, Shopify, Cloudflare (global API key) and Algolia, as their docs write them.
  'dd-api-key',
  'dd-application-key',
  'x-postmark-server-token',
  'x-postmark-account-token',
  'x-shopify-access-token',
  'x-auth-key',
  'x-algolia-api-key',
]);

/** Words that name a credential; also as the end of one word (`authtoken`, `newpassword`), but `key`. */
const CREDENTIAL_WORD = /^(?:key|credentials?|[a-z]*(?:secret|token|password|passwd|passphrase|apikey))$/;
/** Words before `key` or `token` that make it something else: `Idempotency-Key`, `sort_key`, `pageToken`. */
const NOT_CREDENTIAL_BEFORE: Readonly<Record<string, ReadonlySet<string>>> = {
  key: new Set([
    'public',
    'publishable',
    'idempotency',
    'sort',
    'partition',
    'primary',
    'foreign',
    'cache',
    'routing',
    'object',
    'row',
    'dedup',
    'dedupe',
    'deduplication',
    'lookup',
    'group',
    'map',
    'range',
    'shard',
    'message',
    'unique',
    'composite',
  ]),
  token: new Set(['next', 'page', 'continuation', 'pagination', 'sync', 'resume', 'cursor', 'start', 'max', 'min', 'num', 'total']),
};
/** Words after the credential word that still name the credential itself (`password_confirmation`). */
const CREDENTIAL_AFTER = new Set(['value', 'confirm', 'confirmation']);

/** The words of a name, in lower case: "X-Api-Secret" x api secret, "clientSecret" client secret, "APIKey" api key. */
export function nameWords(name: string): string[] {
  return name
    .slice(0, 200)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/**
 * Whether a name (a header, a form or JSON field, a query parameter, a shell variable) says it holds
 * a credential, whatever its value looks like: its last word, or the last but a word like
 * "confirmation", is secret, token, password, passwd, passphrase, key, credential(s) or apikey
 * (`X-Vault-Token`, `client_secret`, `apiKey`, `Private-Key`, `password_confirmation`). A count, a
 * type or an id of one is not (`max_tokens`, `token_count`, `token_type`, `key_id`), nor a key or
 * token that is no secret (`Idempotency-Key`, `public_key`, `next_token`, `pageToken`).
 */
export function namesCredential(name: string): boolean {
  const words = nameWords(name);
  let at = words.length - 1;
  while (at > 0 && CREDENTIAL_AFTER.has(words[at]!)) at--;
  const word = words[at];
  if (word === undefined || !CREDENTIAL_WORD.test(word)) return false;
  return !(NOT_CREDENTIAL_BEFORE[word]?.has(words[at - 1] ?? '') ?? false);
}

/** Whether a header's value is a credential: a header of CREDENTIAL_HEADERS, or one whose name says so. */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase()) || namesCredential(name);
}

export interface HeaderString {
  readonly name: string;
  /** The value with surrounding white space removed. */
  readonly value: string;
  readonly nameStart: number;
  readonly nameEnd: number;
  readonly valueStart: number;
  readonly valueEnd: number;
  readonly expressions: readonly Expression[];
}

/** Splits "Name: value" at the first colon outside expressions; undefined when there is none. */
export function parseHeaderString(raw: string, expressions: readonly Expression[] = scanExpressions(raw)): HeaderString | undefined {
  const colon = maskExpressions(raw, expressions).indexOf(':');
  if (colon === -1) return undefined;
  const nameStart = raw.length - raw.trimStart().length;
  let valueStart = colon + 1;
  while (valueStart < raw.length && (raw[valueStart] === ' ' || raw[valueStart] === '\t')) valueStart++;
  let valueEnd = raw.length;
  while (valueEnd > valueStart && (raw[valueEnd - 1] === ' ' || raw[valueEnd - 1] === '\t')) valueEnd--;
  return {
    name: raw.slice(nameStart, colon),
    value: raw.slice(valueStart, valueEnd),
    nameStart,
    nameEnd: colon,
    valueStart,
    valueEnd,
    expressions,
  };
}

/** Why a string is not standard, padded Base64 (RFC 4648 section 4), or undefined when it is. */
export function base64Error(value: string): string | undefined {
  const bad = /[^A-Za-z0-9+/=]/.exec(value);
  if (bad)
    return bad[0] === '-' || bad[0] === '_'
      ? `"${bad[0]}" belongs to the URL-safe alphabet, not standard Base64`
      : `"${bad[0]}" is not a Base64 character`;
  if (/=[^=]/.test(value) || /={3,}$/.test(value)) return '"=" padding may only appear at the end';
  if (value.length % 4 !== 0) return `its length (${value.length}) is not a multiple of 4 (is "=" padding missing?)`;
  return undefined;
}

/** Decodes Base64 to UTF-8 text, or undefined when the bytes are not text. */
export function decodeBase64Text(value: string): string | undefined {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytesOfBase64(value));
    return /[\u0000-\u0008\u000e-\u001f\u007f]/.test(text) ? undefined : text;
  } catch {
    return undefined;
  }
}
