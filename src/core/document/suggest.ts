// "Did you mean" suggestions for misspelled names, and lists of names for messages. Bounded for
// hostile files: a distance stops once it exceeds what could be suggested, a suggester remembers
// each name it was asked about and stops searching after a fixed amount of work, and lists of names
// in messages show the first few.
import { BoundedCache } from '../boundedCache';

/** The candidate closest to `word` by edit distance, when it is close enough to be a likely typo. */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  return new NameSuggester(candidates).suggest(word);
}

/** How many candidate comparisons one suggester makes in all (a thousand typos among 50 names). */
const COMPARISON_BUDGET = 50_000;
/** How many distinct names a suggester remembers, and how many characters of them. */
const CACHE_LIMIT = 10_000;
const CACHE_KEY_CHARS = 1024 * 1024;

/**
 * Suggests names from one set of candidates (the inputs of an agent, say) for many misspelled
 * words: each distinct word is searched once, and once the comparison budget is spent (a file with
 * thousands of names and thousands of misspellings) no more suggestions are searched for.
 */
export class NameSuggester {
  private readonly candidates: Array<{ name: string; lower: string }>;
  private readonly cache = new BoundedCache<string | undefined>(CACHE_LIMIT, CACHE_KEY_CHARS);
  private budget = COMPARISON_BUDGET;

  constructor(candidates: Iterable<string>) {
    this.candidates = [...candidates].map((name) => ({ name, lower: name.toLowerCase() }));
  }

  suggest(word: string): string | undefined {
    if (this.cache.has(word)) return this.cache.get(word);
    if (this.budget < this.candidates.length) return undefined;
    this.budget -= this.candidates.length;
    const found = this.search(word);
    this.cache.set(word, found);
    return found;
  }

  private search(word: string): string | undefined {
    const lower = word.toLowerCase();
    const allowed = Math.max(1, Math.floor(Math.max(word.length, 2) / 3));
    let best: string | undefined;
    let bestDistance = allowed + 1;
    for (const candidate of this.candidates) {
      if (candidate.name === word) continue;
      if (candidate.lower === lower) return candidate.name;
      if (Math.abs(candidate.lower.length - lower.length) >= bestDistance) continue;
      const distance = editDistance(lower, candidate.lower, bestDistance - 1);
      if (distance < bestDistance) {
        best = candidate.name;
        bestDistance = distance;
      }
    }
    if (best !== undefined) return best;
    // A prefix of a longer name ("stat" for "status") is a likely abbreviation.
    if (lower.length >= 3) {
      for (const candidate of this.candidates) if (candidate.lower.startsWith(lower) && candidate.name !== word) return candidate.name;
    }
    return undefined;
  }
}

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and transpositions.
 * With `limit`, any distance above it is reported as limit + 1 as soon as it is certain.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > Math.min(8, limit)) return Math.abs(a.length - b.length);
  const cols = b.length + 1;
  // Three rows (transpositions look two back), reused across calls: no garbage per comparison.
  if (rowBuffer.length < cols * 3) rowBuffer = new Int32Array(cols * 3);
  const rows = rowBuffer;
  let before = 0;
  let previous = cols;
  let current = cols * 2;
  for (let j = 0; j < cols; j++) rows[previous + j] = j;
  for (let i = 1; i <= a.length; i++) {
    rows[current] = i;
    let rowMin = i;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[previous + j]! + 1, rows[current + j - 1]! + 1, rows[previous + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[before + j - 2]! + 1);
      rows[current + j] = value;
      if (value < rowMin) rowMin = value;
    }
    // Every later row is at least this row's minimum minus one (a transposition), so stop here.
    if (rowMin > limit + 1) return limit + 1;
    [before, previous, current] = [previous, current, before];
  }
  return rows[previous + cols - 1]!;
}

let rowBuffer = new Int32Array(0);

/** "'a', 'b' or 'c'" */
export function listWords(words: readonly string[], conjunction = 'or'): string {
  const quoted = words.map((word) => `'${word}'`);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} ${conjunction} ${quoted[quoted.length - 1]}`;
}

/** Like listWords, for lists of any length: "'a', 'b', 'c' and 97 more" past `max` of `count` words. */
export function listSomeWords(words: Iterable<string>, count: number, conjunction = 'or', max = 10): string {
  const shown: string[] = [];
  for (const word of words) {
    if (shown.length >= max) break;
    shown.push(word);
  }
  if (count <= shown.length) return listWords(shown, conjunction);
  return `${shown.map((word) => `'${word}'`).join(', ')} ${conjunction === 'and' ? 'and' : 'or one of'} ${count - shown.length} more`;
}

/** "1 case", "3 cases": a count and its noun. */
export function countWords(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
