// GitHub Actions' reports of a run: workflow commands that annotate files (`::error file=…,line=…::
// message`, https://docs.github.com/actions/reference/workflow-commands-for-github-actions) and the
// Markdown of the job's step summary ($GITHUB_STEP_SUMMARY). Pure text: the command line chooses
// where they go. Every text is redacted by the caller's redactor before it is cut, then escaped.
import { CUTTER } from '../boundedText';
import type { Problem } from '../document/problems';
import type { Redactor } from '../redaction';
import { markdownCell } from './markdown';
import type { ReportedTest } from './reportedTest';

export type AnnotationLevel = 'error' | 'warning' | 'notice';

export interface Annotation {
  readonly level: AnnotationLevel;
  readonly message: string;
  /** As the user names it; the caller's `fileOf` makes it relative to the workspace. */
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  readonly title?: string;
}

/** Annotations written; beyond, one notice counts the rest (GitHub shows 10 of each level a step). */
export const MAX_ANNOTATIONS = 50;
/** The most characters of an annotation's message (after redaction). */
export const MAX_ANNOTATION_CHARS = 4000;
const MAX_TITLE_CHARS = 200;
/** GitHub's limit of a step's summary; a larger one is not shown at all. */
export const MAX_STEP_SUMMARY_BYTES = 1024 * 1024;
/** Rows of a summary's table; beyond, counted. */
export const SUMMARY_ROWS = 50;

export interface GithubTextOptions {
  /** Knows the run's secrets: each text is redacted by it before it is cut. */
  readonly redactor?: Redactor;
  /** A file as GitHub names it: relative to the workspace, with forward slashes. */
  readonly fileOf?: (file: string) => string;
}

