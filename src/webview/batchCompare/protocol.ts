// Messages between the batch comparison panel (extension host) and its webview. Types only: both
// sides import them, and nothing of the host's code reaches the browser bundle.
import type { CompareFilter, CompareTableRow } from '../../core/compare/compareTable';

export interface CompareSideView {
  /** The batch in words: agent, data file, when it started. */
  readonly label: string;
  /** Its results file. */
  readonly resultsPath: string;
}

/** Host → webview: the comparison, replacing what was shown (the filter stays). */
export interface ComparisonMessage {
  readonly type: 'comparison';
  readonly title: string;
  readonly a: CompareSideView;
  readonly b: CompareSideView;
  /** The summary's figures, A against B: [label, A, B] (rows, pass rate, failures, p50, p95). */
  readonly summary: readonly (readonly [string, string, string])[];
  readonly counts: {
    readonly matched: number;
    readonly unchanged: number;
    readonly regressions: number;
    readonly fixes: number;
    readonly changes: number;
    readonly changedOutputs: number;
    readonly onlyInA: number;
    readonly onlyInB: number;
  };
  /** Regressions first, then fixes, then other changes (each list bounded: `notes` says when cut). */
  readonly rows: readonly CompareTableRow[];
  /** What else to say: runs of different agents, bad lines skipped, lists cut. */
  readonly notes: readonly string[];
}

export type HostMessage = ComparisonMessage;

/** Webview → host. */
export type WebviewMessage =
  /** The script is running and can take a `comparison` message (sent again after the panel is shown). */
  | { readonly type: 'ready' }
  /** A row was clicked: open the diff editor on its two results. */
  | { readonly type: 'open'; readonly index: number }
  /** Export as Markdown: ask where, then write the command line's Markdown report. */
  | { readonly type: 'export' }
  /** What the webview shows now, read back from its DOM (for tests and the log). */
  | { readonly type: 'rendered'; readonly report: CompareRenderReport };

export interface CompareRenderReport {
  /** The table's body rows, in the order shown: their verdict and label. */
  readonly rows: readonly { readonly verdict: string; readonly label: string }[];
  /** The summary table's cells, row by row. */
  readonly summary: readonly (readonly string[])[];
  /** The counts line as shown. */
  readonly counts: string;
  readonly filter: CompareFilter;
}
