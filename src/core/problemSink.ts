// Collects problems for one file, turning spans into line/column ranges and capping the count so a
// pathological file cannot produce an unbounded list.
import { LineIndex } from './lineIndex';
import { compareProblems, PROBLEM_CODES } from './problems';
import type { Problem, ProblemCode, Severity, Span } from './problems';

export const MAX_PROBLEMS = 500;

export class ProblemSink {
  private readonly items: Problem[] = [];
  private readonly seen = new Set<string>();
  private dropped = 0;
  readonly lines: LineIndex;

  constructor(readonly text: string, lines?: LineIndex) {
    this.lines = lines ?? new LineIndex(text);
  }

  add(code: ProblemCode, span: Span, message: string, options: { severity?: Severity; data?: Record<string, string> } = {}): void {
    const key = `${code}\u0000${span.start}\u0000${span.end}\u0000${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.items.length >= MAX_PROBLEMS) {
      this.dropped++;
      return;
    }
    const problem: Problem = {
      code,
      severity: options.severity ?? PROBLEM_CODES[code].severity,
      message,
      span,
      range: this.lines.range(span),
      ...(options.data ? { data: options.data } : {}),
    };
    this.items.push(problem);
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
        severity: 'info',
        message: `${this.dropped} more problems are not shown; fix the ones above first.`,
        span,
        range: this.lines.range(span),
      });
    }
    return sorted;
  }
}
