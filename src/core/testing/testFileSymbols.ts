// The outline of an agent test file: the agent it tests, the defaults, and each case with what it
// sets (inputs, mocks, expectations).
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import { entrySymbol } from '../document/outlineSymbol';
import type { OutlineSymbol } from '../document/outlineSymbol';
import { parseAgentFile } from '../document/parse';
import { countWords } from '../document/suggest';
import { entries } from '../document/yamlAst';

export function testFileSymbols(text: string): OutlineSymbol[] {
  const root = parseAgentFile(text, 'test').root;
  if (!root) return [];
  const symbols: OutlineSymbol[] = [];
  for (const { key, keyNode, value } of entries(root)) {
    if (key === 'cases' && isMap(value)) {
      const cases = [...entries(value)].map((testCase) =>
        entrySymbol(
          text,
          { name: testCase.key, kind: 'case', detail: caseDetail(testCase.value) },
          testCase.keyNode,
          testCase.value,
          fields(text, testCase.value),
        ),
      );
      symbols.push(entrySymbol(text, { name: key, kind: 'section', detail: countWords(cases.length, 'case') }, keyNode, value, cases));
    } else if (key === 'defaults') {
      symbols.push(entrySymbol(text, { name: key, kind: 'section', detail: '' }, keyNode, value, fields(text, value)));
    } else {
      symbols.push(entrySymbol(text, { name: key, kind: 'field', detail: scalarText(value) }, keyNode, value));
    }
  }
  return symbols;
}

/** The keys of a case or of the defaults (inputs, mocks, expect, …), each with how many entries it holds. */
function fields(text: string, value: YamlNode | null): OutlineSymbol[] {
  if (!isMap(value)) return [];
  return [...entries(value)]
    .filter((field) => field.key !== 'description')
    .map((field) => entrySymbol(text, { name: field.key, kind: 'field', detail: sizeOf(field.value) }, field.keyNode, field.value));
}

/** A case's description, else what it sets. */
function caseDetail(value: YamlNode | null): string {
  if (!isMap(value)) return '';
  const set = [...entries(value)];
  const description = set.find((field) => field.key === 'description');
  if (description && isScalar(description.value) && typeof description.value.value === 'string') return shortLine(description.value.value);
  return set.map((field) => field.key).join(', ');
}

function sizeOf(value: YamlNode | null): string {
  if (isMap(value)) return countWords(value.items.length, 'entry', 'entries');
  if (isSeq(value)) return countWords(value.items.length, 'item');
  return scalarText(value);
}

function scalarText(value: YamlNode | null): string {
  return isScalar(value) && value.value !== null ? String(value.value) : '';
}

/** The outline shows a detail on one line: the first line of a description, cut at MAX_DETAIL characters. */
const MAX_DETAIL = 80;

function shortLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL - 1)}…` : line;
}
