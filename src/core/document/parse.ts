// Parses an agent file (or an agent test file: the same YAML rules) with exact source ranges,
// reporting file-level and YAML problems in the words of its kind. Bounded in time and memory for any
// input: size cap, binary detection, nesting depth limit, one document, alias expansion limit,
// duplicate keys found in one pass.
import { isAlias, isMap, isPair, isScalar, isSeq, visit } from 'yaml';
import type { Alias, Document, Node as YamlNode, YAMLMap } from 'yaml';
import { MAX_NESTING_DEPTH, parseWithinDepth } from './nestingDepth';
import type { DepthLimitedParse } from './nestingDepth';
import { plainValue } from './plainValue';
import type { ConversionNotes } from './plainValue';
import { ProblemSink } from './problemSink';
import type { Problem } from './problems';
import { MAX_FILE_BYTES } from '../limits';
import { utf8Length } from '../utf8';

/** How many alias expansions turning the document into values may take (an alias bomb stops here). */
export const MAX_ALIAS_COUNT = 100;

export interface ParsedAgentFile {
  readonly text: string;
  readonly sink: ProblemSink;
  /** The first YAML document, when the text could be parsed at all. */
  readonly document?: Document.Parsed;
  /** The top-level mapping, when the document is one. */
  readonly root?: YAMLMap;
  /** The document as plain values, when it could be converted. */
  readonly value?: unknown;
  /** True when the YAML is broken enough that checking its content would only add noise. */
  readonly syntaxBroken: boolean;
}

/** The kinds of file read here: their file-level problems say what such a file holds. */
export type ParsedFileKind = 'agent' | 'test' | 'environments';

/** How the file-level messages name each kind of file, and what they advise. */
const FILE_WORDS: Record<
  ParsedFileKind,
  {
    readonly file: string;
    readonly aFile: string;
    readonly files: string;
    readonly needs: string;
    readonly keys: string;
    /** Where a second document could go instead, when it could go anywhere. */
    readonly extension?: string;
    readonly split: string;
  }
> = {
  agent: {
    file: 'agent file',
    aFile: 'an agent file',
    files: 'agent files',
    needs: 'An agent needs at least "version: 1" and "name:"; type "agent" and pick the snippet to start one.',
    keys: 'version, name, inputs, nodes and outputs',
    extension: '.agent.yaml',
    split: 'Split the workflow into smaller agents.',
  },
  test: {
    file: 'test file',
    aFile: 'a test file',
    files: 'test files',
    needs:
      'A test file needs "cases:" with at least one case: write "cases:", then on the next line, indented, type "case" and pick the snippet.',
    keys: 'agent, defaults and cases',
    extension: '.agent.test.yaml',
    split: 'Split the cases into several test files.',
  },
  environments: {
    file: 'environments file',
    aFile: 'an environments file',
    files: 'environments files',
    needs:
      'Add "environments:" with one entry per deployment, e.g. "dev: { baseUrl: http://127.0.0.1:8787, account: local }", or delete the file.',
    keys: 'environments and default',
    split: 'It should list a few deployments only.',
  },
};

/**
 * Decodes file bytes as UTF-8, or says why they are not the text of an agent file (or of a test
 * file). A byte-order mark is not part of the text; `byteOrderMark` says it was there, for a writer
 * of the file (test --update) to put it back.
 */
export function decodeAgentFile(
  bytes: Uint8Array,
  kind: ParsedFileKind = 'agent',
  maxBytes: number = MAX_FILE_BYTES,
): { text: string; byteOrderMark?: true } | { error: string; code: 'file-too-large' | 'not-text' } {
  if (bytes.length > maxBytes) return { error: tooLargeMessage(bytes.length, kind, maxBytes), code: 'file-too-large' };
  if (bytes.includes(0)) return { error: binaryMessage(kind), code: 'not-text' };
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? { text, byteOrderMark: true } : { text };
  } catch {
    return { error: 'The file is not valid UTF-8 text. Save it as UTF-8.', code: 'not-text' };
  }
}

/** The problem for file bytes that decodeAgentFile refused, as validation reports it for text. */
export function undecodedFileProblems(refused: { error: string; code: 'file-too-large' | 'not-text' }): Problem[] {
  const sink = new ProblemSink('');
  sink.add(refused.code, { start: 0, end: 0 }, refused.error);
  return sink.result();
}

