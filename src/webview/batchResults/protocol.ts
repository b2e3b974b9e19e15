// Messages between the batch results panel (extension host) and its webview. Types only: both sides
// import them, and nothing of the host's code reaches the browser bundle.
import type { DetailSection, ResultsFilter, StatusCounts, TableRow } from '../../core/batch/resultsRows';
import type { ExportFormat } from '../../core/batch/resultsTable';

/** Host → webview: the table's rows, replacing those shown before (sort, filter and selection stay). */
export interface RowsMessage {
  readonly type: 'rows';
  readonly title: string;
  /** The results file, as shown to the user. */
  readonly resultsPath: string;
  /** The rows kept (at most MAX_TABLE_ROWS), values as short text. */
  readonly rows: readonly TableRow[];
  /** Rows in the file; more than rows.length when truncated. */
  readonly total: number;
  readonly truncated: boolean;
  /** Lines of the file that are not a row's result. */
  readonly badLines: number;
  /** Rows by status, of every row of the file. */
  readonly counts: StatusCounts;
  /** The data's other columns (neither inputs nor expectations), in the order first seen. */
  readonly columnNames: readonly string[];
  /** The input and output columns, in the order first seen. */
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Why the file could not be read, or that it does not exist yet. */
  readonly notice?: string;
}

/** Host → webview: a row's whole result, as pretty JSON by section, for the detail pane. */
export interface DetailMessage {
  readonly type: 'detail';
  readonly row: number;
  /** Undefined when the row is no longer in the table (the file changed). */
  readonly sections?: readonly DetailSection[];
}

export type HostMessage = RowsMessage | DetailMessage;

/** Webview → host. */
export type WebviewMessage =
  /** The script is running and can take a `rows` message (sent again after the panel is shown). */
  | { readonly type: 'ready' }
  /** The Refresh button: read the results file again. */
  | { readonly type: 'refresh' }
  /** An export button: ask where, then write the rows that pass the filter (the whole file's). */
  | { readonly type: 'export'; readonly format: ExportFormat; readonly filter: ResultsFilter }
  /** A row was clicked: send its detail. */
  | { readonly type: 'select'; readonly row: number }
  /** What the webview shows now, read back from its DOM (for tests and the log). */
  | { readonly type: 'rendered'; readonly report: RenderReport };

export interface RenderReport {
  /** Row numbers of the table's body rows, in the order shown. */
  readonly rows: readonly number[];
  /** Rows passing the filter (more than rows.length when the table is capped). */
  readonly matching: number;
  readonly filter: ResultsFilter;
  /** The column sorted on (its header's data-column), and the direction. */
  readonly sort: { readonly column: string; readonly direction: 'ascending' | 'descending' };
}
