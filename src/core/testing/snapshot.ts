// Snapshots (`agent-workflows test --update`): the actual outputs of cases marked `snapshot: true`
// written into their expect.outputs, the rest of the file (comments, order, spacing) left as it is:
// the new outputs are spliced into the text where they belong, at the indentation of the lines
// around them. A case written in flow style (`name: { … }`) is rewritten through the yaml library
// instead, which keeps the comments but may move them.
import { isMap, isPair, isScalar, parseDocument, stringify } from 'yaml';
import type { Document, Node as YamlNode, YAMLMap } from 'yaml';
import { findPair, getValue } from '../document/yamlAst';
import { literalOutputs } from './matchers';
import type { CaseResult } from './runCase';
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

/**
 * The test file's text with each case's expect.outputs replaced by its snapshot, each output written
 * as an expectation that it equals (a mapping with `$` keys under $eq).
 */
export function writeSnapshots(text: string, actualOutputs: ReadonlyMap<string, Readonly<Record<string, unknown>>>): string {
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
    if (splice) splices.push(splice);
    else rewritten = true;
  }
  if (rewritten) return rewriteWhole(document, caseNodes, snapshots);
  // The text between the splices and the splices, in one pass in file order: linear in the file.
  const pieces: string[] = [];
  let at = 0;
  for (const splice of splices.sort((a, b) => a.start - b.start)) {
    pieces.push(text.slice(at, splice.start), splice.text);
    at = splice.end;
  }
  pieces.push(text.slice(at));
  return pieces.join('');
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

/** Where a block-style case's outputs go in the text, and what is written there; undefined for flow style. */
function spliceFor(text: string, caseMap: YAMLMap, outputs: Readonly<Record<string, unknown>>, newline: string): Splice | undefined {
  if (caseMap.flow) return undefined;
  const expectPair = findPair(caseMap, 'expect');
  const expectMap = expectPair?.value as YamlNode | null | undefined;
  if (expectPair && !(isMap(expectMap) && !expectMap.flow)) return undefined;
  if (isMap(expectMap)) {
    const outputsPair = findPair(expectMap, 'outputs');
    const keyStart = (outputsPair?.key as YamlNode | undefined)?.range?.[0];
    if (outputsPair && keyStart !== undefined) {
      // `outputs:` and its value are replaced, up to the end of the value's last line.
      const value = outputsPair.value as YamlNode | null;
      const end = lineEnd(text, value?.range?.[1] ?? keyStart);
      const column = columnOf(text, keyStart);
      return { start: keyStart, end, text: outputsBlock(outputs, column, newline).slice(column) };
    }
    const first = expectMap.items[0]?.key as YamlNode | undefined;
    const column = first?.range ? columnOf(text, first.range[0]) : undefined;
    if (column === undefined || !expectMap.range) return undefined;
    const at = lineEnd(text, expectMap.range[1]);
    return { start: at, end: at, text: newline + outputsBlock(outputs, column, newline) };
  }
  // No expect yet: after the case's last line, at the indentation of its keys.
  const first = caseMap.items[0]?.key as YamlNode | undefined;
  if (!first?.range || !caseMap.range) return undefined;
  const column = columnOf(text, first.range[0]);
  const at = lineEnd(text, caseMap.range[1]);
  return {
    start: at,
    end: at,
    text: `${newline}${' '.repeat(column)}expect:${newline}${outputsBlock(outputs, column + 2, newline)}`,
  };
}

/** `outputs:` and the values as block YAML, every line indented by `column`, without a final newline. */
function outputsBlock(outputs: Readonly<Record<string, unknown>>, column: number, newline: string): string {
  const yaml = stringify({ outputs }, { lineWidth: 0 }).replace(/\n$/, '');
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
): string {
  for (const [name, outputs] of snapshots) {
    // Through the case's own node when it is a mapping (no search of the cases for each).
    const caseMap = caseNodes.get(name);
    if (isMap(caseMap)) caseMap.setIn(['expect', 'outputs'], document.createNode(outputs));
    else document.setIn(['cases', name, 'expect', 'outputs'], document.createNode(outputs));
  }
  // lineWidth 0: long flow mappings stay on their line.
  return document.toString({ lineWidth: 0 });
}

/** A result as it stands once its snapshot is written: its output mismatches are gone. */
export function afterSnapshot(result: CaseResult): CaseResult {
  const failures = result.failures.filter((failure) => failure.path !== 'outputs' && !failure.path?.startsWith('outputs.'));
  return { ...result, failures, passed: failures.length === 0 };
}