export function parseAgentFile(text: string, kind: ParsedFileKind = 'agent'): ParsedAgentFile {
  const words = FILE_WORDS[kind];
  const sink = new ProblemSink(text);
  const firstLine = { start: 0, end: Math.max(0, text.indexOf('\n') === -1 ? Math.min(text.length, 200) : text.indexOf('\n')) };
  // The limit is in bytes, as the file is on disk: a character may take up to 4 of them.
  const bytes = text.length > MAX_FILE_BYTES / 4 ? utf8Length(text) : text.length;
  if (bytes > MAX_FILE_BYTES) {
    sink.add('file-too-large', firstLine, tooLargeMessage(bytes, kind));
    return { text, sink, syntaxBroken: true };
  }
  if (looksBinary(text)) {
    sink.add('not-text', { start: 0, end: 0 }, binaryMessage(kind));
    return { text, sink, syntaxBroken: true };
  }

  // Duplicate keys are found below in one pass: the parser's own check compares every key of a
  // mapping with every other (20,000 inputs took 9 s).
  const parsed = parseDocuments(text);
  if (!parsed) {
    sink.add('yaml-syntax', firstLine, nestingMessage(kind));
    return { text, sink, syntaxBroken: true };
  }
  if (parsed.tooDeepAt !== undefined) {
    sink.add('yaml-syntax', { start: parsed.tooDeepAt, end: parsed.tooDeepAt + 1 }, nestingMessage(kind));
    return { text, sink, syntaxBroken: true };
  }
  const list = parsed.documents;
  const document = list[0];
  if (!document || (document.contents === null && list.length === 1)) {
    sink.add('empty-file', firstLine, `${text.trim() === '' ? 'The file is empty.' : 'The file has only comments.'} ${words.needs}`);
    return { text, sink, syntaxBroken: true };
  }

  let syntaxBroken = false;
  for (const extra of list.slice(1)) {
    const start = extra.range[0];
    const lineEnd = text.indexOf('\n', start);
    sink.add(
      'multiple-documents',
      { start, end: lineEnd === -1 ? text.length : lineEnd },
      `${capitalize(words.aFile)} holds one YAML document, but a second one starts here. Remove the "---" separator and what follows${words.extension ? `, or move it to its own ${words.extension} file` : ''}.`,
    );
  }
  for (const error of [...document.errors, ...list.slice(1).flatMap((d) => d.errors)]) {
    if (sink.full) break;
    const span = { start: error.pos[0], end: Math.max(error.pos[1], error.pos[0]) };
    syntaxBroken = true;
    sink.add('yaml-syntax', span, `${firstSentence(error.message)} Fix the YAML here; the rest of the file is checked once it parses.`);
  }
  const contents = document.contents;
  // A clean file is converted first: its keys can repeat only where two of them give one property
  // name, so the walk for duplicate keys (a tenth of the checks on a large file) is mostly skipped.
  const notes: ConversionNotes = { repeatedName: false };
  let converted: unknown;
  if (!syntaxBroken && list.length === 1 && isMap(contents)) {
    try {
      converted = plainValue(contents, notes);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      sink.add('yaml-syntax', firstLine, nestingMessage(kind));
      return { text, sink, document, root: contents, syntaxBroken: true };
    }
  }
  if (converted === undefined || notes.repeatedName) for (const each of list) reportDuplicateKeys(each, text, sink);
  for (const warning of document.warnings) {
    sink.add('yaml-warning', { start: warning.pos[0], end: warning.pos[1] }, firstSentence(warning.message));
  }
  if (syntaxBroken) return { text, sink, document, syntaxBroken };

  if (!isMap(contents)) {
    const found = isScalar(contents) ? 'a single value' : 'a list';
    sink.add(
      'not-a-mapping',
      { start: contents?.range?.[0] ?? 0, end: contents?.range?.[1] ?? 0 },
      `The file is ${found}, but ${words.aFile} is a mapping of keys: ${words.keys}.`,
    );
    return { text, sink, document, syntaxBroken: true };
  }

  let value: unknown;
  try {
    value = converted ?? document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof RangeError) {
      sink.add('yaml-syntax', firstLine, nestingMessage(kind));
      return { text, sink, document, root: contents, syntaxBroken: true };
    }
    // An alias before (or without) its anchor: not an alias bomb, though toJS fails on it too.
    const unresolved = error instanceof ReferenceError ? firstUnresolvedAlias(document) : undefined;
    if (unresolved) {
      const name = unresolved.source.length > 60 ? `${unresolved.source.slice(0, 60)}…` : unresolved.source;
      sink.add(
        'yaml-syntax',
        unresolved.range ? { start: unresolved.range[0], end: unresolved.range[1] } : firstLine,
        `The alias *${name} has no anchor &${name} before it: an alias stands for a value anchored earlier in the file. Anchor the value first, or write it out here.`,
      );
      return { text, sink, document, root: contents, syntaxBroken: true };
    }
    // The only failure left after a clean parse is the alias expansion limit.
    sink.add(
      'alias-limit',
      firstAliasSpan(document) ?? firstLine,
      `The YAML aliases (*name) in this file expand to more than ${MAX_ALIAS_COUNT} values, as in an "alias bomb". Write the values out instead of nesting aliases.`,
    );
    return { text, sink, document, root: contents, syntaxBroken: true };
  }
  return { text, sink, document, root: contents, value, syntaxBroken: false };
}

/**
 * Reports every key that appears twice in one mapping, on its second appearance. The same keys as
 * the parser's own check: scalars with equal values.
 */
