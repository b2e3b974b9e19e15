// An operation of an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1) as an API node: the
// document is read once and its operations listed cheaply; the chosen one's `$ref`s are resolved
// by `@apidevtools/json-schema-ref-parser` (the resolver under swagger-parser and
// @readme/openapi-parser), local ones only, so a document never makes us read another file or
// call a URL. Only what the node needs is followed: dereferencing a whole large document explodes
// (a 3 MB one passes the parser's depth limit). The operation becomes method, URL with its
// parameters as inputs, Accept and Content-Type, a body skeleton, and its security scheme in one
// of the service's four auth forms.
import $RefParser from '@apidevtools/json-schema-ref-parser';
import type { $Refs, JSONSchema } from '@apidevtools/json-schema-ref-parser';
// js-yaml, not the project's `yaml`: a 6 MB document loads in 0.4 s instead of 5.5 s (measured),
// and no edit of the document needs `yaml`'s source positions.
import { load as loadYaml, YAMLException } from 'js-yaml';
import { scanExpressions } from '../document/expressions';
import { JsonTooDeepError, parseJson } from '../json';
import type { ApiNodeSpec, ImportedApiNode, ImportedInput, ImportedSecret } from './apiNodeFromCurl';
import { holdsTemplate, TEMPLATE_IN_IMPORTED_TEXT, templateInValue } from './importedText';

export type OpenApiVersion = 'swagger-2.0' | 'openapi-3.0' | 'openapi-3.1';

export interface OpenApiOperation {
  /** `GET /pets/{petId}`: unique in a document, how an operation is chosen. */
  readonly key: string;
  readonly operationId?: string;
  readonly method: string;
  readonly path: string;
  readonly summary?: string;
  readonly tags: readonly string[];
  readonly deprecated: boolean;
}

export interface OpenApiDocument {
  readonly version: OpenApiVersion;
  readonly title: string;
  readonly operations: readonly OpenApiOperation[];
  /** The parsed document, for `apiNodeFromOperation`. */
  readonly raw: Readonly<Record<string, unknown>>;
  /** Where it was read from (a URL resolves relative server URLs). */
  readonly source?: string;
}

export class OpenApiError extends Error {
  constructor(
    message: string,
    /** Where in the document: "line 12, column 3", or a JSON pointer like "#/paths/~1pets/get". */
    readonly where?: string,
  ) {
    super(where !== undefined ? `${message} (${where})` : message);
    this.name = 'OpenApiError';
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/**
 * The deepest nesting of lists and mappings read in a document: js-yaml's own limit, given to JSON
 * too. The node's YAML is written by recursive code, which a 2,000-deep example overflowed.
 */
export const MAX_OPENAPI_DEPTH = 100;

/** Reads a document's text (JSON or YAML) and lists its operations: linear in its size, no `$ref` followed. */
export function readOpenApi(text: string, source?: string): OpenApiDocument {
  let raw: unknown;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      raw = parseJson(text, MAX_OPENAPI_DEPTH);
    } catch (error) {
      if (error instanceof JsonTooDeepError) throw new OpenApiError(tooDeepMessage('arrays and objects'));
      throw new OpenApiError(`The document is not valid JSON: ${(error as Error).message}`);
    }
  } else {
    try {
      raw = loadYaml(text, { maxDepth: MAX_OPENAPI_DEPTH });
    } catch (error) {
      if (error instanceof YAMLException) {
        const mark = error.mark;
        throw new OpenApiError(
          /nesting exceeded maxDepth/.test(error.reason)
            ? tooDeepMessage('lists and mappings')
            : `The document is not valid YAML: ${error.reason}`,
          mark ? `line ${mark.line + 1}, column ${mark.column + 1}` : undefined,
        );
      }
      throw error;
    }
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new OpenApiError('The document is not an OpenAPI document: it is not a mapping.');
  const document = raw as Record<string, unknown>;
  const version = versionOf(document);
  const paths = document['paths'];
  if (paths === undefined) throw new OpenApiError('The document has no "paths": it describes no operation.', '#/paths');
  if (paths === null || typeof paths !== 'object' || Array.isArray(paths))
    throw new OpenApiError('"paths" is not a mapping of paths to operations.', '#/paths');
  const operations: OpenApiOperation[] = [];
  for (const [path, item] of Object.entries(paths as Record<string, unknown>)) {
    if (item === null || typeof item !== 'object') continue;
    for (const method of METHODS) {
      const operation = (item as Record<string, unknown>)[method];
      if (operation === null || typeof operation !== 'object') continue;
      const fields = operation as Record<string, unknown>;
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        ...(typeof fields['operationId'] === 'string' ? { operationId: fields['operationId'] } : {}),
        method: method.toUpperCase(),
        path,
        ...(typeof fields['summary'] === 'string' ? { summary: fields['summary'] } : {}),
        tags: Array.isArray(fields['tags']) ? fields['tags'].filter((tag): tag is string => typeof tag === 'string') : [],
        deprecated: fields['deprecated'] === true,
      });
    }
  }
  const info = document['info'] as { title?: unknown } | undefined;
  return {
    version,
    title: typeof info?.title === 'string' ? info.title : 'API',
    operations,
    raw: document,
    ...(source !== undefined ? { source } : {}),
  };
}