/** A command's message: `%`, CR and LF escaped, as the runner reads them back. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A command's property value: as a message, and `:` and `,` too (they end a property). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One workflow command line per annotation (at most MAX_ANNOTATIONS, then a notice counting the rest). */
export function annotationLines(annotations: readonly Annotation[], options: GithubTextOptions = {}): string {
  const shown = (text: string, limit: number): string => (options.redactor ?? CUTTER).excerpt(text, limit);
  const lines: string[] = [];
  for (const annotation of annotations.slice(0, MAX_ANNOTATIONS)) {
    const properties: string[] = [];
    if (annotation.file !== undefined) {
      const file = options.fileOf ? options.fileOf(annotation.file) : annotation.file;
      properties.push(`file=${escapeProperty(shown(file, MAX_TITLE_CHARS * 5))}`);
      if (annotation.line !== undefined) properties.push(`line=${annotation.line}`);
      if (annotation.line !== undefined && annotation.column !== undefined) properties.push(`col=${annotation.column}`);
    }
    if (annotation.title !== undefined) properties.push(`title=${escapeProperty(shown(annotation.title, MAX_TITLE_CHARS))}`);
    const message = shown(annotation.message, MAX_ANNOTATION_CHARS);
    lines.push(`::${annotation.level}${properties.length ? ` ${properties.join(',')}` : ''}::${escapeData(message)}`);
  }
  const more = annotations.length - MAX_ANNOTATIONS;
  if (more > 0)
    lines.push(`::notice::${more.toLocaleString('en-US')} more ${more === 1 ? 'annotation' : 'annotations'} not shown: see the reports.`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** Failed tests as errors, skipped and other ones as warnings, each at its file and line, with its details. */
export function testAnnotations(tests: readonly ReportedTest[]): Annotation[] {
  const annotations: Annotation[] = [];
  for (const test of tests) {
    if (test.status === 'passed') continue;
    annotations.push({
      level: test.status === 'failed' ? 'error' : 'warning',
      title: test.status === 'failed' ? test.name : `${test.name} (${test.rawStatus ?? test.status})`,
      message: test.trace ?? test.message ?? test.rawStatus ?? test.status,
      ...(test.file !== undefined ? { file: test.file } : {}),
      ...(test.line !== undefined ? { line: test.line } : {}),
      ...(test.column !== undefined ? { column: test.column } : {}),
    });
  }
  return annotations;
}

/** A file's problems as annotations: errors and warnings, the code as the title (infos are hints, not annotated). */
export function problemAnnotations(file: string, problems: readonly Problem[]): Annotation[] {
  return problems
    .filter((problem) => problem.severity !== 'info')
    .map((problem) => ({
      level: problem.severity === 'error' ? 'error' : 'warning',
      file,
      line: problem.range.line,
      column: problem.range.column,
      title: problem.code,
      message: problem.message,
    }));
}

export interface SummaryTable {
  readonly heading: string;
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
}

export interface StepSummary {
  /** The heading: what ran and how it went. */
  readonly title: string;
  /** Label and figure of each total. */
  readonly totals: ReadonlyArray<readonly [string, number]>;
  readonly tables?: readonly SummaryTable[];
  /** Markdown added as it is (a comparison with the previous run). */
  readonly sections?: readonly string[];
}

/** The Markdown of a step summary: the totals, each table's first SUMMARY_ROWS rows, then the sections. */
export function stepSummaryMarkdown(summary: StepSummary, options: GithubTextOptions = {}): string {
  const redactor = options.redactor ?? CUTTER;
  const cell = (text: string): string => markdownCell(redactor.excerpt(text, MAX_TITLE_CHARS * 2));
  const out = [`### ${cell(summary.title)}`, '', `| ${summary.totals.map(([label]) => label).join(' | ')} |`];
  out.push(`| ${summary.totals.map(() => '---:').join(' | ')} |`);
  out.push(`| ${summary.totals.map(([, figure]) => figure.toLocaleString('en-US')).join(' | ')} |`);
  for (const table of summary.tables ?? []) {
    if (!table.rows.length) continue;
    out.push('', `#### ${cell(table.heading)}`, '', `| ${table.columns.map(cell).join(' | ')} |`);
    out.push(`| ${table.columns.map(() => '---').join(' | ')} |`);
    for (const row of table.rows.slice(0, SUMMARY_ROWS)) out.push(`| ${row.map(cell).join(' | ')} |`);
    const more = table.rows.length - SUMMARY_ROWS;
    if (more > 0) out.push('', `… and ${more.toLocaleString('en-US')} more (see the reports).`);
  }
  for (const section of summary.sections ?? []) out.push('', redactor.text(section));
  return boundedSummary(`${out.join('\n')}\n`);
}

/** The rows of a summary's table of failed and not passed tests: the test, where, and its message. */
export function failureRows(tests: readonly ReportedTest[], options: GithubTextOptions = {}): string[][] {
  return tests
    .filter((test) => test.status !== 'passed')
    .map((test) => [
      test.name,
      test.rawStatus ?? test.status,
      test.file === undefined
        ? ''
        : `${options.fileOf ? options.fileOf(test.file) : test.file}${test.line !== undefined ? `:${test.line}` : ''}`,
      test.message ?? '',
    ]);
}

/**
 * Markdown cut at a line to at most `maxBytes` of UTF-8 (GitHub's limit, less what the step's
 * summary holds already), saying it was cut.
 */
export function boundedSummary(markdown: string, maxBytes = MAX_STEP_SUMMARY_BYTES): string {
  if (Buffer.byteLength(markdown) <= maxBytes) return markdown;
  const note = '\n… (cut: a step summary holds at most 1 MiB)\n';
  const room = maxBytes - Buffer.byteLength(note);
  if (room <= 0) return '';
  let cut = Buffer.from(markdown).subarray(0, room).toString('utf8');
  // A character cut in two decodes as U+FFFD: dropped with the rest of its line.
  const lastLine = cut.lastIndexOf('\n');
  cut = lastLine >= 0 ? cut.slice(0, lastLine) : '';
  return `${cut}${note}`;
}