function reportDuplicateKeys(document: Document.Parsed, text: string, sink: ProblemSink): void {
  const pending: unknown[] = [document.contents];
  while (pending.length > 0 && !sink.full) {
    const node = pending.pop();
    if (isMap(node)) {
      const items = node.items;
      // Most mappings have a few keys: comparing each with those before it is cheaper than a set.
      const keys = items.length > SMALL_MAPPING ? new Set<unknown>() : undefined;
      for (let index = 0; index < items.length; index++) {
        const pair = items[index];
        if (!isPair(pair)) continue;
        pending.push(pair.value);
        if (!isScalar(pair.key)) {
          pending.push(pair.key);
          continue;
        }
        const value = pair.key.value;
        if (keys ? !keys.has(value) : !repeatsEarlierKey(items, index, value)) {
          keys?.add(value);
          continue;
        }
        const range = (pair.key as YamlNode).range;
        if (!range) continue;
        const key = text.slice(range[0], Math.min(range[1], range[0] + 100));
        sink.add(
          'duplicate-key',
          { start: range[0], end: range[1] },
          `The key ${key} appears twice in the same mapping; YAML would keep only one of them. Remove or rename one.`,
        );
      }
    } else if (isSeq(node)) {
      for (const item of node.items) pending.push(item);
    }
  }
}

/** Up to this many keys, a mapping's keys are compared pairwise (at most 28 comparisons). */
const SMALL_MAPPING = 8;

/** True when a scalar key before items[index] has this value (as a set would compare it). */
function repeatsEarlierKey(items: readonly unknown[], index: number, value: unknown): boolean {
  for (let earlier = 0; earlier < index; earlier++) {
    const pair = items[earlier];
    if (!isPair(pair) || !isScalar(pair.key)) continue;
    const other = pair.key.value;
    // SameValueZero, as a set compares: NaN equals NaN, 0 equals -0.
    if (other === value || (other !== other && value !== value)) return true;
  }
  return false;
}

function parseDocuments(text: string): DepthLimitedParse | undefined {
  // The parser makes an Error object for each YAML error, and capturing their stacks was most of its
  // time on broken files (16,000 errors in a 45 KB file: 460 ms). Their stacks are never used.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    // logLevel error: the parser's own warnings (such as a mapping used as a key) would go to stderr.
    return parseWithinDepth(text, { uniqueKeys: false, prettyErrors: false, strict: true, logLevel: 'error' });
  } catch (error) {
    // A stack already deep when the parse starts can still overflow within the limit.
    if (error instanceof RangeError) return undefined;
    throw error;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function nestingMessage(kind: ParsedFileKind): string {
  return `The YAML is nested too deeply here: ${FILE_WORDS[kind].aFile} nests lists and mappings at most ${MAX_NESTING_DEPTH} levels deep. Close the brackets that are left open, or flatten the structure.`;
}

/** Why a file of `size` bytes is not read or checked (`limit` bytes at most), in the words of its kind. */
export function tooLargeMessage(size: number, kind: ParsedFileKind = 'agent', limit: number = MAX_FILE_BYTES): string {
  const shown = size >= 1000 * 1024 ? `${(size / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(size / 1024)} KB`;
  return `The file is ${shown}; ${FILE_WORDS[kind].files} are checked up to ${limit / 1024} KB. ${FILE_WORDS[kind].split}`;
}

function binaryMessage(kind: ParsedFileKind): string {
  return `The file contains binary data (NUL or control characters), not YAML text. Check that this is the ${FILE_WORDS[kind].file} you meant to open.`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** NUL anywhere, or many control characters early on, means this is not text. */
function looksBinary(text: string): boolean {
  if (text.includes('\u0000')) return true;
  const sample = text.slice(0, 8192);
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd) control++;
  }
  return sample.length > 0 && control / sample.length > 0.05;
}

function firstSentence(message: string): string {
  const line = message.split('\n')[0] ?? message;
  const trimmed = line.replace(/ at line \d+, column \d+:?$/, '').trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/**
 * The first alias with no anchor of its name before it, in one pass over the document in its
 * order (Alias.resolve searches the document from its start: once per alias, thousands of aliases
 * took seconds).
 */
function firstUnresolvedAlias(document: Document.Parsed): Alias | undefined {
  const anchors = new Set<string>();
  let found: Alias | undefined;
  visit(document, {
    Node(_key, node) {
      if (isAlias(node)) {
        if (anchors.has(node.source)) return undefined;
        found = node;
        return visit.BREAK;
      }
      if (node.anchor) anchors.add(node.anchor);
      return undefined;
    },
  });
  return found;
}

function firstAliasSpan(document: Document.Parsed): { start: number; end: number } | undefined {
  let span: { start: number; end: number } | undefined;
  visit(document, {
    Alias(_key, alias) {
      if (alias.range) span = { start: alias.range[0], end: alias.range[1] };
      return visit.BREAK;
    },
  });
  return span;
}
