// Quick fixes for validation problems: each is a set of text edits, and for a credential moved out
// of the file, the value to offer for the secret storage.
import { isSeq } from 'yaml';
import type { Node as YamlNode, Scalar, YAMLSeq } from 'yaml';
import { looksLikePlaceholder } from '../validation/headerChecks';
import type { NodeDeclaration } from '../document/model';
import type { Problem, ProblemCode, Span } from '../document/problems';
import { findPair, spanOf } from '../document/yamlAst';
import { authorityEnd } from '../document/urlCredentials';
import { contains, indexAgentText } from './agentIndex';
import type { AgentIndex } from './agentIndex';
import { base64OfText } from '../utf8';

export interface TextEdit {
  readonly span: Span;
  readonly newText: string;
}

/** Edits of one file of several (a rename across files), by the path the caller gave it. */
export interface FileEdits {
  readonly path: string;
  readonly edits: readonly TextEdit[];
}

/** One file of several (a search or rename across files), by the path the caller gave it (a path or a URI), with its text. */
export interface FileText {
  readonly path: string;
  readonly text: string;
}

/** A place in one file of several (references across files), by the path the caller gave it. */
export interface FileSpan {
  readonly path: string;
  readonly span: Span;
}

export interface QuickFix {
  readonly title: string;
  readonly problemCode: ProblemCode;
  readonly edits: readonly TextEdit[];
  readonly isPreferred?: boolean;
  /** A credential taken out of the file, to offer for the secret storage under this name. */
  readonly storeSecret?: { readonly name: string; readonly value: string };
}

/** Problems whose fix is to write `data.replacement` over the problem's span. */
const REPLACEMENT_CODES = new Set<ProblemCode>([
  'unknown-input',
  'unknown-node',
  'unknown-expression-root',
  'invalid-node-field',
  'unknown-property',
  'unknown-http-method',
  'invalid-input-type',
  'unknown-node-type',
  'unsupported-version',
  'invalid-name',
  'bearer-quoted-token',
  'insecure-url',
  'insecure-base-url',
  // Only "Bearer{{ … }}" carries a replacement (the scheme with its space); a bare token has none.
  'missing-auth-scheme',
]);

