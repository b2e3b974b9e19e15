// The rules for header strings of an API node's `settings:` ("Name: value") and what they say
// about authorization: RFC 9110 (token names), RFC 6750 (Bearer) and RFC 7617 (Basic). Reading a
// header string is in ../document/headers.ts.
import { BoundedCache } from '../boundedCache';
import { maskExpressions, scanExpressions } from '../document/expressions';
import { base64Error, CREDENTIAL_HEADERS, decodeBase64Text, HEADER_NAME, parseHeaderString } from '../document/headers';
import type { HeaderString } from '../document/headers';
import type { ProblemCode } from '../document/problems';

/** A finding inside one string; offsets are relative to that string. */
export interface Finding {
  readonly code: ProblemCode;
  readonly start: number;
  readonly end: number;
  readonly message: string;
  readonly data?: Record<string, string>;
}

export interface HeaderContext {
  /** The node the header belongs to, to suggest a secret name. */
  readonly nodeId: string;
}

// The same settings strings repeat across nodes ("Accept: application/json"). A string with no
// findings has none whatever its node (the node only names secrets in messages), so its reading is
// kept in a bounded cache; callers treat it as read-only.
// At most 1,024 strings and 1 M characters of them.
const cleanHeaders = new BoundedCache<HeaderString>(1024, 1024 * 1024);

/** Checks one settings string: its form, then what its value says about credentials. */
export function checkHeaderString(raw: string, context: HeaderContext): { header?: HeaderString; findings: Finding[] } {
  const clean = cleanHeaders.get(raw);
  if (clean) return { header: clean, findings: [] };
  const result = checkUncached(raw, context);
  if (result.header && result.findings.length === 0) cleanHeaders.set(raw, result.header);
  return result;
}

function checkUncached(raw: string, context: HeaderContext): { header?: HeaderString; findings: Finding[] } {
  const expressions = scanExpressions(raw);
  const header = parseHeaderString(raw, expressions);
  if (!header) {
    const guess = /^\s*([A-Za-z][A-Za-z0-9-]*)\s+(\S.*)$/.exec(raw);
    const replacement = guess ? `${guess[1]}: ${guess[2]}` : undefined;
    return {
      findings: [
        {
          code: 'header-missing-colon',
          start: 0,
          end: raw.length,
          message: `This settings string has no ":". Write each header as "Name: value"${guess ? `, here "${guess[1]}: …"` : ', e.g. "Accept: application/json"'}.`,
          ...(replacement ? { data: { replacement } } : {}),
        },
      ],
    };
  }
  const findings: Finding[] = [];
  const { name } = header;
  if (name.trim() === '') {
    findings.push({
      code: 'invalid-header-name',
      start: 0,
      end: header.nameEnd + 1,
      message: 'The header name before ":" is missing. Write "Name: value", e.g. "Accept: application/json".',
    });
    return { header, findings };
  }
  // A name is not meant to carry data: filled in from a secret, it would be shown wherever
  // headers are (exchanges, redirects' dropped headers, the debugger), and it is not one a
  // server knows. The first expression that starts in the name is enough to say so.
  const inName = expressions.find((expression) => expression.start >= header.nameStart && expression.start < header.nameEnd);
  if (inName) {
    findings.push({
      code: 'expression-in-header-name',
      start: inName.start,
      end: Math.min(inName.end, header.nameEnd),
      message: `The header name "${name.trim()}" is built from an expression. Write the name itself, and put values (secrets, inputs, node results) after the ":".`,
    });
    return { header, findings };
  }
  const masked = maskExpressions(raw, expressions, 'x');
  const maskedName = masked.slice(header.nameStart, header.nameEnd);
  if (!HEADER_NAME.test(maskedName)) {
    const trailingSpace = /\s$/.test(maskedName);
    findings.push({
      code: 'invalid-header-name',
      start: header.nameStart,
      end: header.nameEnd,
      message: trailingSpace
        ? `The header name "${name}" is followed by a space before ":". Remove it: "${name.trim()}: …".`
        : `"${name}" is not a valid header name: a name is letters, digits and ! # $ % & ' * + - . ^ _ \` | ~, with no spaces (RFC 9110).`,
      ...(trailingSpace ? { data: { replacement: `${name.trim()}:${raw.slice(header.nameEnd + 1)}` } } : {}),
    });
  }
  const maskedValue = masked.slice(header.valueStart, header.valueEnd);
  const control = /[\u0000-\u0008\u000a-\u001f\u007f]/.exec(maskedValue);
  if (control) {
    findings.push({
      code: 'invalid-header-value',
      start: header.valueStart + control.index,
      end: header.valueStart + control.index + 1,
      message: `The value of "${name.trim()}" contains a ${control[0] === '\n' || control[0] === '\r' ? 'line break' : 'control character'}, which HTTP does not allow in a header. Keep the header on one line.`,
    });
  }
  findings.push(...checkCredentialValue(header, masked, context));
  return { header, findings };
}

