// Rules of the generic API node: URL, header strings and their authorization, body.
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import { maskExpressions, scanExpressions } from '../document/expressions';
import { isLoopbackHost } from '../http/hosts';
import { checkHeaderString, literalCredential, secretName } from './headerChecks';
import type { Finding } from './headerChecks';
import type { NodeDeclaration, StringField } from '../document/model';
import type { ProblemSink } from '../document/problemSink';
import type { Span } from '../document/problems';
import { API_KEY_PARAMETERS, authorityEnd, CREDENTIAL_PARAMETERS } from '../document/urlCredentials';
import { spanOf, valueSpanToSource } from '../document/yamlAst';

const METHODS_WITHOUT_BODY = new Set(['GET', 'HEAD']);
const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function checkApiNode(node: NodeDeclaration, text: string, sink: ProblemSink): void {
  const report = (field: StringField, finding: Finding): void => {
    sink.add(
      finding.code,
      valueSpanToSource(text, field.scalar, finding.start, finding.end),
      finding.message,
      finding.data ? { data: finding.data } : {},
    );
  };

  // Header strings.
  const seen = new Map<string, { field: StringField; name: string }>();
  let hasCredentials = false;
  let contentType: string | undefined;
  let contentTypeField: StringField | undefined;
  for (const field of node.settings) {
    const { header, findings } = checkHeaderString(field.value, { nodeId: node.id });
    for (const finding of findings) report(field, finding);
    if (!header) continue;
    const lower = header.name.trim().toLowerCase();
    if (lower === 'authorization' || lower === 'x-api-key' || lower === 'proxy-authorization') hasCredentials = true;
    if (lower === 'content-type') {
      contentType = header.value;
      contentTypeField = field;
    }
    const first = seen.get(lower);
    if (first) {
      const firstLine = sink.lines.position(spanOf(first.field.scalar).start).line;
      sink.add(
        'duplicate-header',
        valueSpanToSource(text, field.scalar, header.nameStart, header.nameEnd),
        `Header "${header.name.trim()}" is already set on line ${firstLine}; a request sends one value. Remove one of them.`,
      );
    } else {
      seen.set(lower, { field, name: header.name });
    }
  }

  // URL.
  // An unknown method is reported by the schema; rules that depend on the method then stay quiet.
  const method = node.method !== undefined && HTTP_METHODS.has(node.method) ? node.method : undefined;
  if (node.url) {
    const urlCredentials = checkUrl(node, node.url, method, text, sink);
    hasCredentials ||= urlCredentials.hasKey;
    if (hasCredentials && urlCredentials.insecureHost) {
      sink.add(
        'insecure-url',
        urlCredentials.schemeSpan(),
        `Node "${node.id}" sends credentials over plain http to ${urlCredentials.insecureHost}, where anyone on the network can read them. Use https://.`,
        { data: { replacement: 'https' } },
      );
    }
  }

  // Body.
  const bodyPair = node.bodyPair;
  if (bodyPair && method && METHODS_WITHOUT_BODY.has(method)) {
    sink.add(
      'body-not-allowed',
      spanOf(bodyPair.key as YamlNode),
      `A ${method} request cannot carry a body. Use POST (or PUT, PATCH) to send data, or put it in the URL's query for a ${method}.`,
    );
  } else if (bodyPair && (isMap(bodyPair.value) || isSeq(bodyPair.value)) && contentType === undefined) {
    sink.add(
      'json-body-without-content-type',
      spanOf(bodyPair.key as YamlNode),
      `Node "${node.id}" sends a JSON body but sets no Content-Type, so the API may not read it as JSON. Add "Content-Type: application/json" to its settings.`,
      { data: { header: 'Content-Type: application/json' } },
    );
  } else if (bodyPair && isScalar(bodyPair.value) && isJsonText(bodyPair.value.value) && contentType === undefined) {
    sink.add(
      'json-body-without-content-type',
      spanOf(bodyPair.key as YamlNode),
      `Node "${node.id}" sends JSON text as its body but sets no Content-Type, so it goes as text/plain and the API may not read it as JSON. Add "Content-Type: application/json" to its settings.`,
      { data: { header: 'Content-Type: application/json' } },
    );
  }
  // A node has no form body: with a multipart Content-Type and no boundary of its own (a body written
  // out as multipart text names one), the API cannot read what is sent.
  if (
    contentTypeField &&
    contentType !== undefined &&
    /^\s*multipart\/form-data\b/i.test(contentType) &&
    !/;\s*boundary=/i.test(contentType)
  ) {
    sink.add(
      'multipart-without-form',
      valueSpanToSource(text, contentTypeField.scalar, 0, contentTypeField.value.length),
      `Node "${node.id}" says its body is a multipart form (Content-Type: multipart/form-data), but an API node sends JSON, text or one file input as its body, not a form, so the API cannot read it. Send the file as the body with its own Content-Type, or call the API from a service that takes a form.`,
    );
  }
}

