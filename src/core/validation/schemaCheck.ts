// The JSON Schema's rules, checked by ajv, with its errors mapped to source ranges and rewritten as
// messages that name the place and the fix.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Node as YamlNode } from 'yaml';
import agentSchema from '../../../schemas/agent.schema.json';
import validateAgentSchema from './agentSchemaValidator.generated';
import type { ProblemSink } from '../document/problemSink';
import type { ProblemCode, Span } from '../document/problems';
import { closestMatch, listWords } from '../document/suggest';
import { describeValue, locate, spanOf } from '../document/yamlAst';
import type { PathSegment } from '../document/yamlAst';

export { agentSchema };

/** Hints for required keys: what to add. */
const REQUIRED_HINTS: Record<string, string> = {
  version: 'Add "version: 1" at the top of the file.',
  name: 'Add a "name:" with a human-readable name for the agent.',
  method: 'Add "method: GET" (or POST, PUT, PATCH, DELETE).',
  url: 'Add "url: https://…" with the API to call.',
  text: 'Add "text:" with the text to render.',
  from: 'Add "from: "{{ nodes.ID.body }}"" with the value of this output.',
};

/** A schema to check a file against, and how its messages name a place in the file. */
export interface SchemaRules {
  readonly validate: ValidateFunction;
  /** A place in the file in words, e.g. `the method of node "fetch"`. */
  readonly describePath: (path: readonly PathSegment[]) => string;
}

const AGENT_SCHEMA: SchemaRules = { validate: validateAgentSchema, describePath };

export function checkSchema(root: YamlNode, value: unknown, sink: ProblemSink, schema: SchemaRules = AGENT_SCHEMA): void {
  if (schema.validate(value)) return;
  for (const error of schema.validate.errors ?? []) {
    if (sink.full) return;
    if (error.keyword === 'if' || error.keyword === 'propertyNames' || error.keyword === 'allOf') continue;
    reportError(error, root, sink, schema.describePath);
  }
}

