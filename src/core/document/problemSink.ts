// Collects problems for one file, turning spans into line/column ranges and capping the count so a
// pathological file cannot produce an unbounded list. Checks stop once the sink is `full`.
import { LineIndex } from './lineIndex';
import { compareProblems, PROBLEM_CODES } from './problems';
import type { Problem, ProblemCode, Span } from './problems';

export const MAX_PROBLEMS = 500;

export class ProblemSink {
  private readonly items: Problem[] = [];
  private readonly seen = new Set<string>();
  private dropped = 0;
  readonly lines: LineIndex;

  constructor(
    readonly text: string,
    lines?: LineIndex,
  ) {
    this.lines = lines ?? new LineIndex(text);
  }

  /** Adds a problem; its severity is always the one its code declares in PROBLEM_CODES. */
  add(code: ProblemCode, given: Span, message: string, options: { data?: Record<string, string> } = {}): void {
    // Inside the text: the YAML parser places some errors one past its end.
    const start = Math.max(0, Math.min(given.start, this.text.length));
    const span = { start, end: Math.max(start, Math.min(given.end, this.text.length)) };
    const key = `${code}\u0000${span.start}\u0000${span.end}\u0000${message}`;
    if (this.seen.has(key)) return;
    if (this.items.length >= MAX_PROBLEMS) {
      this.dropped++;
      return;
    }
    this.seen.add(key);
    const problem: Problem = {
      code,
      severity: PROBLEM_CODES[code].severity,
      message,
      span,
      range: this.lines.range(span),
      ...(options.data ? { data: options.data } : {}),
    };
    this.items.push(problem);
  }

  /**
   * True once a problem past the cap was dropped: every check stops then, as nothing more would be
   * shown (a file with a million problems costs no more than one with 500).
   */
  get full(): boolean {
    return this.dropped > 0;
  }

  /** True when a problem with this code already covers part of the span. */
  overlaps(code: ProblemCode, span: Span): boolean {
    return this.items.some((problem) => problem.code === code && span.start < problem.span.end && span.end > problem.span.start);
  }

  get hasErrors(): boolean {
    return this.items.some((problem) => problem.severity === 'error');
  }

  /** The problems in source order, with a closing note when some were dropped. */
  result(): Problem[] {
    const sorted = [...this.items].sort(compareProblems);
    if (this.dropped > 0) {
      const span = { start: 0, end: 0 };
      sorted.push({
        code: 'too-many-problems',
        severity: PROBLEM_CODES['too-many-problems'].severity,
        message: `More problems are not shown: checking stopped after the first ${MAX_PROBLEMS}. Fix the ones above first.`,
        span,
        range: this.lines.range(span),
      });
    }
    return sorted;
  }
}