function checkCredentialValue(header: HeaderString, masked: string, context: HeaderContext): Finding[] {
  const lower = header.name.trim().toLowerCase();
  const { value, valueStart, valueEnd } = header;
  const valueSpan = { start: valueStart, end: Math.max(valueEnd, valueStart) };
  if (lower === 'authorization' || lower === 'proxy-authorization') return checkAuthorization(header, masked, context);
  const literalValue = (suffix: string): Finding =>
    literalCredential(
      valueSpan,
      `This ${header.name.trim()} value`,
      value,
      `${header.name.trim()}: {{ secrets.%s }}`,
      secretName(context.nodeId, suffix),
    );
  // A session cookie is as good as a password: the cURL import makes a secret of every cookie too.
  if (lower === 'cookie' && value !== '' && header.expressions.length === 0) return [literalValue('COOKIE')];
  if (CREDENTIAL_HEADERS.has(lower)) {
    if (value === '') {
      return [
        {
          code: 'api-key-empty',
          ...spanAround(header),
          message: `The ${header.name.trim()} header has no value. Put the key in a secret: "${header.name.trim()}: {{ secrets.${secretName(context.nodeId, 'API_KEY')} }}".`,
        },
      ];
    }
    if (header.expressions.length === 0) return [literalValue('API_KEY')];
    return [];
  }
  if (value === '') {
    return [
      {
        code: 'empty-header-value',
        ...spanAround(header),
        message: `The ${header.name.trim()} header has no value; remove it or give it one.`,
      },
    ];
  }
  return [];
}

/** An Authorization value split at its scheme, as the checks of each scheme see it. */
interface Credentials {
  /** The header name as written (Authorization or Proxy-Authorization). */
  readonly name: string;
  readonly scheme: string;
  /** The value, and its span in the settings string. */
  readonly value: string;
  readonly valueStart: number;
  readonly valueEnd: number;
  /** What follows the scheme, with expressions as written and masked. */
  readonly credentials: string;
  readonly maskedCredentials: string;
  readonly span: { readonly start: number; readonly end: number };
  readonly hasExpression: boolean;
  readonly nodeId: string;
}