interface UrlFacts {
  hasKey: boolean;
  insecureHost?: string;
  /** Where the scheme is written; computed only for a problem (mapping offsets costs more than the checks). */
  schemeSpan: () => Span;
}

function checkUrl(node: NodeDeclaration, url: StringField, method: string | undefined, text: string, sink: ProblemSink): UrlFacts {
  const raw = url.value;
  const expressions = scanExpressions(raw);
  const at = (start: number, end: number) => valueSpanToSource(text, url.scalar, start, end);
  const whole = spanOf(url.scalar);
  const facts: UrlFacts = { hasKey: false, schemeSpan: () => whole };
  const trimmed = raw.trim();
  if (trimmed === '') return facts;

  // A URL that starts with an expression (a whole URL from an input, say) can only be checked at run time.
  if (trimmed.startsWith('{{')) return checkApiKeyParameter(node, raw, method, at, facts, sink);
  const masked = maskExpressions(raw, expressions, 'x');
  // Without a scheme, that is the first thing to fix (a space in it may be its only other fault).
  if (!/^[a-z][a-z0-9+.-]*:/i.test(masked.trim())) {
    sink.add('invalid-url', whole, `The URL of node "${node.id}" is not a valid URL. It must start with https:// or http://.`);
    return facts;
  }
  const space = /\s/.exec(masked.trim());
  if (space) {
    const offset = raw.indexOf(masked.trim()) + space.index;
    sink.add(
      'invalid-url',
      at(offset, offset + 1),
      `The URL of node "${node.id}" contains a space; encode it as %20 (or move the value into an expression).`,
    );
    return facts;
  }
  let parsed: URL;
  try {
    parsed = new URL(masked.trim());
  } catch {
    const hint = /^[a-z][a-z0-9+.-]*:\/\//i.test(masked.trim()) ? 'Check the host and port.' : 'It must start with https:// or http://.';
    sink.add('invalid-url', whole, `The URL of node "${node.id}" is not a valid URL. ${hint}`);
    return facts;
  }
  const schemeEnd = raw.indexOf(':');
  facts.schemeSpan = () => at(raw.indexOf(trimmed), schemeEnd);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    sink.add(
      'unsupported-url-scheme',
      facts.schemeSpan(),
      `The URL of node "${node.id}" uses "${parsed.protocol.slice(0, -1)}:", but an API node calls http:// or https:// URLs.`,
    );
    return facts;
  }
  // A host written as an expression is only known at run time; a user name or password may be one.
  const authority = raw.slice(schemeEnd + 3, authorityEnd(masked, schemeEnd + 3));
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname) && !host.includes('{{')) {
    facts.insecureHost = parsed.hostname;
  }
  // A password in the URL is a credential sent with the request, a secret's as much as a literal.
  if (checkUserinfoPassword(node, raw, masked, parsed, schemeEnd, at, sink)) facts.hasKey = true;
  return checkApiKeyParameter(node, raw, method, at, facts, sink);
}

/**
 * A password in the URL's userinfo ("https://user:password@host/…") is a credential written in the
 * file. True when the URL has a password, literal or not.
 */
