// Seeded, deterministic mutants of agent files (byte flips, lines duplicated and deleted, brackets
// and braces, deep nesting, long strings, unicode, "{{" noise): the fuzz stage validates them, and
// the fuzz benchmark times them. Each names its seed and file, so it can be replayed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './paths';

export const MUTANTS_PER_FILE = 16;

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

function agentFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return agentFilesUnder(path);
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

/** The example and fixture agent files that are mutated, in a stable order. */
export function fuzzedAgentFiles(): string[] {
  return [...agentFilesUnder(join(repoRoot, 'examples')), ...agentFilesUnder(join(repoRoot, 'test', 'fixtures'))].sort();
}

export interface AgentMutant {
  readonly text: string;
  /** The file and seed, to replay it. */
  readonly where: string;
}

/** MUTANTS_PER_FILE mutants of each file, one to three mutations each. */
export function* agentMutants(files: readonly string[]): Generator<AgentMutant> {
  for (const [fileIndex, file] of files.entries()) {
    const original = readFileSync(file, 'utf8');
    for (let i = 0; i < MUTANTS_PER_FILE; i++) {
      const seed = fileIndex * 1000 + i;
      const next = random(seed);
      let text = original;
      const count = 1 + Math.floor(next() * 3);
      for (let m = 0; m < count; m++) text = pick(MUTATIONS, next)(text, next);
      yield { text, where: `${relative(repoRoot, file)} seed ${seed}` };
    }
  }
}
