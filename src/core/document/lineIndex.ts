// Turns UTF-16 offsets into 1-based lines and columns. Built lazily: most files have no problems.
import type { LineRange, Span } from './problems';

export class LineIndex {
  private lineStarts: number[] | undefined;

  constructor(private readonly text: string) {}

  /** 1-based line and column of an offset (clamped to the text). */
  position(offset: number): { line: number; column: number } {
    const starts = this.starts();
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] as number) <= clamped) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: clamped - (starts[low] as number) + 1 };
  }

  range(span: Span): LineRange {
    const start = this.position(span.start);
    const end = this.position(span.end);
    return { line: start.line, column: start.column, endLine: end.line, endColumn: end.column };
  }

  /** Offset of the start of a 1-based line. */
  lineStart(line: number): number {
    const starts = this.starts();
    return starts[Math.max(0, Math.min(line - 1, starts.length - 1))] as number;
  }

  private starts(): number[] {
    if (!this.lineStarts) {
      const starts = [0];
      const text = this.text;
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
      this.lineStarts = starts;
    }
    return this.lineStarts;
  }
}