function reportError(error: ErrorObject, root: YamlNode, sink: ProblemSink, describePath: SchemaRules['describePath']): void {
  const path = parsePointer(error.instancePath);
  const located = locate(root, path);
  const subject = describePath(path);
  const valueSpan = spanOf(located.node ?? located.nearest);
  const keySpan = located.keyNode ? spanOf(located.keyNode) : valueSpan;
  const last = path[path.length - 1];

  if (error.propertyName !== undefined) {
    // A propertyNames violation: the key itself is wrong.
    const keyPath = [...path, error.propertyName];
    const keyNode = locate(root, keyPath).keyNode;
    // Environment names (the environments file, an agent's deployment.environments) start with a letter.
    const environment = path[path.length - 1] === 'environments';
    const kind = environment
      ? 'Environment name'
      : path[0] === 'inputs'
        ? 'Input name'
        : path[0] === 'outputs'
          ? 'Output name'
          : path[0] === 'nodes'
            ? 'Node id'
            : 'Name';
    const fixed = error.propertyName
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .replace(environment ? /^(?=[^A-Za-z])/ : /^(?=[0-9-])/, environment ? 'env' : '_')
      .slice(0, 64);
    sink.add(
      'invalid-name',
      keyNode ? spanOf(keyNode) : valueSpan,
      error.keyword === 'maxLength'
        ? `${kind} "${error.propertyName}" is longer than 64 characters; shorten it.`
        : `${kind} "${error.propertyName}" may contain only letters, digits, "_" and "-", and must start with a letter${environment ? '' : ' or "_"'}; e.g. "${fixed}".`,
      { data: { replacement: fixed } },
    );
    return;
  }

  switch (error.keyword) {
    case 'required': {
      const missing = String(error.params.missingProperty);
      const hint = REQUIRED_HINTS[missing] ?? (missing === 'type' ? typeHint(path) : `Add "${missing}:".`);
      const span = path.length === 0 ? firstKeySpan(root) : keySpan;
      sink.add('missing-property', span, `${capitalize(subject)} is missing "${missing}". ${hint}`, { data: { property: missing } });
      return;
    }
    case 'additionalProperties': {
      const unknown = String(error.params.additionalProperty);
      const keyNode = locate(root, [...path, unknown]).keyNode;
      const allowed = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      const suggestion = closestMatch(unknown, allowed);
      const elsewhere = misplacedKeyHint(unknown, path, value(error));
      sink.add(
        'unknown-property',
        keyNode ? spanOf(keyNode) : keySpan,
        `${capitalize(subject)} has no key "${unknown}".${suggestion ? ` Did you mean "${suggestion}"?` : (elsewhere ?? (allowed.length ? ` It takes ${listWords(allowed, 'and')}.` : ''))}`,
        suggestion ? { data: { replacement: suggestion } } : {},
      );
      return;
    }
    case 'type': {
      const expected = String(error.params.type).split(',').map(typeWord);
      sink.add(
        'wrong-type',
        valueSpan,
        `${capitalize(subject)} must be ${expected.join(' or ')}, not ${describeValue(error.data)}.${typeFix(path, error.data)}`,
      );
      return;
    }
    case 'enum': {
      const allowed = (error.params.allowedValues as unknown[]).map(String);
      // A list or a mapping where a word belongs is named as such, not as "[object Object]".
      const structured = error.data !== null && typeof error.data === 'object';
      const given = structured ? '' : String(error.data);
      const suggestion = structured ? undefined : closestMatch(given, allowed);
      const code: ProblemCode =
        path[0] === 'nodes' && last === 'type'
          ? 'unknown-node-type'
          : path[0] === 'inputs' && last === 'type'
            ? 'invalid-input-type'
            : path[0] === 'nodes' && last === 'method'
              ? 'unknown-http-method'
              : 'invalid-value';
      const caseOnly = suggestion !== undefined && suggestion.toLowerCase() === given.toLowerCase();
      const lead = structured
        ? `${capitalize(subject)} is ${describeValue(error.data)}; write one of ${listWords(allowed)}.`
        : code === 'unknown-node-type'
          ? `Unknown node type "${given}". A node is 'api' (calls an HTTP API) or 'template' (renders text).`
          : code === 'invalid-input-type'
            ? `"${given}" is not an input type; use ${listWords(allowed)}.`
            : code === 'unknown-http-method'
              ? `"${given}" is not an HTTP method; use ${listWords(allowed)}.`
              : `${capitalize(subject)} is "${given}", but must be ${listWords(allowed)}.`;
      const tail = caseOnly ? ` Write it as "${suggestion}".` : suggestion ? ` Did you mean "${suggestion}"?` : '';
      sink.add(code, valueSpan, lead + tail, suggestion ? { data: { replacement: suggestion } } : {});
      return;
    }
    case 'const': {
      if (path.length === 1 && path[0] === 'version') {
        sink.add(
          'unsupported-version',
          valueSpan,
          `Version ${JSON.stringify(error.data)} is not supported; this extension reads format version 1. Write "version: 1".`,
          { data: { replacement: '1' } },
        );
      } else {
        sink.add('invalid-value', valueSpan, `${capitalize(subject)} must be ${JSON.stringify(error.params.allowedValue)}.`);
      }
      return;
    }
    case 'pattern': {
      if (path[0] === 'deployment' && last === 'baseUrl' && path.length === 2) {
        sink.add(
          'invalid-url',
          valueSpan,
          'The deployment baseUrl must start with https:// (or http:// for a local server), e.g. "https://agents.example.com".',
        );
      } else if (last === 'baseUrl') {
        sink.add(
          'invalid-url',
          valueSpan,
          `${capitalize(subject)} must start with https:// (or http:// for a local server), e.g. "https://agents.example.com".`,
        );
      } else if (path[0] === 'deployment' || path[0] === 'environments') {
        sink.add(
          'invalid-value',
          valueSpan,
          `${capitalize(subject)} must be one path segment (letters, digits, "-", "_", "." and "~"), as shown in the Agents tab.`,
        );
      } else if (path.length === 1 && last === 'agent') {
        // A test file's agent: (an agent file has no such key at its top).
        sink.add(
          'invalid-value',
          valueSpan,
          `"agent" must be the path of the agent file under test, relative to this test file, ending in .agent.yaml or .agent.yml (e.g. "weather-report.agent.yaml"); "${String(error.data)}" does not.`,
        );
      } else if (path.includes('accept')) {
        sink.add(
          'invalid-value',
          valueSpan,
          `${capitalize(subject)} must be a media type such as "image/png" or "image/*", or an extension such as ".pdf".`,
        );
      } else {
        sink.add('invalid-value', valueSpan, `${capitalize(subject)} ${error.message ?? 'is not valid'}.`);
      }
      return;
    }
    case 'minLength':
      sink.add('invalid-value', valueSpan, `${capitalize(subject)} must not be empty.`);
      return;
    case 'maxLength':
      sink.add('invalid-value', valueSpan, `${capitalize(subject)} is longer than ${String(error.params.limit)} characters.`);
      return;
    case 'minItems':
      sink.add(
        'invalid-value',
        valueSpan,
        `${capitalize(subject)} must list at least ${String(error.params.limit)} value; remove it or add one.`,
      );
      return;
    case 'minProperties':
      sink.add('invalid-value', valueSpan, `${capitalize(subject)} must have at least ${String(error.params.limit)} entry; add one.`);
      return;
    case 'maxProperties':
      sink.add('invalid-value', valueSpan, `${capitalize(subject)} may have at most ${String(error.params.limit)} entries; remove some.`);
      return;
    case 'minimum':
    case 'maximum':
      sink.add(
        'invalid-value',
        valueSpan,
        `${capitalize(subject)} must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(error.params.limit)}.`,
      );
      return;
    case 'uniqueItems':
      sink.add(
        'invalid-value',
        valueSpan,
        `${capitalize(subject)} lists the same value twice (items ${String(error.params.j + 1)} and ${String(error.params.i + 1)}); remove one.`,
      );
      return;
    default:
      sink.add('invalid-value', valueSpan, `${capitalize(subject)} ${error.message ?? 'is not valid'}.`);
  }
}

