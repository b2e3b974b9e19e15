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
