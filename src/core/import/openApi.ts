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
import type { ApiNodeSpec, ImportedApiNode, ImportedInput, ImportedSecret } from './apiNodeFromCurl';

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

/** Reads a document's text (JSON or YAML) and lists its operations: linear in its size, no `$ref` followed. */
export function readOpenApi(text: string, source?: string): OpenApiDocument {
  let raw: unknown;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new OpenApiError(`The document is not valid JSON: ${(error as Error).message}`);
    }
  } else {
    try {
      raw = loadYaml(text);
    } catch (error) {
      if (error instanceof YAMLException) {
        const mark = error.mark;
        throw new OpenApiError(
          `The document is not valid YAML: ${error.reason}`,
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
  const parameters = [...asArray(item['parameters']), ...asArray(op['parameters'])].map(deref).filter(isObject);
  // An operation's own parameter replaces the path item's of the same name and place.
  const byKey = new Map<string, Json>();
  for (const parameter of parameters) byKey.set(`${String(parameter['in'])}:${String(parameter['name'])}`, parameter);

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
  for (const parameter of byKey.values()) {
    const place = parameter['in'];
    const name = String(parameter['name']);
    if (place === 'path') path = path.split(`{${name}}`).join(addInput(parameter));
    else if (place === 'query' && parameter['required'] === true) query.push(`${encodeURIComponent(name)}=${addInput(parameter)}`);
    else if (place === 'header' && parameter['required'] === true && !/^(accept|content-type|authorization)$/i.test(name))
      settings.push(`${name}: ${addInput(parameter)}`);
  }

  const secrets: ImportedSecret[] = [];
  const notes: string[] = [];
  const security = securityOf(resolved, op, operation.method, secrets, notes, deref);
  settings.push(...security.headers);
  query.push(...security.query);

  const accept = responseTypeOf(document.version, resolved, op, deref);
  if (accept) settings.push(`Accept: ${accept}`);
  const request = requestBodyOf(document.version, resolved, op, parameters, deref, notes);
  if (request) settings.push(`Content-Type: ${request.type}`);

  const base = serverOf(document, resolved);
  const url = `${base.replace(/\/+$/, '')}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
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

/** The first server's URL with its variables' defaults (3.x), or scheme, host and basePath (2.0). */
function serverOf(document: OpenApiDocument, resolved: Json): string {
  let base: string;
  if (document.version === 'swagger-2.0') {
    const schemes = asArray(resolved['schemes']).filter((scheme): scheme is string => typeof scheme === 'string');
    const scheme = schemes.includes('https') ? 'https' : (schemes[0] ?? 'https');
    const host = typeof resolved['host'] === 'string' ? resolved['host'] : undefined;
    const basePath = typeof resolved['basePath'] === 'string' ? resolved['basePath'] : '';
    base = host !== undefined ? `${scheme}://${host}${basePath}` : basePath;
  } else {
    const server = asArray(resolved['servers']).find(isObject);
    base = typeof server?.['url'] === 'string' ? server['url'] : '/';
    const variables = isObject(server?.['variables']) ? server['variables'] : {};
    base = base.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const variable = variables[name];
      return isObject(variable) && variable['default'] !== undefined ? String(variable['default']) : whole;
    });
  }
  if (/^https?:\/\//i.test(base)) return base;
  if (document.source !== undefined && /^https?:\/\//i.test(document.source)) return new URL(base || '/', document.source).toString();
  // A relative server and a document from a file: the caller says where the API is.
  return `{{ inputs.base_url }}${base.startsWith('/') || base === '' ? base : `/${base}`}`;
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
  parameters: readonly Json[],
  deref: Deref,
  notes: string[],
): { type: string; body?: unknown } | undefined {
  if (version === 'swagger-2.0') {
    const bodyParameter = parameters.find((parameter) => parameter['in'] === 'body');
    if (!bodyParameter) return undefined;
    const consumes = asArray(op['consumes'] ?? resolved['consumes']).filter((type): type is string => typeof type === 'string');
    return { type: preferJson(consumes) ?? 'application/json', body: exampleBody(bodyParameter['schema'], deref, notes) };
  }
  const requestBody = deref(op['requestBody']);
  if (!isObject(requestBody) || !isObject(requestBody['content'])) return undefined;
  const type = preferJson(Object.keys(requestBody['content']));
  if (type === undefined) return undefined;
  const media = deref(requestBody['content'][type]);
  if (!isObject(media)) return { type };
  const examples = isObject(media['examples']) ? Object.values(media['examples']).map(deref).find(isObject) : undefined;
  const example = media['example'] ?? examples?.['value'];
  if (example !== undefined && /json/i.test(type)) return { type, body: example };
  const schema = isObject(media['schema']) ? (deref(media['schema']) as Json) : undefined;
  if (!/json/i.test(type)) return { type, body: typeof example === 'string' ? example : '' };
  return { type, ...(schema ? { body: exampleBody(media['schema'], deref, notes) } : {}) };
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
 * the service's form. Secret names come from the scheme's name (`petstore_auth` is PETSTORE_AUTH).
 */
function securityOf(
  resolved: Json,
  op: Json,
  method: string,
  secrets: ImportedSecret[],
  notes: string[],
  deref: Deref,
): { headers: string[]; query: string[] } {
  const headers: string[] = [];
  const query: string[] = [];
  const requirements = asArray(op['security'] ?? resolved['security']).filter(isObject);
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
    const secret = (suffix: string): string => {
      const base = name
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .toUpperCase()
        .replace(/[^A-Z0-9]+/g, '_')
        .replace(/^_+|_+$/g, '');
      const secretName = base === '' ? suffix || 'API_KEY' : /^[0-9]/.test(base) ? `_${base}` : base;
      if (!secrets.some((entry) => entry.name === secretName)) secrets.push({ name: secretName, from: `security scheme ${name}` });
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
      const parameter = typeof scheme['name'] === 'string' ? scheme['name'] : 'x-api-key';
      if (scheme['in'] === 'query' && method === 'GET') query.push(`${encodeURIComponent(parameter)}=${secret('')}`);
      else if (scheme['in'] === 'query') {
        headers.push(`x-api-key: ${secret('')}`);
        notes.push(
          `Security scheme ${name} takes the key in the query (${parameter}); on a ${method} request the node sends it as an x-api-key header, as the service's API key form asks.`,
        );
      } else if (scheme['in'] === 'cookie') headers.push(`Cookie: ${parameter}=${secret('')}`);
      else headers.push(`${parameter}: ${secret('')}`);
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
