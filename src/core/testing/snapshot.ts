// Snapshots (`agent-workflows test --update`): the actual outputs of cases marked `snapshot: true`
// written into their expect.outputs, the rest of the file (comments, order, spacing, a byte-order
// mark) left as it is: the new outputs are spliced into the text where they belong, at the
// indentation of the lines around them. A case written in flow style (`name: { … }`) is rewritten
// through the yaml library instead, which keeps the comments but may move them. What is written is
// first read back as the test file would be (same limits, same checks): a text that would not load,
// or would read as other values than the file with its snapshots, is refused, never written.
import { isDeepStrictEqual } from 'node:util';
import { basename } from 'node:path';
import { Document as YamlDocument, isMap, isPair, isScalar, isSeq, parseDocument, stringify } from 'yaml';
import type { Document, Node as YamlNode, Pair, YAMLMap } from 'yaml';
import { decodeAgentFile, parseAgentFile, undecodedFileProblems } from '../document/parse';
import type { Problem, Span } from '../document/problems';
import { entries, findPair, getValue } from '../document/yamlAst';
import type { LoadedSuite } from './loadSuite';
import { literalOutputs } from './matchers';
import type { CaseResult } from './caseResult';
import { validateTestText } from './testFile';
import type { TestCase } from './testModel';

/**
 * The outputs to write: those of the snapshot cases whose execution finished on this machine (a
 * deployed case's answer depends on real APIs: it is checked, never recorded).
 */
export function snapshotOutputs(
  cases: readonly TestCase[],
  results: readonly CaseResult[],
): Map<string, Readonly<Record<string, unknown>>> {
  const snapshots = new Map<string, Readonly<Record<string, unknown>>>();
  // By name, once: a file may have thousands of cases.
  const byName = new Map<string, TestCase>();
  for (const testCase of cases) if (!byName.has(testCase.name)) byName.set(testCase.name, testCase);
  for (const result of results) {
    const testCase = byName.get(result.name);
    if (testCase?.snapshot && !testCase.deployed && result.execution?.status === 'finished')
      snapshots.set(result.name, result.execution.outputs);
  }
  return snapshots;
}

