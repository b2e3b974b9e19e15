// Expected problems written inside fixture files, under the line they point at:
//
//     settings: ["Authorization: Basic alice:s3cret"]
//   #                                  ^^^^^^^^^^^^ basic-not-encoded
//
// A caret line marks columns of the nearest line above that is not an annotation. For column 1,
// where a caret cannot stand after "#", write the columns out: "#! unknown-property 1-11"
// (start column, end column exclusive).
import type { Problem } from '../../src/core/document/problems';

export interface ExpectedProblem {
  readonly line: number;
  readonly column: number;
  readonly endColumn: number;
  readonly code: string;
}

const CARETS = /^#(\s*)(\^+)\s+([a-z][a-z0-9-]*)\s*$/;
const EXPLICIT = /^#!\s*([a-z][a-z0-9-]*)\s+(\d+)-(\d+)\s*$/;

export function readAnnotations(text: string): ExpectedProblem[] {
  const expected: ExpectedProblem[] = [];
  let target = 0;
  text.split('\n').forEach((line, index) => {
    const carets = CARETS.exec(line);
    const explicit = EXPLICIT.exec(line);
    if (carets) {
      const column = 1 + 1 + (carets[1] as string).length;
      expected.push({ line: target, column, endColumn: column + (carets[2] as string).length, code: carets[3] as string });
    } else if (explicit) {
      expected.push({ line: target, column: Number(explicit[2]), endColumn: Number(explicit[3]), code: explicit[1] as string });
    } else {
      target = index + 1;
    }
  });
  return expected;
}

export function formatExpected(problem: ExpectedProblem): string {
  return `${problem.line}:${problem.column}-${problem.endColumn} ${problem.code}`;
}

export function formatActual(problem: Problem): string {
  const { line, column, endLine, endColumn } = problem.range;
  return endLine === line ? `${line}:${column}-${endColumn} ${problem.code}` : `${line}:${column}-${endLine}:${endColumn} ${problem.code}`;
}
