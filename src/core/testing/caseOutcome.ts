// How a case, or a test file, ended in an editor's run, as plain facts: passed, failed, errored or
// skipped; its messages (text, expected beside actual, the place in the test file) and the lines the
// run's output shows. The Test Explorer's adapter (src/testing/testOutcomes.ts) only turns these into
// VS Code's objects, so what a run reports is decided, and tested, in plain Node. Light: the extension
// loads it at activation (no YAML, no engine).
import { LineIndex } from '../document/lineIndex';
import type { Problem, Span } from '../document/problems';
import type { CaseResult, SnapshotFailureCode } from './caseResult';
import { shownFailure } from './shownValue';

export type OutcomeKind = 'passed' | 'failed' | 'errored' | 'skipped';

/** A place in a file: 1-based lines and columns, as LineIndex gives them. */
export interface TextLocation {
  /** The file as the caller named it (a path or a URI: it is given back as it came). */
  readonly file: string;
  readonly start: { readonly line: number; readonly column: number };
  readonly end: { readonly line: number; readonly column: number };
}

export interface OutcomeMessage {
  /** Bounded (shownValue): a 9 MB answer makes a message of a few KB. */
  readonly message: string;
  /** Both or neither: what was expected beside what came (a Compare view needs both), each bounded. */
  readonly expected?: string;
  readonly actual?: string;
  readonly location?: TextLocation;
  /** Writing the case's snapshot would put it right (an adapter offers to). */
  readonly code?: SnapshotFailureCode;
}

export interface CaseOutcome {
  readonly kind: OutcomeKind;
  /** Only for a case that ran (passed, failed, or errored with its inputs refused). */
  readonly durationMs?: number;
  readonly messages: readonly OutcomeMessage[];
  /** What the reader should know of how the case ran (e.g. what a deployment leaves out). */
  readonly notes?: readonly string[];
  /** The lines the run's output shows for it, without line ends. */
  readonly output: readonly string[];
}

/**
 * Reads offsets of one test file's text as locations, its line index built once for all the
 * messages of a run of it.
 */
export class TestFileLocations {
  private readonly lines: LineIndex;

  /** `file` is given back in each location as it came (a path or a URI). */
  constructor(
    private readonly file: string,
    text: string,
  ) {
    this.lines = new LineIndex(text);
  }

  at(span: Span): TextLocation {
    return { file: this.file, start: this.lines.position(span.start), end: this.lines.position(span.end) };
  }
}

/**
 * How a case ended, from what running it gave. A case stopped by the user (`cancelled`) before it
 * passed is skipped, not failed; a case whose inputs were refused did not run: errored, not failed.
 * Each failed expectation is a message at its place, with expected and actual values when it has
 * them.
 */
export function caseOutcome(result: CaseResult, locations: TestFileLocations, { cancelled }: { readonly cancelled: boolean }): CaseOutcome {
  if (cancelled && !result.passed) return { kind: 'skipped', messages: [], output: [`  - ${result.name} (cancelled)`] };
  const ranOn = result.ranOn !== undefined ? ` (ran on ${result.ranOn})` : '';
  const noted = result.notes?.length ? { notes: result.notes } : {};
  const notes = (result.notes ?? []).map((note) => `    note: ${note}`);
  if (result.passed)
    return {
      kind: 'passed',
      durationMs: result.durationMs,
      messages: [],
      ...noted,
      output: [`  ✓ ${result.name} (${result.durationMs} ms)${ranOn}`, ...notes],
    };
  const messages = result.failures.map((failure): OutcomeMessage => ({
    ...shownFailure(failure),
    location: locations.at(failure.span),
    ...(failure.code !== undefined ? { code: failure.code } : {}),
  }));
  return {
    kind: result.execution === undefined ? 'errored' : 'failed',
    durationMs: result.durationMs,
    messages,
    ...noted,
    output: [
      `  ✗ ${result.name} (${result.durationMs} ms)${ranOn}`,
      ...messages.flatMap(({ message }) => message.split(/\r?\n/).map((line) => `    ${line}`)),
      ...notes,
    ],
  };
}

/**
 * A case a continuous run leaves out, or undefined when it runs: runs on a deployment and calls of
 * real APIs never start on their own (each edit would reach the service, or ask for its key).
 */
export function continuousSkip(
  testCase: { readonly name: string; readonly deployed?: boolean; readonly live?: boolean },
  { allDeployed }: { readonly allDeployed: boolean },
): CaseOutcome | undefined {
  if (!(allDeployed || testCase.deployed || testCase.live)) return undefined;
  const note =
    allDeployed || testCase.deployed
      ? 'Not run continuously: this case runs on the deployment (deployed: true), which never starts on its own. Run it to send it.'
      : 'Not run continuously: this case calls real APIs (live: true), which never happens on its own. Run it to call them.';
  return { kind: 'skipped', messages: [], notes: [note], output: [`  - ${testCase.name}`, `    note: ${note}`] };
}

/** A case the run did not reach (stopped before it, or left out by the runner). */
export const NOT_REACHED: CaseOutcome = { kind: 'skipped', messages: [], output: [] };

/**
 * A test file that cannot run (its agent cannot be loaded, or its problems stop it): it and each
 * chosen case error with its error problems, each at its place, or with `failure` when it has none.
 */
export function unrunnableFileOutcome(
  failure: string | undefined,
  problems: readonly Problem[],
  locations: TestFileLocations,
): CaseOutcome {
  const said = failure ?? 'The test file cannot run.';
  const messages: OutcomeMessage[] = problems
    .filter((problem) => problem.severity === 'error')
    .map((problem) => ({ message: problem.message, location: locations.at(problem.span) }));
  if (messages.length === 0) messages.push({ message: said });
  return { kind: 'errored', messages, output: [`  ${said}`, ...messages.map(({ message }) => `    ${message}`)] };
}

/** A test file that errors as a whole with one message, said in the output too (unreadable, gone). */
export function fileErrored(message: string): CaseOutcome {
  return { kind: 'errored', messages: [{ message }], output: [message] };
}

/** A test file in an untrusted workspace: errored, said at its item only (each file would repeat it). */
export const UNTRUSTED: CaseOutcome = {
  kind: 'errored',
  messages: [{ message: 'Agent tests do not run in Restricted Mode: this workspace is not trusted. Trust it to run them.' }],
  output: [],
};
