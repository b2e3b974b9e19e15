// What the editor features know about HTTP headers, schemes and media types, and the format's
// keys (taken from the JSON Schema so the two never disagree).
import { agentSchema } from '../validation/schemaCheck';

export interface HeaderInfo {
  readonly name: string;
  readonly description: string;
  /** Media types or other values worth suggesting after the colon. */
  readonly values?: readonly string[];
}

export const COMMON_HEADERS: readonly HeaderInfo[] = [
  {
    name: 'Authorization',
    description:
      'Credentials for the API. `Bearer <token>` sends an OAuth 2.0 access token; `Basic <base64 of user:password>` sends a user name and password. Keep the credential in a secret: `Authorization: Bearer {{ secrets.API_TOKEN }}`.',
  },
  {
    name: 'x-api-key',
    description:
      'An API key sent in a header, as many APIs (AWS API Gateway among them) expect it. Keep the key in a secret: `x-api-key: {{ secrets.API_KEY }}`.',
  },
  {
    name: 'Content-Type',
    description: 'The media type of the body this node sends. A mapping or list body is JSON: `Content-Type: application/json`.',
    values: [
      'application/json',
      'application/x-www-form-urlencoded',
      'text/plain',
      'text/csv',
      'application/xml',
      'application/octet-stream',
    ],
  },
  {
    name: 'Accept',
    description:
      'The media types this node wants back. With `application/json`, the response body is parsed and fields can be read as `{{ nodes.ID.body.field }}`.',
    values: ['application/json', 'text/plain', 'text/csv', 'application/xml', '*/*'],
  },
  { name: 'Accept-Language', description: 'The languages this node prefers in the answer, e.g. `en-US, en;q=0.8`.' },
  {
    name: 'Cache-Control',
    description: 'Caching directives, e.g. `no-cache` to ask for a fresh answer.',
    values: ['no-cache', 'no-store', 'max-age=0'],
  },
  { name: 'User-Agent', description: 'Names the client; some APIs require one.' },
  {
    name: 'Idempotency-Key',
    description: 'A unique key that lets the API recognise a repeated request (Stripe and others), e.g. `{{ inputs.request_id }}`.',
  },
  { name: 'If-None-Match', description: 'Asks for the resource only if its ETag differs (the answer is 304 otherwise).' },
  { name: 'If-Match', description: 'Changes the resource only if its ETag matches (the answer is 412 otherwise).' },
  { name: 'Prefer', description: 'Preferences for how the server answers, e.g. `return=representation`.' },
  { name: 'X-Request-Id', description: "An id to trace this request in the API's logs." },
  { name: 'Proxy-Authorization', description: 'Credentials for a proxy between this node and the API. Keep them in a secret.' },
];

export function headerInfo(name: string): HeaderInfo | undefined {
  const lower = name.trim().toLowerCase();
  return COMMON_HEADERS.find((header) => header.name.toLowerCase() === lower);
}

export const AUTH_SCHEMES = [
  {
    name: 'Bearer',
    secret: 'API_TOKEN',
    description: 'OAuth 2.0 access token (RFC 6750): `Authorization: Bearer <token>`. The token is one word; keep it in a secret.',
  },
  {
    name: 'Basic',
    secret: 'BASIC_CREDENTIALS',
    description:
      'User name and password (RFC 7617): `Authorization: Basic <base64 of user:password>`. Store the encoded value as one secret; typically used with POST.',
  },
] as const;

export const HTTP_METHOD_DOCS: Readonly<Record<string, string>> = {
  GET: 'Reads a resource. No body; an API key may go in the URL as `?api_key=`.',
  HEAD: 'Like GET, but the answer has no body (status and headers only).',
  POST: 'Creates a resource or runs an action; sends a body.',
  PUT: 'Replaces a resource with the body.',
  PATCH: 'Changes part of a resource.',
  DELETE: 'Removes a resource.',
  OPTIONS: 'Asks which methods and headers the API allows.',
};

export const NODE_TYPE_DOCS: Readonly<Record<string, string>> = {
  api: 'The generic API node: calls an HTTP API with a method, a URL, header strings (`settings`) and a body. Its result is `status`, `headers` and `body`.',
  template: 'Renders a text from expressions; its result is `body`, the text.',
};

export const INPUT_TYPE_DOCS: Readonly<Record<string, string>> = {
  string: 'Text.',
  number: 'A number.',
  boolean: 'true or false.',
  file: 'A file; agents with file inputs run through the multipart endpoint.',
};

type SchemaObject = {
  properties?: Record<string, SchemaObject>;
  description?: string;
  title?: string;
  $ref?: string;
  definitions?: Record<string, SchemaObject>;
};
const schema = agentSchema as unknown as SchemaObject;

function resolve(node: SchemaObject | undefined): SchemaObject | undefined {
  const ref = node?.$ref;
  return ref ? schema.definitions?.[ref.replace('#/definitions/', '')] : node;
}

/** The keys a mapping may have, with their descriptions, for a path of keys from the root. */
export function keysFor(path: readonly string[], nodeType: string | undefined): Array<{ key: string; description: string }> {
  let target: SchemaObject | undefined;
  const section = path[0];
  if (path.length === 0) target = schema;
  else if (path.length === 1 && section === 'deployment') target = resolve(schema.properties?.deployment);
  else if (path.length === 2 && section === 'inputs') target = schema.definitions?.input;
  else if (path.length === 2 && section === 'outputs') target = schema.definitions?.output;
  else if (path.length === 2 && section === 'nodes')
    target =
      nodeType === 'api'
        ? schema.definitions?.apiNode
        : nodeType === 'template'
          ? schema.definitions?.templateNode
          : schema.definitions?.node;
  return Object.entries(target?.properties ?? {}).map(([key, value]) => ({ key, description: resolve(value)?.description ?? '' }));
}

/** The description of a key at a path, for hovers. */
export function keyDescription(path: readonly string[], key: string, nodeType: string | undefined): string | undefined {
  return keysFor(path, nodeType).find((entry) => entry.key === key)?.description;
}