export function quickFixes(text: string, problem: Problem, index: AgentIndex = indexAgentText(text)): QuickFix[] {
  const data = problem.data ?? {};
  const fix = (title: string, edits: TextEdit[], extra: Partial<QuickFix> = {}): QuickFix[] => [
    { title, problemCode: problem.code, edits, isPreferred: true, ...extra },
  ];
  switch (problem.code) {
    case 'basic-not-encoded': {
      const credentials = text.slice(problem.span.start, problem.span.end);
      const secret = uniqueSecretName(index, data.secretName ?? 'BASIC_CREDENTIALS');
      if (credentials.includes('{{')) {
        return fix(`Use one secret for the encoded credentials: {{ secrets.${secret} }}`, [
          { span: problem.span, newText: `{{ secrets.${secret} }}` },
        ]);
      }
      return [
        {
          title: 'Encode the credentials as Base64',
          problemCode: problem.code,
          isPreferred: true,
          edits: [{ span: problem.span, newText: base64OfText(credentials) }],
        },
        {
          title: `Move the encoded credentials to secret ${secret}`,
          problemCode: problem.code,
          edits: [{ span: problem.span, newText: `{{ secrets.${secret} }}` }],
          storeSecret: { name: secret, value: base64OfText(credentials) },
        },
      ];
    }
    case 'literal-credential':
    case 'possible-secret': {
      const literal = text.slice(problem.span.start, problem.span.end);
      // In a comment or a key: nothing refers to it there, so it just goes.
      if (data.place === 'outside-value') return fix('Remove the token from the file', [{ span: problem.span, newText: '' }]);
      const secret = uniqueSecretName(index, data.secretName ?? 'API_KEY');
      const urlScalar = nodeWhere(index, (n) => n.url !== undefined && contains(spanOf(n.url.scalar), problem.span.start))?.url?.scalar;
      // The engine percent-encodes an expression's value in the path and query, so the secret holds
      // such a value decoded; before the path (a userinfo password) it puts the value in as it is.
      const before = urlScalar ? text.slice(spanOf(urlScalar).start, problem.span.start) : '';
      const afterOrigin = authorityEnd(before, before.indexOf('://') + 3) < before.length;
      const value = urlScalar && afterOrigin ? safeDecode(literal) : literal;
      return fix(
        looksLikePlaceholder(literal) ? `Replace the placeholder with {{ secrets.${secret} }}` : `Move the value to secret ${secret}`,
        [{ span: problem.span, newText: `{{ secrets.${secret} }}` }],
        looksLikePlaceholder(literal) ? {} : { storeSecret: { name: secret, value } },
      );
    }
    case 'json-body-without-content-type': {
      const node = nodeWhere(index, (n) => n.bodyPair !== undefined && contains(spanOf(n.bodyPair.key as YamlNode), problem.span.start));
      const edits = node ? addHeaderEdits(text, node, 'Content-Type: application/json') : [];
      return edits.length ? fix('Add "Content-Type: application/json"', edits) : [];
    }
    case 'header-missing-colon':
    case 'invalid-header-name': {
      const scalar = settingAt(index, problem.span.start);
      if (!scalar || data.replacement === undefined) return [];
      return fix(`Write it as "${data.replacement.split(':')[0]}: …"`, [
        { span: spanOf(scalar), newText: JSON.stringify(data.replacement) },
      ]);
    }
    case 'duplicate-header': {
      const scalar = settingAt(index, problem.span.start);
      const node = scalar ? nodeWhere(index, (n) => n.settings.some((s) => s.scalar === scalar)) : undefined;
      const edit = scalar && node ? removeListItem(text, node, scalar) : undefined;
      return edit ? fix('Remove the duplicate header', [edit]) : [];
    }
    case 'api-key-in-url-non-get': {
      const node = nodeWhere(index, (n) => n.url !== undefined && contains(spanOf(n.url.scalar), problem.span.start));
      if (!node) return [];
      const parameter = text.slice(problem.span.start, problem.span.end);
      const value = parameter.slice(parameter.indexOf('=') + 1);
      const before = text[problem.span.start - 1];
      const after = text[problem.span.end];
      // Remove "name=value" with one separator: "?a=1&key=v" -> "?a=1", "?key=v&b=2" -> "?b=2".
      const removal: Span =
        after === '&'
          ? { start: problem.span.start, end: problem.span.end + 1 }
          : before === '?' || before === '&'
            ? { start: problem.span.start - 1, end: problem.span.end }
            : problem.span;
      return fix('Send the API key as an x-api-key header', [
        { span: removal, newText: '' },
        ...addHeaderEdits(text, node, `x-api-key: ${safeDecode(value)}`),
      ]);
    }
    case 'body-not-allowed': {
      const node = nodeWhere(index, (n) => n.bodyPair !== undefined && contains(spanOf(n.bodyPair.key as YamlNode), problem.span.start));
      const method = node?.map ? findPair(node.map, 'method')?.value : undefined;
      return method ? fix('Change the method to POST', [{ span: spanOf(method as YamlNode), newText: 'POST' }]) : [];
    }
    default:
      if (REPLACEMENT_CODES.has(problem.code) && data.replacement !== undefined) {
        return fix(`Change to "${data.replacement}"`, [{ span: problem.span, newText: data.replacement }]);
      }
      return [];
  }
}

/** Problems of test files and of the environments file whose fix is to write `data.replacement` over the name. */
const NAME_REPLACEMENT_CODES = new Set<ProblemCode>([
  'unknown-agent',
  'unknown-input',
  'unknown-node',
  'unknown-output',
  'unused-secret',
  'unknown-default-environment',
]);

/**
 * The quick fix of a test file's or the environments file's problem: the name it suggests written
 * over the one at the problem, in the same quotes. None when the problem is not at a name written
 * on one line (a case's problem about a name its defaults give is said at the case).
 */