interface Splice {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** Why `--update` does not write a test file: facts, which the command line words. */
export type SnapshotRefusal =
  /** The case's `expect` or `outputs` is written as an explicit key (`? outputs`), which is not written into in place. */
  | { readonly reason: 'explicit-key'; readonly caseName: string; readonly key: 'expect' | 'outputs' }
  /** The text written would have this problem when read (file-too-large among them); in this case, if in one. */
  | { readonly reason: 'problem'; readonly problem: Problem; readonly caseName?: string }
  /** The text written would read as other values than the file with its snapshots: in this case, or outside the cases. */
  | { readonly reason: 'changed'; readonly caseName?: string };

/**
 * The test file's bytes with its snapshots written, when they read back, with the limits and
 * checks of a test file, as the file with each case's expect.outputs replaced; else why not.
 */
export function updatedTestFile(
  loaded: Pick<LoadedSuite, 'testFile' | 'text' | 'byteOrderMark' | 'agent'>,
  actualOutputs: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
): { bytes: Buffer; text: string } | { refused: SnapshotRefusal } {
  const spliced = snapshotText(loaded.text, actualOutputs);
  if ('refused' in spliced) return spliced;
  const bytes = Buffer.from(`${loaded.byteOrderMark ? '\uFEFF' : ''}${spliced.text}`, 'utf8');
  // Read back as loadSuite reads the file from disk: the size limit on its bytes, then its checks.
  const decoded = decodeAgentFile(bytes, 'test');
  if ('error' in decoded) return { refused: { reason: 'problem', problem: undecodedFileProblems(decoded)[0] as Problem } };
  const readBack = validateTestText(decoded.text, basename(loaded.testFile), loaded.agent.model);
  const error = readBack.problems.find((problem) => problem.severity === 'error');
  if (error) {
    const caseName = readBack.file.root ? caseAt(readBack.file.root, error.span.start) : undefined;
    return { refused: { reason: 'problem', problem: error, ...(caseName !== undefined ? { caseName } : {}) } };
  }
  const changed = firstDifference(intendedValue(loaded.text, actualOutputs), readBack.file.value);
  if (changed) return { refused: { reason: 'changed', ...(changed.caseName !== undefined ? { caseName: changed.caseName } : {}) } };
  return { bytes, text: spliced.text };
}

/**
 * The test file's text with each case's expect.outputs replaced by its snapshot, each output written
 * as an expectation that it equals (a mapping with `$` keys under $eq). Throws for what
 * updatedTestFile refuses to write.
 */
export function writeSnapshots(text: string, actualOutputs: ReadonlyMap<string, Readonly<Record<string, unknown>>>): string {
  const spliced = snapshotText(text, actualOutputs);
  if ('refused' in spliced) throw new Error(`Snapshots not written: ${JSON.stringify(spliced.refused)}`);
  return spliced.text;
}

function snapshotText(
  text: string,
  actualOutputs: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
): { text: string } | { refused: SnapshotRefusal } {
  const snapshots = new Map([...actualOutputs].map(([name, outputs]) => [name, literalOutputs(outputs)]));
  // uniqueKeys off: yaml's own check compares each key with every other (seconds for 20,000 cases);
  // the test file was checked before (duplicate keys found in one pass), and the first of a name is used.
  const document = parseDocument(text, { uniqueKeys: false });
  const cases = isMap(document.contents) ? getValue(document.contents, 'cases') : undefined;
  const caseNodes = isMap(cases) ? casesByName(cases) : new Map<string, YamlNode | undefined>();
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const splices: Splice[] = [];
  let rewritten = false;
  for (const [name, outputs] of snapshots) {
    const caseMap = caseNodes.get(name);
    const splice = isMap(caseMap) && isMap(cases) && !cases.flow ? spliceFor(text, caseMap, outputs, newline) : undefined;
    if (splice && 'key' in splice) return { refused: { reason: 'explicit-key', caseName: name, key: splice.key } };
    if (splice) splices.push(splice);
    else rewritten = true;
  }
  if (rewritten) return { text: rewriteWhole(document, caseNodes, snapshots, newline) };
  // The text between the splices and the splices, in one pass in file order: linear in the file.
  const pieces: string[] = [];
  let at = 0;
  for (const splice of splices.sort((a, b) => a.start - b.start)) {
    pieces.push(text.slice(at, splice.start), splice.text);
    at = splice.end;
  }
  pieces.push(text.slice(at));
  return { text: pieces.join('') };
}

/** The file's values as they should read once the snapshots are written: its own, with each case's expect.outputs replaced. */
function intendedValue(text: string, actualOutputs: ReadonlyMap<string, Readonly<Record<string, unknown>>>): unknown {
  const value = parseAgentFile(text, 'test').value as { cases?: Record<string, Record<string, unknown>> } | undefined;
  for (const [name, outputs] of actualOutputs) {
    const testCase = value?.cases?.[name];
    if (!testCase) continue;
    const expect = (testCase.expect ??= {}) as Record<string, unknown>;
    // As the yaml library holds the values it writes (undefined left out).
    expect.outputs = new YamlDocument(literalOutputs(outputs)).toJS() as unknown;
  }
  return value;
}

/** The first case (or the rest of the file, caseName undefined) whose values differ; undefined when none do. */
function firstDifference(intended: unknown, read: unknown): { caseName?: string } | undefined {
  const cases = (value: unknown): Record<string, unknown> =>
    ((value as { cases?: unknown } | undefined)?.cases ?? {}) as Record<string, unknown>;
  const intendedCases = cases(intended);
  const readCases = cases(read);
  for (const name of new Set([...Object.keys(intendedCases), ...Object.keys(readCases)]))
    if (!isDeepStrictEqual(intendedCases[name], readCases[name])) return { caseName: name };
  const rest = (value: unknown): unknown => ({ ...(value as Record<string, unknown>), cases: undefined });
  return isDeepStrictEqual(rest(intended), rest(read)) ? undefined : {};
}

/** The name of the case whose key or value holds `offset`, if any. */
function caseAt(root: YAMLMap, offset: number): string | undefined {
  const cases = getValue(root, 'cases');
  if (!isMap(cases)) return undefined;
  let found: string | undefined;
  for (const { key, keyNode } of entries(cases)) {
    if ((keyNode.range?.[0] ?? Infinity) > offset) break;
    found = key;
  }
  return found;
}

/** Each case's value node by name, the first of a name as getValue finds it: one pass, not one per case. */
function casesByName(cases: YAMLMap): Map<string, YamlNode | undefined> {
  const byName = new Map<string, YamlNode | undefined>();
  for (const pair of cases.items) {
    if (!isPair(pair) || !isScalar(pair.key)) continue;
    const name = String(pair.key.value);
    if (!byName.has(name)) byName.set(name, (pair.value as YamlNode | null) ?? undefined);
  }
  return byName;
}

/**
 * Where a block-style case's outputs go in the text, and what is written there; undefined for flow
 * style; the key written as an explicit key (`? outputs`), which a splice cannot write after.
 */
function spliceFor(
  text: string,
  caseMap: YAMLMap,
  outputs: Readonly<Record<string, unknown>>,
  newline: string,
): Splice | { key: 'expect' | 'outputs' } | undefined {
  if (caseMap.flow) return undefined;
  const expectPair = findPair(caseMap, 'expect');
  const expectMap = expectPair?.value as YamlNode | null | undefined;
  if (expectPair && !(isMap(expectMap) && !expectMap.flow)) return undefined;
  if (expectPair && isExplicitKey(text, expectPair.key as YamlNode)) return { key: 'expect' };
  if (isMap(expectMap)) {
    const outputsPair = findPair(expectMap, 'outputs');
    const keyStart = (outputsPair?.key as YamlNode | undefined)?.range?.[0];
    if (outputsPair && keyStart !== undefined) {
      if (isExplicitKey(text, outputsPair.key as YamlNode)) return { key: 'outputs' };
      return replacedOutputs(text, keyStart, outputsPair.value as YamlNode | null, outputs, newline);
    }
    const first = expectMap.items[0]?.key as YamlNode | undefined;
    const column = first?.range ? columnOf(text, first.range[0]) : undefined;
    if (column === undefined || !expectMap.range) return undefined;
    const at = lineEnd(text, expectMap.range[1]);
    return { start: at, end: at, text: `${newline}${' '.repeat(column)}outputs:${newline}${valuesBlock(outputs, column + 2, newline)}` };
  }
  // No expect yet: after the case's last line, at the indentation of its keys.
  const first = caseMap.items[0]?.key as YamlNode | undefined;
  if (!first?.range || !caseMap.range) return undefined;
  const column = columnOf(text, first.range[0]);
  const at = lineEnd(text, caseMap.range[1]);
  return {
    start: at,
    end: at,
    text: `${newline}${' '.repeat(column)}expect:${newline}${' '.repeat(column + 2)}outputs:${newline}${valuesBlock(outputs, column + 4, newline)}`,
  };
}

/**
 * `outputs:` and its old value replaced, up to the end of the value's last line. What its own line
 * holds besides the old value stays: an anchor or tag (`outputs: &out`), and a comment, also one
 * after a value written on that line (`outputs: { … }   # note`).
 */
function replacedOutputs(
  text: string,
  keyStart: number,
  value: YamlNode | null,
  outputs: Readonly<Record<string, unknown>>,
  newline: string,
): Splice {
  const column = columnOf(text, keyStart);
  const keyLineEnd = lineEnd(text, keyStart);
  const valueStart = value?.range?.[0];
  let head: string;
  let end: number;
  if (valueStart === undefined || valueStart >= keyLineEnd) {
    // A block value (or none) below: the key's line stays whole.
    head = text.slice(keyStart, keyLineEnd);
    end = lineEnd(text, value?.range?.[1] ?? keyStart);
  } else {
    // A value on the key's line: what is before it stays, and a comment after it.
    head = text.slice(keyStart, valueStart).trimEnd();
    end = lineEnd(text, value?.range?.[1] ?? keyStart);
    const after = text.slice(value?.range?.[1] ?? end, end);
    if (/^[ \t]+#/.test(after)) head += after;
  }
  return { start: keyStart, end, text: `${head}${newline}${valuesBlock(outputs, column + 2, newline)}` };
}

/** Whether a key is written as an explicit key (`? key`): the `?` indicator before it on its line. */
function isExplicitKey(text: string, key: YamlNode | undefined): boolean {
  const start = key?.range?.[0];
  if (start === undefined) return false;
  let at = start - 1;
  while (at >= 0 && (text[at] === ' ' || text[at] === '\t')) at--;
  return text[at] === '?';
}

/** The outputs as block YAML, every line indented by `column`, without a final newline. */
function valuesBlock(outputs: Readonly<Record<string, unknown>>, column: number, newline: string): string {
  const yaml = stringify(outputs, { lineWidth: 0 }).replace(/\n$/, '');
  return yaml
    .split('\n')
    .map((line) => (line === '' ? line : ' '.repeat(column) + line))
    .join(newline);
}

function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

/**
 * The end of the content of the line where `offset` is, before its line break; a trailing comment
 * on that line is content too, so that nothing is inserted before it.
 */
function lineEnd(text: string, offset: number): number {
  // A block value's range ends after its last line break: step back onto that line.
  let at = offset;
  while (at > 0 && (text[at - 1] === '\n' || text[at - 1] === '\r')) at--;
  const next = text.indexOf('\n', at);
  const end = next === -1 ? text.length : next;
  return text[end - 1] === '\r' ? end - 1 : end;
}

/** Through the yaml library: for cases in flow style, which cannot be spliced line by line. */
function rewriteWhole(
  document: Document,
  caseNodes: ReadonlyMap<string, YamlNode | undefined>,
  snapshots: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
  newline: string,
): string {
  for (const [name, outputs] of snapshots) {
    // Through the case's own node when it is a mapping (no search of the cases for each).
    const caseMap = caseNodes.get(name);
    const node = document.createNode(outputs);
    // The old outputs' anchor and comments stay with the new ones.
    const expect = isMap(caseMap) ? getValue(caseMap, 'expect') : undefined;
    const old = isMap(expect) ? getValue(expect, 'outputs') : undefined;
    if (old?.anchor) node.anchor = old.anchor;
    if (old?.comment) node.comment = old.comment;
    if (old?.commentBefore) node.commentBefore = old.commentBefore;
    if (isMap(caseMap)) caseMap.setIn(['expect', 'outputs'], node);
    else document.setIn(['cases', name, 'expect', 'outputs'], node);
  }
  // lineWidth 0: long flow mappings stay on their line. yaml writes \n: the file's own line ending is put back.
  const written = document.toString({ lineWidth: 0 });
  return newline === '\n' ? written : written.replace(/\r?\n/g, newline);
}

/** A result as it stands once its snapshot is written: its output mismatches are gone. */
export function afterSnapshot(result: CaseResult): CaseResult {
  const failures = result.failures.filter((failure) => failure.path !== 'outputs' && !failure.path?.startsWith('outputs.'));
  return { ...result, failures, passed: failures.length === 0 };
}

/** One step down a YAML document: a mapping's key (its key or its value) or a list's index. */
interface Step {
  readonly key: string | number;
  readonly inKey: boolean;
}

/**
 * Where places of the test file's text before its snapshots were written are in the text after:
 * each is found by the YAML node it is in (by its path of keys and indexes from the top), at the
 * same distance from that node's start. Results of the run point into the text before; this is how
 * they are shown at the lines of the file as it now is.
 */
export function spansAfterWriting(before: string, after: string): (span: Span) => Span {
  const old = parseDocument(before, { uniqueKeys: false }).contents as YamlNode | null;
  const written = parseDocument(after, { uniqueKeys: false }).contents as YamlNode | null;
  const keyIndexes = new Map<YAMLMap, Map<string, Pair>>();
  return (span) => {
    const { steps, node } = locate(old, span.start);
    const found = follow(written, steps, keyIndexes);
    const start =
      found.complete && node?.range && found.node?.range
        ? Math.min(found.node.range[0] + (span.start - node.range[0]), found.node.range[1])
        : (found.node?.range?.[0] ?? 0);
    return { start, end: start + (span.end - span.start) };
  };
}

/** The innermost node at `offset`, and the steps to it. */
function locate(root: YamlNode | null, offset: number): { steps: Step[]; node: YamlNode | null } {
  const steps: Step[] = [];
  let node = root;
  for (;;) {
    if (isMap(node)) {
      const pair = node.items[lastStartingBefore(node.items, offset, (item) => startOf(item.key) ?? startOf(item.value))];
      if (!pair || !isScalar(pair.key)) break;
      const key = String(pair.key.value);
      if (contains(pair.key, offset)) {
        steps.push({ key, inKey: true });
        node = pair.key;
        break;
      }
      if (!contains(pair.value as YamlNode | null, offset)) break;
      steps.push({ key, inKey: false });
      node = pair.value as YamlNode;
    } else if (isSeq(node)) {
      const index = lastStartingBefore(node.items, offset, startOf);
      const item = node.items[index] as YamlNode | undefined;
      if (!item || !contains(item, offset)) break;
      steps.push({ key: index, inKey: false });
      node = item;
    } else break;
  }
  return { steps, node };
}

/** The node the steps lead to in another document, or the last one reached when they lead nowhere. */
function follow(
  root: YamlNode | null,
  steps: readonly Step[],
  keyIndexes: Map<YAMLMap, Map<string, Pair>>,
): { node: YamlNode | null; complete: boolean } {
  let node = root;
  for (const step of steps) {
    let next: unknown;
    if (isMap(node) && typeof step.key === 'string') {
      let index = keyIndexes.get(node);
      if (!index) {
        index = new Map(
          node.items.filter((pair) => isScalar(pair.key)).map((pair) => [String((pair.key as { value: unknown }).value), pair]),
        );
        keyIndexes.set(node, index);
      }
      const pair = index.get(step.key);
      next = step.inKey ? pair?.key : pair?.value;
    } else if (isSeq(node) && typeof step.key === 'number') next = node.items[step.key];
    if (!(next as YamlNode | undefined)?.range) return { node, complete: false };
    node = next as YamlNode;
  }
  return { node, complete: true };
}

function startOf(node: unknown): number | undefined {
  return (node as YamlNode | null | undefined)?.range?.[0];
}

function contains(node: YamlNode | null | undefined, offset: number): boolean {
  const range = node?.range;
  return range !== undefined && range !== null && range[0] <= offset && offset < Math.max(range[2], range[0] + 1);
}

/** The index of the last of items (in text order) starting at or before offset, -1 for none: a binary search. */
function lastStartingBefore<T>(items: readonly T[], offset: number, start: (item: T) => number | undefined): number {
  let low = 0;
  let high = items.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = start(items[middle] as T);
    if (at !== undefined && at <= offset) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}
