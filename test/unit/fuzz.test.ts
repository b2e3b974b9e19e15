// Fuzz stage: seeded, deterministic mutations of every example and fixture agent file (byte flips,
// lines duplicated and deleted, brackets and braces, deep nesting, long strings, unicode, "{{"
// noise), each validated in-process within a time bound. No exception may escape, and every problem
// must have a known code, a message and a range inside the text. A failure names the seed and the
// file, so it can be replayed.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { documentSymbols } from '../../src/core/language/navigation';
import { PROBLEM_CODES } from '../../src/core/document/problems';
import type { Problem } from '../../src/core/document/problems';
import { validateAgentText } from '../../src/core/validation/validate';
import { repoRoot } from '../support/paths';

const MUTANTS_PER_FILE = 16;
const TIME_LIMIT_MS = 500;

/** mulberry32: a small seeded generator, so every run makes the same mutants. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function agentFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return agentFiles(path);
    return /\.agent\.ya?ml$/.test(name) ? [path] : [];
  });
}

type Mutation = (text: string, next: () => number) => string;

const pick = <T>(items: readonly T[], next: () => number): T => items[Math.floor(next() * items.length)]!;
const at = (text: string, next: () => number): number => Math.floor(next() * (text.length + 1));
const insert = (text: string, offset: number, piece: string): string => text.slice(0, offset) + piece + text.slice(offset);

const NOISE = [
  '{{',
  '}}',
  '{{ ',
  '{{ inputs.',
  '{{ nodes.x.',
  '{{ secrets.',
  '{{}}',
  '{{ inputs.a }',
  '[',
  ']',
  '{',
  '}',
  ':',
  ': ',
  '- ',
  '"',
  "'",
  '#',
  '&a ',
  '*a',
  '!tag ',
  '|',
  '>',
  '\t',
  '\r',
  '\n',
  '---\n',
  '%YAML 1.2\n',
  '? ',
];
const UNICODE = ['é', '\u0301', '😀', '\u202e', '\ufeff', '\u2028', '\ud800', '\udc00', '中文', '\u0000', '\u0007', '\u00a0', 'ﬃ'];

const MUTATIONS: readonly Mutation[] = [
  // A byte flip: one character replaced by any code unit below 0x300.
  (text, next) => {
    const offset = Math.floor(next() * text.length);
    return text.slice(0, offset) + String.fromCharCode(Math.floor(next() * 0x300)) + text.slice(offset + 1);
  },
  // A line duplicated, or deleted.
  (text, next) => {
    const lines = text.split('\n');
    const index = Math.floor(next() * lines.length);
    if (next() < 0.5) lines.splice(index, 0, lines[index] ?? '');
    else lines.splice(index, 1);
    return lines.join('\n');
  },
  // Brackets, braces and other YAML indicators.
  (text, next) => insert(text, at(text, next), pick(NOISE, next)),
  // Deep nesting, sometimes past the limit, sometimes closed.
  (text, next) => {
    const depth = 20 + Math.floor(next() * 300);
    const open = pick(['[', '{', '- ', '[{'], next).repeat(depth);
    const close = next() < 0.5 ? '' : open.replace(/\[/g, ']').replace(/\{/g, '}').replace(/- /g, '').split('').reverse().join('');
    return insert(text, at(text, next), `${open}x${close}`);
  },
  // A long string, with or without expressions in it.
  (text, next) =>
    insert(text, at(text, next), pick(['x', 'ab ', '{{ inputs.a }}', '{{ ', 'ghp_', '%20'], next).repeat(500 + Math.floor(next() * 3000))),
  // Unicode: astral characters, combining marks, lone surrogates, BOM, line separators.
  (text, next) => insert(text, at(text, next), pick(UNICODE, next).repeat(1 + Math.floor(next() * 4))),
  // "{{" noise inside existing values.
  (text, next) => {
    const quote = text.indexOf('"', at(text, next));
    return quote === -1
      ? insert(text, at(text, next), '{{')
      : insert(text, quote + 1, pick(['{{', '{{ nodes.', '}} {{', '{{ inputs.x }}{{'], next));
  },
  // A whole line indented more or less.
  (text, next) => {
    const lines = text.split('\n');
    const index = Math.floor(next() * lines.length);
    lines[index] = next() < 0.5 ? ` ${lines[index]}` : (lines[index] ?? '').replace(/^ {1,2}/, '');
    return lines.join('\n');
  },
];

function checkProblem(problem: Problem, text: string, where: string): void {
  assert.ok(problem.code in PROBLEM_CODES, `${where}: unknown code ${problem.code}`);
  assert.ok(typeof problem.message === 'string' && problem.message.trim().length > 0, `${where}: ${problem.code} without a message`);
  const { span, range } = problem;
  assert.ok(
    span.start >= 0 && span.start <= span.end && span.end <= text.length,
    `${where}: ${problem.code} span ${span.start}-${span.end} outside 0-${text.length}`,
  );
  assert.ok(
    range.line >= 1 && range.column >= 1 && range.endLine >= range.line,
    `${where}: ${problem.code} range ${JSON.stringify(range)}`,
  );
  assert.ok(
    range.endLine > range.line || range.endColumn >= range.column,
    `${where}: ${problem.code} range ${JSON.stringify(range)} ends before it starts`,
  );
}

describe('fuzz: mutated example and fixture agents', function () {
  this.timeout(30_000);
  const files = [...agentFiles(join(repoRoot, 'examples')), ...agentFiles(join(repoRoot, 'test', 'fixtures'))].sort();

  it('finds the agent files to mutate', () => {
    assert.ok(files.length >= 20, `${files.length} files`);
  });

  it(`validates ${MUTANTS_PER_FILE} mutants of each file, each under ${TIME_LIMIT_MS} ms, without an exception`, () => {
    let mutants = 0;
    let slowest = { ms: 0, where: '' };
    files.forEach((file, fileIndex) => {
      const original = readFileSync(file, 'utf8');
      for (let i = 0; i < MUTANTS_PER_FILE; i++) {
        const seed = fileIndex * 1000 + i;
        const next = random(seed);
        let text = original;
        const count = 1 + Math.floor(next() * 3);
        for (let m = 0; m < count; m++) text = pick(MUTATIONS, next)(text, next);
        const where = `${relative(repoRoot, file)} seed ${seed}`;
        const start = process.hrtime.bigint();
        let problems: Problem[];
        try {
          problems = validateAgentText(text).problems;
          documentSymbols(text);
        } catch (error) {
          assert.fail(`${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        }
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        if (ms > slowest.ms) slowest = { ms, where };
        assert.ok(ms < TIME_LIMIT_MS, `${where}: took ${ms.toFixed(0)} ms`);
        for (const problem of problems) checkProblem(problem, text, where);
        mutants++;
      }
    });
    assert.equal(mutants, files.length * MUTANTS_PER_FILE);
    assert.ok(slowest.ms < TIME_LIMIT_MS, `slowest: ${slowest.where}`);
  });
});