function tooDeepMessage(what: string): string {
  return `The document nests ${what} deeper than ${MAX_OPENAPI_DEPTH} levels, more than an import reads: no OpenAPI document nests that deep. Flatten it, or import from another copy.`;
}

function versionOf(document: Record<string, unknown>): OpenApiVersion {
  const openapi = document['openapi'];
  if (typeof openapi === 'string') {
    if (openapi.startsWith('3.0')) return 'openapi-3.0';
    if (openapi.startsWith('3.1')) return 'openapi-3.1';
    throw new OpenApiError(`OpenAPI ${openapi} is not read here: Swagger 2.0 and OpenAPI 3.0 and 3.1 are.`, '#/openapi');
  }
  if (document['swagger'] === '2.0') return 'swagger-2.0';
  throw new OpenApiError('The document says neither "openapi: 3.x" nor "swagger: \'2.0\'" at its top: it is not an OpenAPI document.');
}

/** Finds an operation by its key (`GET /pets`), its operationId, or either in any case. */
export function findOperation(document: OpenApiDocument, wanted: string): OpenApiOperation | undefined {
  const exact = document.operations.find((operation) => operation.key === wanted || operation.operationId === wanted);
  if (exact) return exact;
  const lower = wanted.toLowerCase();
  return document.operations.find((operation) => operation.key.toLowerCase() === lower || operation.operationId?.toLowerCase() === lower);
}

/** The operations under one tag (their first); `tag` is undefined for the operations with none. */
export interface OperationGroup {
  readonly tag?: string;
  readonly operations: readonly OpenApiOperation[];
}

/**
 * The operations by their first tag, tags in the order they first appear and the untagged last.
 * Each is pushed onto its group: a copy of the group per operation took minutes for the tens of
 * thousands of operations a document can list.
 */
export function operationsByTag(operations: readonly OpenApiOperation[]): OperationGroup[] {
  const tagged = new Map<string, OpenApiOperation[]>();
  const untagged: OpenApiOperation[] = [];
  for (const operation of operations) {
    const tag = operation.tags[0];
    if (tag === undefined) {
      untagged.push(operation);
      continue;
    }
    const group = tagged.get(tag);
    if (group) group.push(operation);
    else tagged.set(tag, [operation]);
  }
  const groups: OperationGroup[] = [...tagged].map(([tag, list]) => ({ tag, operations: list }));
  if (untagged.length > 0) groups.push({ operations: untagged });
  return groups;
}

type Json = Record<string, unknown>;

/**
 * The node of one operation. Only that operation, with the document's components, is dereferenced,
 * so a 10 MB document costs what its one operation needs.
 */