function checkUserinfoPassword(
  node: NodeDeclaration,
  raw: string,
  masked: string,
  parsed: URL,
  schemeEnd: number,
  at: (start: number, end: number) => Span,
  sink: ProblemSink,
): boolean {
  // The URL as it is sent decides whether there is a password (a "\" ends the host before an "@").
  if (parsed.password === '' || !masked.startsWith('//', schemeEnd + 1)) return false;
  const authorityStart = schemeEnd + 3;
  const end = authorityEnd(masked, authorityStart);
  // The last "@" ends the userinfo, as URL parsers read it; the first ":" in it ends the user name.
  const atSign = masked.lastIndexOf('@', end - 1);
  if (atSign < authorityStart) return false;
  const colon = masked.indexOf(':', authorityStart);
  if (colon === -1 || colon > atSign) return false;
  const password = raw.slice(colon + 1, atSign);
  if (password === '') return false;
  if (password.includes('{{')) return true;
  const user = raw.slice(authorityStart, colon);
  reportLiteral(sink, at, colon + 1, password, 'This password in the URL', `${user}:{{ secrets.%s }}@`, secretName(node.id, 'PASSWORD'));
  return true;
}

/** A literal credential in the URL, at its offset in the raw URL (a query value is reported decoded). */
function reportLiteral(
  sink: ProblemSink,
  at: (start: number, end: number) => Span,
  start: number,
  written: string,
  what: string,
  template: string,
  suggested: string,
): void {
  const finding = literalCredential({ start, end: start + written.length }, what, decodeSafely(written), template, suggested);
  sink.add(finding.code, at(finding.start, finding.end), finding.message, finding.data ? { data: finding.data } : {});
}

function checkApiKeyParameter(
  node: NodeDeclaration,
  raw: string,
  method: string | undefined,
  at: (start: number, end: number) => Span,
  facts: UrlFacts,
  sink: ProblemSink,
): UrlFacts {
  const query = raw.indexOf('?');
  if (query === -1) return facts;
  const hash = raw.indexOf('#', query);
  const queryEnd = hash === -1 ? raw.length : hash;
  let offset = query + 1;
  for (const part of raw.slice(query + 1, queryEnd).split('&')) {
    const equals = part.indexOf('=');
    const name = decodeSafely(equals === -1 ? part : part.slice(0, equals));
    const otherCredential = CREDENTIAL_PARAMETERS.get(name.toLowerCase());
    if (otherCredential !== undefined) {
      // A token or key in the query: only a literal value is flagged (an empty one may be a search field).
      const value = equals === -1 ? '' : part.slice(equals + 1);
      if (value.trim() !== '') facts.hasKey = true;
      if (value.trim() !== '' && !value.includes('{{')) {
        const suggested = secretName(node.id, otherCredential);
        reportLiteral(sink, at, offset + equals + 1, value, `This ${name} value`, `${name}={{ secrets.%s }}`, suggested);
      }
    } else if (API_KEY_PARAMETERS.has(name.toLowerCase())) {
      facts.hasKey = true;
      const value = equals === -1 ? '' : part.slice(equals + 1);
      const valueStart = offset + (equals === -1 ? part.length : equals + 1);
      const paramSpan = at(offset, offset + part.length);
      if (value.trim() === '') {
        sink.add(
          'api-key-empty',
          paramSpan,
          `The ${name} parameter in the URL of node "${node.id}" is empty. Write "${name}={{ secrets.${secretName(node.id, 'API_KEY')} }}".`,
        );
      } else if (!value.includes('{{')) {
        reportLiteral(sink, at, valueStart, value, `This ${name} value`, `${name}={{ secrets.%s }}`, secretName(node.id, 'API_KEY'));
      }
      if (method && method !== 'GET') {
        sink.add(
          'api-key-in-url-non-get',
          paramSpan,
          `Node "${node.id}" is a ${method} request with ${name} in the URL; an API key in the URL is meant for GET. Send it as a header instead: "x-api-key: {{ secrets.${secretName(node.id, 'API_KEY')} }}".`,
          { data: { parameter: name } },
        );
      }
    }
    offset += part.length + 1;
  }
  return facts;
}

/** A string body that is a JSON object or array (what a string body holding JSON is meant to be). */
function isJsonText(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const trimmed = value.trim();
  if (!/^[[{]/.test(trimmed)) return false;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return parsed !== null && typeof parsed === 'object';
  } catch {
    return false;
  }
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