export function nameQuickFixes(text: string, problem: Problem): QuickFix[] {
  const replacement = problem.data?.replacement;
  if (!NAME_REPLACEMENT_CODES.has(problem.code) || replacement === undefined) return [];
  const written = text.slice(problem.span.start, problem.span.end);
  if (written === '' || /[\n{}[\],#]|: /.test(written)) return [];
  const newText = written.startsWith('"')
    ? JSON.stringify(replacement)
    : written.startsWith("'")
      ? `'${replacement.replace(/'/g, "''")}'`
      : replacement;
  return [{ title: `Change to "${replacement}"`, problemCode: problem.code, edits: [{ span: problem.span, newText }], isPreferred: true }];
}

function nodeWhere(index: AgentIndex, predicate: (node: NodeDeclaration) => boolean): NodeDeclaration | undefined {
  return [...(index.model?.nodes.values() ?? [])].find(predicate);
}

/** The settings string that contains an offset. */
function settingAt(index: AgentIndex, offset: number): Scalar<string> | undefined {
  for (const node of index.model?.nodes.values() ?? []) {
    for (const setting of node.settings) if (contains(spanOf(setting.scalar), offset)) return setting.scalar;
  }
  return undefined;
}

/** Edits that add a header string to a node, in the style of its settings (block, flow, or none yet). */
function addHeaderEdits(text: string, node: NodeDeclaration, header: string): TextEdit[] {
  const quoted = JSON.stringify(header);
  const settingsPair = node.map ? findPair(node.map, 'settings') : undefined;
  const settings = settingsPair?.value as YamlNode | null | undefined;
  if (isSeq(settings)) {
    const seq = settings as YAMLSeq;
    const end = spanOf(seq).end;
    if (seq.flow) {
      const close = text.lastIndexOf(']', end);
      return [{ span: { start: close, end: close }, newText: seq.items.length ? `, ${quoted}` : quoted }];
    }
    const last = seq.items[seq.items.length - 1] as YamlNode | undefined;
    if (last) {
      const lastStart = spanOf(last).start;
      const lineStart = text.lastIndexOf('\n', lastStart - 1) + 1;
      const itemPrefix = text.slice(lineStart, lastStart);
      return [{ span: { start: spanOf(last).end, end: spanOf(last).end }, newText: `\n${itemPrefix}${quoted}` }];
    }
  }
  // No settings yet: put them just before the body (or at the end of the node).
  const anchor = node.bodyPair ? spanOf(node.bodyPair.key as YamlNode).start : undefined;
  if (anchor === undefined) return [];
  const lineStart = text.lastIndexOf('\n', anchor - 1) + 1;
  const indent = text.slice(lineStart, anchor);
  if (settingsPair) {
    // "settings:" with nothing after it.
    const keyEnd = spanOf(settingsPair.key as YamlNode).end;
    const colon = text.indexOf(':', keyEnd);
    return [{ span: { start: colon + 1, end: colon + 1 }, newText: `\n${indent}  - ${quoted}` }];
  }
  return [{ span: { start: lineStart, end: lineStart }, newText: `${indent}settings:\n${indent}  - ${quoted}\n` }];
}

/** Deletes one settings string: its whole line in a block list, the item and a comma in a flow list. */
function removeListItem(text: string, node: NodeDeclaration, scalar: Scalar): TextEdit | undefined {
  const settings = node.map ? (findPair(node.map, 'settings')?.value as YAMLSeq | undefined) : undefined;
  if (!isSeq(settings)) return undefined;
  const span = spanOf(scalar);
  if (settings.flow) {
    const index = settings.items.indexOf(scalar);
    if (index > 0) {
      const previousEnd = spanOf(settings.items[index - 1] as YamlNode).end;
      return { span: { start: previousEnd, end: span.end }, newText: '' };
    }
    const next = settings.items[index + 1] as YamlNode | undefined;
    return { span: { start: span.start, end: next ? spanOf(next).start : span.end }, newText: '' };
  }
  const lineStart = text.lastIndexOf('\n', span.start - 1) + 1;
  const lineEnd = text.indexOf('\n', span.end);
  return { span: { start: lineStart, end: lineEnd === -1 ? text.length : lineEnd + 1 }, newText: '' };
}

/** The suggested secret name, or NAME_2, NAME_3… when the file already uses it. */
function uniqueSecretName(index: AgentIndex, name: string): string {
  if (!index.secrets.has(name)) return name;
  for (let n = 2; ; n++) if (!index.secrets.has(`${name}_${n}`)) return `${name}_${n}`;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