export async function apiNodeFromOperation(
  document: OpenApiDocument,
  operation: OpenApiOperation,
  options: { readonly existingIds?: ReadonlySet<string> } = {},
): Promise<ImportedApiNode> {
  const raw = document.raw;
  let refs: $Refs;
  try {
    refs = await new $RefParser().resolve(raw as JSONSchema, { resolve: { external: false } });
  } catch (error) {
    throw new OpenApiError(`The document's references cannot be read: ${(error as Error).message}`);
  }
  /** The value a `$ref` points at (following chains of them); the value itself when it is none. */
  const deref = (value: unknown): unknown => {
    let current = value;
    for (let hops = 0; isObject(current) && typeof current['$ref'] === 'string'; hops++) {
      const ref = current['$ref'];
      if (!ref.startsWith('#'))
        throw new OpenApiError(
          `The operation ${operation.key} refers to another document (${ref}), which is not read: import from a bundled document.`,
        );
      if (hops > 50) throw new OpenApiError(`The reference ${ref} only leads to other references.`);
      let target: unknown;
      try {
        target = refs.get(ref);
      } catch {
        target = undefined;
      }
      if (target === undefined)
        throw new OpenApiError(`The operation ${operation.key} refers to something the document does not have`, ref);
      current = target;
    }
    return current;
  };
  const resolved = raw as Json;
  const item = deref((raw['paths'] as Json)[operation.path]) as Json;
  const op = deref(item[operation.method.toLowerCase()]) as Json;
  const pathPointer = ['paths', operation.path];
  const opPointer = [...pathPointer, operation.method.toLowerCase()];
  if (holdsTemplate(operation.path)) throw templateError('The path', pathPointer);
  // Each parameter with where it is written, for an error that names it.
  const located = [
    ...asArray(item['parameters']).map((parameter, index) => ({ parameter, at: [...pathPointer, 'parameters', index] })),
    ...asArray(op['parameters']).map((parameter, index) => ({ parameter, at: [...opPointer, 'parameters', index] })),
  ]
    .map(({ parameter, at }) => ({ parameter: deref(parameter), at }))
    .filter((entry): entry is { parameter: Json; at: (string | number)[] } => isObject(entry.parameter));
  const parameters = located.map((entry) => entry.parameter);
  // An operation's own parameter replaces the path item's of the same name and place.
  const byKey = new Map<string, { parameter: Json; at: (string | number)[] }>();
  for (const entry of located) byKey.set(`${String(entry.parameter['in'])}:${String(entry.parameter['name'])}`, entry);

  const inputs: ImportedInput[] = [];
  const addInput = (parameter: Json): string => {
    const name = inputName(String(parameter['name']));
    if (!inputs.some((input) => input.name === name)) {
      const schema = (isObject(parameter['schema']) ? deref(parameter['schema']) : parameter) as Json;
      const type = inputType(schema['type']);
      const values = Array.isArray(schema['enum'])
        ? schema['enum'].filter((value) => ['string', 'number', 'boolean'].includes(typeof value))
        : [];
      inputs.push({
        name,
        ...(type !== undefined ? { type } : {}),
        required: parameter['required'] === true || parameter['in'] === 'path',
        ...(values.length > 0 ? { enum: values as (string | number | boolean)[] } : {}),
        ...(typeof parameter['description'] === 'string' ? { description: parameter['description'] } : {}),
      });
    }
    return `{{ inputs.${name} }}`;
  };

  const settings: string[] = [];
  let path = operation.path;
  const query: string[] = [];
  for (const { parameter, at } of byKey.values()) {
    const place = parameter['in'];
    const name = String(parameter['name']);
    if (place === 'path') path = path.split(`{${name}}`).join(addInput(parameter));
    else if (place === 'query' && parameter['required'] === true) query.push(`${encodeURIComponent(name)}=${addInput(parameter)}`);
    else if (place === 'header' && parameter['required'] === true && !/^(accept|content-type|authorization)$/i.test(name))
      settings.push(`${headerName(name, "The header parameter's name", [...at, 'name'])}: ${addInput(parameter)}`);
  }

  const base = serverOf(document, resolved);
  const secrets: ImportedSecret[] = [];
  const notes: string[] = [];
  const security = securityOf(resolved, op, operation.method, () => secretHost(base), secrets, notes, deref);
  settings.push(...security.headers);
  query.push(...security.query);

  const accept = responseTypeOf(document.version, resolved, op, deref);
  if (accept) settings.push(`Accept: ${mediaType(accept, [...opPointer, document.version === 'swagger-2.0' ? 'produces' : 'responses'])}`);
  const request = requestBodyOf(document.version, resolved, op, operation, parameters, deref, notes);
  if (request)
    settings.push(
      `Content-Type: ${mediaType(request.type, [...opPointer, document.version === 'swagger-2.0' ? 'consumes' : 'requestBody'])}`,
    );

  const url = `${base.replace(/\/+$/, '')}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  // Every expression of the node is one the import wrote: text of the document joined to it (a
  // path ending in "{" before a parameter's "{{ inputs.id }}") must not make another.
  const written = new Set([
    ...inputs.map((input) => `{{ inputs.${input.name} }}`),
    ...secrets.map((secret) => `{{ secrets.${secret.name} }}`),
  ]);
  written.add('{{ inputs.base_url }}');
  if (!onlyWrittenExpressions(url, written)) throw templateError("The operation's URL", pathPointer);
  for (const setting of settings)
    if (!onlyWrittenExpressions(setting, written)) throw templateError('A header of the operation', opPointer);
  if (base.startsWith('{{ inputs.base_url }}') && !inputs.some((input) => input.name === 'base_url'))
    inputs.push({ name: 'base_url', description: "The API's base URL (the document's server is relative)" });
  const node: ApiNodeSpec = {
    type: 'api',
    method: operation.method,
    url,
    ...(settings.length > 0 ? { settings } : {}),
    ...(request?.body !== undefined ? { body: request.body } : {}),
  };
  return {
    id: uniqueId(operationIdOf(operation), options.existingIds ?? new Set()),
    node,
    secrets,
    inputs,
    notes: notes.map((text) => ({ code: 'openapi', text })),
  };
}

/** A JSON pointer into the document: `#/paths/~1pets/get`. */
function pointer(segments: readonly (string | number)[]): string {
  return `#/${segments.map((segment) => String(segment).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/** Imported text holding "{{", refused: what it is and where. */
function templateError(what: string, at: readonly (string | number)[]): OpenApiError {
  return new OpenApiError(`${what} holds "{{": ${TEMPLATE_IN_IMPORTED_TEXT}. Nothing is imported.`, pointer(at));
}

/** Whether every `{{ … }}` of the text is one of those the import wrote. */
function onlyWrittenExpressions(text: string, written: ReadonlySet<string>): boolean {
  return scanExpressions(text).every((expression) => written.has(text.slice(expression.start, expression.end)));
}

/** An HTTP header's name (a token: no spaces, colons or braces), or an error naming where it was. */
function headerName(name: string, what: string, at: readonly (string | number)[]): string {
  if (holdsTemplate(name)) throw templateError(what, at);
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new OpenApiError(
      `${what} "${name.slice(0, 80)}" is not an HTTP header name (letters, digits and - only). Nothing is imported.`,
      pointer(at),
    );
  return name;
}

/** A media type the document lists, as a header value: no "{{", no line break. */
function mediaType(type: string, at: readonly (string | number)[]): string {
  if (holdsTemplate(type)) throw templateError('A media type', at);
  if (/[\r\n]/.test(type))
    throw new OpenApiError('A media type holds a line break, which no header value can. Nothing is imported.', pointer(at));
  return type;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function inputName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `p_${cleaned}`;
}

function inputType(type: unknown): ImportedInput['type'] {
  if (type === 'integer' || type === 'number') return 'number';
  if (type === 'boolean') return 'boolean';
  return type === 'string' ? 'string' : undefined;
}

/** A host, or a host and port, as a server variable in the host part must be. */
const HOST_TEXT = /^[A-Za-z0-9.-]+(?::\d{1,5})?$/;
/** A part of a path, as a server variable in the path (and a base path) must be: no "?", "#", "@" or braces. */
const PATH_TEXT = /^[A-Za-z0-9._~!$&'()*+,;=:%/-]*$/;
/** A whole server URL, as a variable that is all of a server's start must be: scheme, host, path. */
const BASE_URL_TEXT = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?(?:\/[A-Za-z0-9._~!$&'()*+,;=:%/-]*)?$/i;

/**
 * The first server's URL with its variables' defaults (3.x), or scheme, host and basePath (2.0).
 * The document's text stays where it stands: a variable of the host is a host (a default such as
 * "127.0.0.1:18081/c?t=" would move the request to another host), one of the path a path.
 */
function serverOf(document: OpenApiDocument, resolved: Json): string {
  let base: string;
  if (document.version === 'swagger-2.0') {
    const schemes = asArray(resolved['schemes']).filter((scheme): scheme is string => scheme === 'http' || scheme === 'https');
    const scheme = schemes.includes('https') ? 'https' : (schemes[0] ?? 'https');
    const host = typeof resolved['host'] === 'string' ? resolved['host'] : undefined;
    const basePath = typeof resolved['basePath'] === 'string' ? resolved['basePath'] : '';
    if (host !== undefined) checkServerText(host, HOST_TEXT, 'The host', ['host'], 'a host name and port');
    checkServerText(basePath, PATH_TEXT, 'The base path', ['basePath'], 'a path');
    base = host !== undefined ? `${scheme}://${host}${basePath}` : basePath;
  } else {
    const servers = asArray(resolved['servers']);
    const index = servers.findIndex(isObject);
    const server = index >= 0 ? (servers[index] as Json) : undefined;
    const template = typeof server?.['url'] === 'string' ? server['url'] : '/';
    if (holdsTemplate(template)) throw templateError("The server's URL", ['servers', index, 'url']);
    const variables = isObject(server?.['variables']) ? server['variables'] : {};
    const schemeEnd = template.indexOf('://');
    const hostStart = schemeEnd + 3;
    const hostEnd = schemeEnd < 0 ? -1 : hostStart + (/[/?#]/.exec(template.slice(hostStart))?.index ?? template.length - hostStart);
    base = template.replace(/\{([^{}]+)\}/g, (whole, name: string, at: number) => {
      const variable = variables[name];
      if (!isObject(variable) || variable['default'] === undefined) return whole;
      const value = String(variable['default']);
      const where = ['servers', index, 'variables', name, 'default'];
      const what = `The server variable ${name}`;
      if (schemeEnd >= 0 && at < schemeEnd) checkServerText(value, /^https?$/i, what, where, 'http or https (it is the scheme)');
      else if (schemeEnd >= 0 && at >= hostStart && at < hostEnd) {
        // "https://api.example.com{basePath}": a variable that ends the host may start the path.
        const endsHost = at + whole.length === hostEnd && value.startsWith('/');
        checkServerText(
          value,
          endsHost ? PATH_TEXT : HOST_TEXT,
          what,
          where,
          endsHost ? 'a path' : 'a host name and port (it is in the host)',
        );
      } else if (schemeEnd < 0 && at === 0 && !value.startsWith('/'))
        checkServerText(value, BASE_URL_TEXT, what, where, 'an http(s) URL of a host and a path (it starts the URL)');
      else checkServerText(value, PATH_TEXT, what, where, 'a path (it is in the path)');
      return value;
    });
  }
  if (/^https?:\/\//i.test(base)) return base;
  if (document.source !== undefined && /^https?:\/\//i.test(document.source)) return new URL(base || '/', document.source).toString();
  // A relative server and a document from a file: the caller says where the API is.
  return `{{ inputs.base_url }}${base.startsWith('/') || base === '' ? base : `/${base}`}`;
}

/** Text of the server (a variable's value, a host, a base path) that must match `shape`, or an error naming it. */
function checkServerText(value: string, shape: RegExp, what: string, at: readonly (string | number)[], shapeWords: string): void {
  if (holdsTemplate(value)) throw templateError(what, at);
  if (!shape.test(value))
    throw new OpenApiError(
      `${what} is "${value.slice(0, 80)}", which is not ${shapeWords}: it would change where the request goes. Nothing is imported.`,
      pointer(at),
    );
}

/**
 * The part of the secret names the node's host gives, `FOR_API_GITHUB_COM` (a port is added:
 * `FOR_LOCALHOST_8080`). The whole host is in it, "." as "_" and "-" as "__", so no other host has
 * the same name: a document cannot choose a name the user stored for another API (GITHUB_TOKEN)
 * and have it sent to its own host. A relative server's node calls the base_url input: `FOR_BASE_URL`.
 */
function secretHost(base: string): string {
  if (base.startsWith('{{ inputs.base_url }}')) return 'FOR_BASE_URL';
  let url: URL | undefined;
  try {
    url = new URL(base);
  } catch {
    url = undefined;
  }
  const hostname = url?.hostname.toLowerCase() ?? base;
  const labels = hostname.split('.');
  if (!url || !labels.every((label) => /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(label)))
    throw new OpenApiError(
      `The server's host ${hostname.slice(0, 80)} is not a host name of letters, digits and "-" (or an IPv4 address), so it cannot name the operation's secrets. Import from a copy of the document with such a host.`,
    );
  const name = labels.map((label) => label.toUpperCase().replace(/-/g, '__')).join('_');
  return `FOR_${name}${url.port !== '' ? `_${url.port}` : ''}`;
}

/** The media type to Accept: the first of a 2xx answer's, JSON preferred. */
type Deref = (value: unknown) => unknown;

function responseTypeOf(version: OpenApiVersion, resolved: Json, op: Json, deref: Deref): string | undefined {
  if (version === 'swagger-2.0') {
    const produces = asArray(op['produces'] ?? resolved['produces']).filter((type): type is string => typeof type === 'string');
    return preferJson(produces);
  }
  const responses = isObject(op['responses']) ? op['responses'] : {};
  const success =
    Object.keys(responses).find((code) => /^2\d\d$|^2XX$/i.test(code)) ?? (responses['default'] !== undefined ? 'default' : undefined);
  const response = success !== undefined ? deref(responses[success]) : undefined;
  return isObject(response) && isObject(response['content']) ? preferJson(Object.keys(response['content'])) : undefined;
}

function preferJson(types: readonly string[]): string | undefined {
  return types.find((type) => /json/i.test(type)) ?? types[0];
}

/** The request's Content-Type and a body skeleton: its example, else its required properties. */
function requestBodyOf(
  version: OpenApiVersion,
  resolved: Json,
  op: Json,
  operation: OpenApiOperation,
  parameters: readonly Json[],
  deref: Deref,
  notes: string[],
): { type: string; body?: unknown } | undefined {
  const opPointer = ['paths', operation.path, operation.method.toLowerCase()];
  if (version === 'swagger-2.0') {
    const consumes = asArray(op['consumes'] ?? resolved['consumes']).filter((type): type is string => typeof type === 'string');
    if (parameters.some((parameter) => parameter['in'] === 'formData') && !consumes.some((type) => /json/i.test(type)))
      throw formError(operation, consumes.find((type) => /multipart/i.test(type)) ?? 'formData parameters', [...opPointer, 'parameters']);
    const bodyParameter = parameters.find((parameter) => parameter['in'] === 'body');
    if (!bodyParameter) return undefined;
    return {
      type: preferJson(consumes) ?? 'application/json',
      body: withoutTemplates(exampleBody(bodyParameter['schema'], deref, notes), notes),
    };
  }
  const requestBody = deref(op['requestBody']);
  if (!isObject(requestBody) || !isObject(requestBody['content'])) return undefined;
  const type = preferJson(Object.keys(requestBody['content']));
  if (type === undefined) return undefined;
  if (/^multipart\/form-data\b/i.test(type)) throw formError(operation, type, [...opPointer, 'requestBody', 'content', type]);
  const media = deref(requestBody['content'][type]);
  if (!isObject(media)) return { type };
  const examples = isObject(media['examples']) ? Object.values(media['examples']).map(deref).find(isObject) : undefined;
  const example = media['example'] ?? examples?.['value'];
  if (example !== undefined && /json/i.test(type)) return { type, body: withoutTemplates(example, notes) };
  const schema = isObject(media['schema']) ? (deref(media['schema']) as Json) : undefined;
  if (!/json/i.test(type)) return { type, body: withoutTemplates(typeof example === 'string' ? example : '', notes) };
  return { type, ...(schema ? { body: withoutTemplates(exampleBody(media['schema'], deref, notes), notes) } : {}) };
}

/**
 * A request body of a multipart form, refused as the cURL import refuses -F: an API node sends JSON,
 * text or one file as its body, and a node with a form's Content-Type and no form would not work.
 */
function formError(operation: OpenApiOperation, type: string, at: readonly (string | number)[]): OpenApiError {
  return new OpenApiError(
    `The operation ${operation.key} sends a multipart form (${type.slice(0, 80)}). An API node sends JSON, text or one file input as its body, not a form: send the file as the body, or call the API from a service that takes a form.`,
    pointer(at),
  );
}

/**
 * The example body, with each string holding "{{" written "" and each key holding it left out: an
 * example is the document's sample, and APIs of templates (mail, messages) show theirs with
 * {{first_name}} in it, so the rest of it is kept and a note says what was taken out and where.
 */
function withoutTemplates(body: unknown, notes: string[]): unknown {
  const first = templateInValue(body);
  if (first === undefined) return body;
  let count = 0;
  // JSON.stringify walks in native code; the document's nesting is bounded (MAX_OPENAPI_DEPTH).
  const cleaned = JSON.parse(
    JSON.stringify(body, function (this: unknown, key: string, value: unknown) {
      if (key !== '' && !Array.isArray(this) && holdsTemplate(key)) {
        count++;
        return undefined;
      }
      if (typeof value === 'string' && holdsTemplate(value)) {
        count++;
        return '';
      }
      return value;
    }) ?? '""',
  ) as unknown;
  const place =
    first.length === 0
      ? 'the body itself'
      : `/${first.map((segment) => String(segment).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
  notes.push(
    `The example body holds "{{" (${count === 1 ? 'at' : `${count} times, first at`} ${place}): ${TEMPLATE_IN_IMPORTED_TEXT}, so ${count === 1 ? 'that text is' : 'those texts are'} written "" (a key holding it is left out). Fill in the body.`,
  );
  return cleaned;
}

/**
 * The most values an example body holds, itself included. Nothing else bounds its width: a schema of
 * many required properties, each another wide one, is N^7 values at the depth limit (a 1.7 KB
 * document froze the editor). A few hundred values is past what anyone edits by hand in an agent
 * file, and keeps the body to some KB.
 */
const EXAMPLE_BODY_VALUES = 500;

interface SkeletonBudget {
  valuesLeft: number;
  /** The schemas being expanded on the current path: one met again is a cycle. */
  readonly expanding: Set<Json>;
  /** Whether values ran out with properties still to write, and the nearest named schema there. */
  cut: boolean;
  cutIn: string | undefined;
}

/** The name a `$ref` gives its schema (`#/components/schemas/Pet` is Pet); none for an inline one. */
function refName(value: unknown): string | undefined {
  if (!isObject(value) || typeof value['$ref'] !== 'string') return undefined;
  const last = value['$ref'].split('/').pop() ?? '';
  return last.replace(/~1/g, '/').replace(/~0/g, '~') || undefined;
}

/** The body of a request's schema, with a note when it was cut short. */
function exampleBody(schemaValue: unknown, deref: Deref, notes: string[]): unknown {
  const schema = deref(schemaValue);
  const budget: SkeletonBudget = { valuesLeft: EXAMPLE_BODY_VALUES, expanding: new Set(), cut: false, cutIn: undefined };
  const body = skeleton(isObject(schema) ? schema : {}, 0, deref, budget, refName(schemaValue));
  if (budget.cut)
    notes.push(
      `The example body is cut short at ${EXAMPLE_BODY_VALUES} values, in ${budget.cutIn !== undefined ? `schema ${budget.cutIn}` : "the request's schema"}: the required properties from there on are left out; add them from the document.`,
    );
  return body;
}

/**
 * A value of a schema's shape: its example, else its required properties filled by type. A schema
 * met again inside itself is written `{}` (only an object's properties or allOf/oneOf/anyOf lead
 * back to it), and the values stop at the budget's.
 */
function skeleton(schema: Json, depth: number, deref: Deref, budget: SkeletonBudget, name: string | undefined): unknown {
  budget.valuesLeft--;
  if (schema['example'] !== undefined) return schema['example'];
  if (depth > 6) return null;
  if (budget.expanding.has(schema)) return {};
  budget.expanding.add(schema);
  try {
    // The parts as written, not dereferenced: a part's `$ref` is its name.
    const allOf = asArray(schema['allOf']).filter((part) => isObject(deref(part)));
    if (allOf.length > 0) {
      const parts: unknown[] = [];
      for (const part of allOf) {
        if (budget.valuesLeft <= 0) {
          budget.cut = true;
          budget.cutIn ??= name;
          break;
        }
        parts.push(skeleton(deref(part) as Json, depth + 1, deref, budget, refName(part) ?? name));
      }
      return Object.assign({}, ...parts.filter(isObject));
    }
    const options = [...asArray(schema['oneOf']), ...asArray(schema['anyOf'])];
    const targets = options.map(deref);
    const first = targets.findIndex(isObject);
    if (first >= 0) return skeleton(targets[first] as Json, depth + 1, deref, budget, refName(options[first]) ?? name);
    const type = Array.isArray(schema['type']) ? schema['type'].find((entry) => entry !== 'null') : schema['type'];
    if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0];
    switch (type) {
      case 'array':
        return [];
      case 'integer':
      case 'number':
        return 0;
      case 'boolean':
        return false;
      case 'string':
        return '';
      default: {
        const properties = isObject(schema['properties']) ? schema['properties'] : {};
        const required = asArray(schema['required']).filter((entry): entry is string => typeof entry === 'string');
        const entries: [string, unknown][] = [];
        for (const property of required) {
          if (budget.valuesLeft <= 0) {
            budget.cut = true;
            budget.cutIn ??= name;
            break;
          }
          const propertySchema = deref(properties[property]);
          // A property with no schema is written '' and counted like any value.
          if (!isObject(propertySchema)) budget.valuesLeft--;
          entries.push([
            property,
            isObject(propertySchema) ? skeleton(propertySchema, depth + 1, deref, budget, refName(properties[property]) ?? name) : '',
          ]);
        }
        return Object.fromEntries(entries);
      }
    }
  } finally {
    budget.expanding.delete(schema);
  }
}

/**
 * The operation's security (its own, else the document's): the first requirement, each scheme in
 * the service's form. Secret names say the credential's kind and the host it is sent to
 * (`TOKEN_FOR_API_GITHUB_COM`), never the document's words for it: a scheme named GITHUB_TOKEN would
 * otherwise have the user's stored secret of that name sent to the document's server.
 */
function securityOf(
  resolved: Json,
  op: Json,
  method: string,
  host: () => string,
  secrets: ImportedSecret[],
  notes: string[],
  deref: Deref,
): { headers: string[]; query: string[] } {
  const headers: string[] = [];
  const query: string[] = [];
  const requirements = asArray(op['security'] ?? resolved['security']).filter(isObject);
  const schemesAt =
    isObject(resolved['components']) && isObject(resolved['components']['securitySchemes'])
      ? ['components', 'securitySchemes']
      : ['securityDefinitions'];
  const schemes = (
    isObject(resolved['components']) && isObject(resolved['components']['securitySchemes'])
      ? resolved['components']['securitySchemes']
      : isObject(resolved['securityDefinitions'])
        ? resolved['securityDefinitions']
        : {}
  ) as Json;
  const requirement = requirements.find((entry) => Object.keys(entry).length > 0);
  for (const name of Object.keys(requirement ?? {})) {
    const scheme = deref(schemes[name]);
    if (!isObject(scheme)) continue;
    const secret = (kind: string): string => {
      const stem = `${kind}_${host()}`;
      let secretName = stem;
      // A second credential of the same kind (two API keys): API_KEY2_FOR_…, never a name another host has.
      for (let n = 2; secrets.some((entry) => entry.name === secretName); n++) secretName = `${kind}${n}_${host()}`;
      secrets.push({ name: secretName, from: `security scheme ${name}` });
      return `{{ secrets.${secretName} }}`;
    };
    const type = String(scheme['type']);
    const httpScheme = typeof scheme['scheme'] === 'string' ? scheme['scheme'].toLowerCase() : '';
    if ((type === 'http' && httpScheme === 'basic') || type === 'basic') {
      headers.push(`Authorization: Basic ${secret('BASIC')}`);
    } else if (type === 'http' && httpScheme === 'bearer') {
      headers.push(`Authorization: Bearer ${secret('TOKEN')}`);
    } else if (type === 'oauth2' || type === 'openIdConnect') {
      headers.push(`Authorization: Bearer ${secret('TOKEN')}`);
      notes.push(`Security scheme ${name} is ${type}: the node sends a Bearer token; get the token elsewhere and store it as a secret.`);
    } else if (type === 'apiKey') {
      const parameter =
        typeof scheme['name'] === 'string'
          ? headerName(scheme['name'], `The name of security scheme ${name}`, [...schemesAt, name, 'name'])
          : 'x-api-key';
      if (scheme['in'] === 'query' && method === 'GET') query.push(`${encodeURIComponent(parameter)}=${secret('API_KEY')}`);
      else if (scheme['in'] === 'query') {
        headers.push(`x-api-key: ${secret('API_KEY')}`);
        notes.push(
          `Security scheme ${name} takes the key in the query (${parameter}); on a ${method} request the node sends it as an x-api-key header, as the service's API key form asks.`,
        );
      } else if (scheme['in'] === 'cookie') headers.push(`Cookie: ${parameter}=${secret('COOKIE')}`);
      else headers.push(`${parameter}: ${secret('API_KEY')}`);
    } else {
      notes.push(
        `Security scheme ${name} (${type}${httpScheme ? ` ${httpScheme}` : ''}) has no form among the service's auth methods (Bearer, Basic, an API key): the node is made without it.`,
      );
    }
  }
  return { headers, query };
}

function operationIdOf(operation: OpenApiOperation): string {
  const base =
    operation.operationId ??
    `${operation.method}_${operation.path
      .split('/')
      .filter((segment) => segment !== '' && !segment.startsWith('{'))
      .join('_')}`;
  const snake = base
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[a-z_]/.test(snake) ? snake : `op_${snake}`;
}

function uniqueId(wanted: string, taken: ReadonlySet<string>): string {
  let id = wanted;
  for (let n = 2; taken.has(id); n++) id = `${wanted}_${n}`;
  return id;
}