/** Authorization and Proxy-Authorization: a scheme, then credentials in the form the scheme asks for. */
function checkAuthorization(header: HeaderString, masked: string, context: HeaderContext): Finding[] {
  const name = header.name.trim();
  const { value, valueStart, valueEnd } = header;
  if (value === '') {
    return [
      {
        code: 'bearer-missing-token',
        ...spanAround(header),
        message: `${name} has no value. Write "${name}: Bearer {{ secrets.${secretName(context.nodeId, 'TOKEN')} }}" or "${name}: Basic {{ secrets.${secretName(context.nodeId, 'BASIC')} }}".`,
      },
    ];
  }
  const maskedValue = masked.slice(valueStart, valueEnd);
  // A value that is one expression carries scheme and credentials together (e.g. a whole secret).
  if (header.expressions.length === 1 && maskedValue === 'x'.repeat(value.length)) return [];
  const schemeEnd = /\s/.exec(maskedValue)?.index ?? maskedValue.length;
  const scheme = value.slice(0, schemeEnd);
  // "Bearer{{ secrets.T }}": the scheme and the credentials would be sent as one word.
  const glued = /^(bearer|basic|token|digest)(?=\{\{)/i.exec(value)?.[1];
  if (glued) {
    const expression = value.slice(glued.length, schemeEnd);
    return [
      {
        code: 'missing-auth-scheme',
        start: valueStart,
        end: valueStart + glued.length,
        message: `"${glued}" needs a space before the credentials, or it is sent glued to them and the server sees no scheme. Write "${name}: ${glued} ${expression}".`,
        data: { replacement: `${glued} ` },
      },
    ];
  }
  if (scheme.includes('{{')) return [];
  const credentialsStart = valueStart + schemeEnd + (maskedValue.slice(schemeEnd).length - maskedValue.slice(schemeEnd).trimStart().length);
  const credentials = value.slice(credentialsStart - valueStart);
  const parts: Credentials = {
    name,
    scheme,
    value,
    valueStart,
    valueEnd,
    credentials,
    maskedCredentials: maskedValue.slice(credentialsStart - valueStart),
    span: { start: credentialsStart, end: valueEnd },
    hasExpression: credentials.includes('{{'),
    nodeId: context.nodeId,
  };
  switch (scheme.toLowerCase()) {
    case 'bearer':
      return checkBearer(parts);
    case 'basic':
      return checkBasic(parts);
    default:
      return checkOtherScheme(parts);
  }
}

/** RFC 6750: "Bearer" and one token, which belongs in a secret. */
function checkBearer({ name, valueStart, valueEnd, credentials, maskedCredentials, span, hasExpression, nodeId }: Credentials): Finding[] {
  const fix = `${name}: Bearer {{ secrets.${secretName(nodeId, 'TOKEN')} }}`;
  if (credentials === '') {
    return [
      {
        code: 'bearer-missing-token',
        start: valueStart,
        end: valueEnd,
        message: `"Bearer" needs a token after it. Write "${fix}".`,
        data: { secretName: secretName(nodeId, 'TOKEN') },
      },
    ];
  }
  if (/^["']|["']$/.test(credentials)) {
    return [
      {
        code: 'bearer-quoted-token',
        ...span,
        message: 'The Bearer token is in quotes, and the quotes would be sent as part of it. Remove them.',
        data: { replacement: credentials.replace(/^["']|["']$/g, '') },
      },
    ];
  }
  if (/\s/.test(maskedCredentials)) {
    return [
      {
        code: 'bearer-token-has-spaces',
        ...span,
        message: `A Bearer token is one word, but this one has spaces in it. Remove them, or keep the whole token in a secret: "${fix}".`,
      },
    ];
  }
  if (!hasExpression)
    return [literalCredential(span, 'This Bearer token', credentials, `${name}: Bearer {{ secrets.%s }}`, secretName(nodeId, 'TOKEN'))];
  return [];
}

/** RFC 7617: "Basic" and the Base64 of user:password, which belongs in a secret. */
function checkBasic({ name, valueStart, valueEnd, credentials, span, hasExpression, nodeId }: Credentials): Finding[] {
  const basicSecret = secretName(nodeId, 'BASIC');
  const fix = `${name}: Basic {{ secrets.${basicSecret} }}`;
  if (credentials === '') {
    return [
      {
        code: 'basic-missing-credentials',
        start: valueStart,
        end: valueEnd,
        message: `"Basic" needs the Base64 of user:password after it. Write "${fix}" with the encoded value stored as that secret.`,
      },
    ];
  }
  const literalPart = maskExpressions(credentials, scanExpressions(credentials), '');
  if (literalPart.includes(':')) {
    return [
      {
        code: 'basic-not-encoded',
        ...span,
        message: hasExpression
          ? `Basic credentials are sent as the Base64 of user:password, but this value is written as plain user:password. Store the encoded value as one secret and write "${fix}".`
          : `These Basic credentials are plain user:password, but Basic sends them Base64-encoded. Encode them (printf %s 'user:password' | base64), store the result as a secret and write "${fix}".`,
        data: { secretName: basicSecret },
      },
    ];
  }
  if (hasExpression) return [];
  if (/^["'].*["']$/.test(credentials)) {
    return [
      {
        code: 'basic-invalid-base64',
        ...span,
        message: 'The Basic credentials are in quotes, and the quotes would be sent as part of them. Remove them.',
      },
    ];
  }
  const base64Problem = base64Error(credentials);
  if (base64Problem) {
    return [
      {
        code: 'basic-invalid-base64',
        ...span,
        message: `The Basic credentials are not valid Base64: ${base64Problem}. Encode "user:password" with Base64 (e.g. \`printf %s 'user:password' | base64\`).`,
      },
    ];
  }
  const decoded = decodeBase64Text(credentials);
  if (decoded === undefined) {
    return [
      {
        code: 'basic-invalid-base64',
        ...span,
        message: 'The Basic credentials decode to binary data, not to user:password text. Encode "user:password" with Base64.',
      },
    ];
  }
  if (!decoded.includes(':')) {
    return [
      {
        code: 'basic-missing-colon',
        ...span,
        message:
          'The Basic credentials decode to text without ":", so they are not user:password. Encode "user:password" (with the colon) with Base64.',
      },
    ];
  }
  return [literalCredential(span, 'These Basic credentials', credentials, `${name}: Basic {{ secrets.%s }}`, basicSecret)];
}

/** Any other scheme (Token, Digest…): only a bare word without a scheme, or literal credentials, are found. */
function checkOtherScheme({ name, scheme, value, valueStart, valueEnd, credentials, span, hasExpression, nodeId }: Credentials): Finding[] {
  if (credentials === '') {
    // One word with no scheme: most likely a bare token.
    if (hasExpression || value.includes('{{')) return [];
    return [
      {
        code: 'missing-auth-scheme',
        start: valueStart,
        end: valueEnd,
        message: `The ${name} value has no scheme. Write "${name}: Bearer <token>" (OAuth 2.0) or "${name}: Basic <base64 of user:password>", with the credential in a secret.`,
        data: { secretName: secretName(nodeId, 'TOKEN') },
      },
    ];
  }
  if (!hasExpression)
    return [
      literalCredential(
        span,
        `These ${scheme} credentials`,
        credentials,
        `${name}: ${scheme} {{ secrets.%s }}`,
        secretName(nodeId, 'TOKEN'),
      ),
    ];
  return [];
}

/** A credential written in the file: say where it belongs instead. */
export function literalCredential(
  span: { start: number; end: number },
  what: string,
  literal: string,
  template: string,
  suggested: string,
): Finding {
  const replacement = template.replace('%s', suggested);
  const placeholder = looksLikePlaceholder(literal);
  // "These Basic credentials are …, move them" but "This Bearer token is …, move it".
  const plural = /^These\b/.test(what);
  return {
    code: 'literal-credential',
    ...span,
    message: placeholder
      ? `${what} ${plural ? 'look' : 'looks'} like a placeholder. Replace ${plural ? 'them' : 'it'} with a secret reference: "${replacement}", then store the real value as secret ${suggested} (the command line reads AGENT_SECRET_${suggested}).`
      : `${what} ${plural ? 'are' : 'is'} written in the file, where anyone who can read the file or its history can use ${plural ? 'them' : 'it'}. Move ${plural ? 'them' : 'it'} to a secret: write "${replacement}" and store the value as secret ${suggested} (the command line reads AGENT_SECRET_${suggested}).`,
    data: { secretName: suggested },
  };
}

/** The secret name to suggest for a credential of a node, e.g. SUMMARIZE_TOKEN. */
export function secretName(nodeId: string, suffix: string): string {
  const base = nodeId
    .toUpperCase()
    .replace(/[^A-Z0-9_]+/g, '_')
    .replace(/^(?=\d)/, '_');
  return `${base}_${suffix}`;
}

export function looksLikePlaceholder(value: string): boolean {
  return /^<.*>$|^\[.*\]$|^your[_-]|^(x{3,}|\.{3,}|\*{3,}|changeme|todo|token|api[_-]?key|secret|password)$/i.test(value.trim());
}

function spanAround(header: HeaderString): { start: number; end: number } {
  return { start: header.nameStart, end: Math.max(header.valueEnd, header.nameEnd + 1) };
}