function value(error: ErrorObject): unknown {
  return error.data;
}

function parsePointer(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** Names the place a path points to, for messages: "node 'summarize'", "the method of node 'x'". */
function describePath(path: readonly PathSegment[]): string {
  if (path.length === 0) return 'the agent';
  const [section, name, ...rest] = path;
  const owner =
    section === 'inputs'
      ? `input "${String(name)}"`
      : section === 'outputs'
        ? `output "${String(name)}"`
        : section === 'nodes'
          ? `node "${String(name)}"`
          : section === 'deployment'
            ? 'the deployment'
            : undefined;
  if (owner === undefined) return `"${String(section)}"`;
  if (section === 'deployment') {
    if (name === 'environments' && rest.length > 0) {
      const [environment, field] = rest;
      const override = `the deployment's override for environment "${String(environment)}"`;
      return field === undefined ? override : `the ${String(field)} of ${override}`;
    }
    return name === undefined ? owner : `the deployment's ${String(name)}`;
  }
  if (name === undefined) return `"${String(section)}"`;
  if (rest.length === 0) return owner;
  const [field, ...deeper] = rest;
  if (field === 'settings' && typeof deeper[0] === 'number') return `header string ${deeper[0] + 1} of ${owner}`;
  if (deeper.length === 0) return `the ${String(field)} of ${owner}`;
  if (deeper.length === 1 && typeof deeper[0] === 'number') return `item ${deeper[0] + 1} of the ${String(field)} of ${owner}`;
  return `"${[field, ...deeper].join('.')}" of ${owner}`;
}

function typeHint(path: readonly PathSegment[]): string {
  if (path[0] === 'nodes') return 'Add "type: api" (calls an HTTP API) or "type: template" (renders text).';
  if (path[0] === 'inputs') return 'Add "type: string" (or number, boolean, file).';
  return 'Add "type:".';
}

function typeWord(type: string): string {
  switch (type) {
    case 'object':
      return 'a mapping';
    case 'array':
      return 'a list';
    case 'string':
      return 'text';
    case 'integer':
      return 'a whole number';
    case 'null':
      return 'empty';
    default:
      return `a ${type}`;
  }
}

function typeFix(path: readonly PathSegment[], data: unknown): string {
  const last = path[path.length - 1];
  if (last === 'settings' && typeof data === 'string') return ' Write each header as a list item: settings: ["Accept: application/json"].';
  if (typeof last === 'number' && path.includes('settings') && data !== null && typeof data === 'object') {
    return ' A header string with ": " inside must be quoted, e.g. - "Accept: application/json".';
  }
  if (last === 'required' && typeof data === 'string') return ' Write true or false without quotes.';
  return '';
}

/** For a key that belongs to another kind of node or section, say where it goes. */
function misplacedKeyHint(key: string, path: readonly PathSegment[], data: unknown): string | undefined {
  const type = data && typeof data === 'object' && 'type' in data ? String((data as { type: unknown }).type) : undefined;
  if (path[0] === 'nodes' && path.length === 2) {
    if (key === 'text' && type === 'api') return ' "text" belongs to template nodes; an API node sends a "body".';
    if (['method', 'url', 'settings', 'body'].includes(key) && type === 'template')
      return ` "${key}" belongs to API nodes ("type: api"); a template node has "text".`;
    if (key === 'headers') return ' Headers go in "settings:" as "Name: value" strings.';
  }
  return undefined;
}

function firstKeySpan(root: YamlNode): Span {
  const range = root.range;
  if (!range) return { start: 0, end: 0 };
  return { start: range[0], end: Math.min(range[1], range[0] + 1) };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
