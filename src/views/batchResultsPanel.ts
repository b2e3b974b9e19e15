// The results table of a batch: a webview beside the editor listing the rows of a batch's results
// file (sortable, filterable by status and text, a row's whole result in a detail pane), read again
// on refresh, with exports of the rows that pass the filter to CSV or JSON lines. One panel per
// batch, by key. The file is read by src/core/batch/resultsTable.ts; the webview is
// src/webview/batchResults/.
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { errorDetail, errorMessage } from '../core/errors';
import { emptyCounts, isResultsFilter, NO_FILTER, ROW_STATUSES, rowDetail, tableRowOf } from '../core/batch/resultsRows';
import type { ResultsFilter } from '../core/batch/resultsRows';
import { columnNamesOf, exportBatchResults, readBatchResults } from '../core/batch/resultsTable';
import type { ExportFormat, ExportSummary } from '../core/batch/resultsTable';
import type { RowResult } from '../core/batch/batchModel';
import { webviewPage } from './webviewPage';
import { WebviewPanelHost } from './webviewPanelHost';
import type { DetailMessage, HostMessage, RenderReport, RowsMessage, WebviewMessage } from '../webview/batchResults/protocol';

const VIEW_TYPE = 'agentWorkflows.batchResults';
/** Input and output columns the table shows, each; an export has them all. */
const MAX_TABLE_NAMED_COLUMNS = 100;
/** The most characters of one section of the detail pane. */
const MAX_DETAIL_CHARS = 1_000_000;

export interface BatchResultsPanelDeps {
  readonly extensionUri: vscode.Uri;
  readonly logger: vscode.LogOutputChannel;
}

export interface BatchResultsSource {
  /** Identifies the batch: one panel per key. */
  readonly key: string;
  /** Shown in the panel's tab and header. */
  readonly title: string;
  /** Absolute path of the results file (JSON lines). */
  readonly resultsPath: string;
}

const openPanels = new Map<string, BatchResultsPanel>();

/** Shows the results table of a batch: the open panel of its key (read again), or a new one. */
export function showBatchResults(deps: BatchResultsPanelDeps, batch: BatchResultsSource): BatchResultsPanel {
  const open = openPanels.get(batch.key);
  if (open) {
    open.webviewPanel.reveal(undefined, true);
    void open.refresh();
    return open;
  }
  const panel = new BatchResultsPanel(deps, batch, () => openPanels.delete(batch.key));
  openPanels.set(batch.key, panel);
  return panel;
}

/** The open results panel of a batch, if any (to refresh it as rows end). */
export function batchResultsPanelOf(key: string): BatchResultsPanel | undefined {
  return openPanels.get(key);
}

export class BatchResultsPanel implements vscode.Disposable {
  private readonly host: WebviewPanelHost<WebviewMessage, RenderReport>;
  private byRow = new Map<number, RowResult>();
  private posted: RowsMessage | undefined;
  /** The read under way, and whether another was asked for meanwhile (reads are never run at once). */
  private reading: Promise<void> | undefined;
  private readAgain = false;

  constructor(
    private readonly deps: BatchResultsPanelDeps,
    readonly batch: BatchResultsSource,
    onDisposed: () => void,
  ) {
    this.host = new WebviewPanelHost({
      viewType: VIEW_TYPE,
      title: `Results: ${batch.title}`,
      extensionUri: deps.extensionUri,
      onMessage: (message) => this.onMessage(message),
      onDispose: onDisposed,
    });
    this.webviewPanel.webview.html = this.html();
    void this.refresh();
  }

  get webviewPanel(): vscode.WebviewPanel {
    return this.host.panel;
  }

  /** The last `rows` message sent to the webview (or ready to be sent when it loads). */
  lastPosted(): RowsMessage | undefined {
    return this.posted;
  }

  /** What the webview showed last, read back from its page. */
  get rendered(): RenderReport | undefined {
    return this.host.rendered;
  }

  /** Reads the results file again and sends its rows; calls during a read make one more read after it. */
  refresh(): Promise<void> {
    if (this.host.disposed) return Promise.resolve();
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      try {
        do {
          this.readAgain = false;
          await this.read();
        } while (this.readAgain && !this.host.disposed);
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  /** What the export buttons do, without the dialog: the rows of the whole file that pass the filter. */
  async exportTo(uri: vscode.Uri, format: ExportFormat, filter: ResultsFilter = NO_FILTER): Promise<ExportSummary> {
    if (uri.scheme !== 'file') throw new Error(`Exports are written to files on this machine, not to ${uri.toString(true)}.`);
    return exportBatchResults(this.batch.resultsPath, uri.fsPath, format, filter);
  }

  dispose(): void {
    this.host.dispose();
  }

  private async read(): Promise<void> {
    let message: RowsMessage;
    try {
      const results = await readBatchResults(this.batch.resultsPath);
      this.byRow = new Map(results.rows.map((row) => [row.row, row]));
      const names = columnNamesOf(results.rows, MAX_TABLE_NAMED_COLUMNS);
      message = {
        ...this.header(),
        rows: results.rows.map(tableRowOf),
        total: results.total,
        truncated: results.truncated,
        badLines: results.badLines,
        counts: results.counts,
        columnNames: names.columns,
        inputNames: names.inputs,
        outputNames: names.outputs,
        ...(results.total === 0 ? { notice: 'No row has ended yet.' } : {}),
      };
    } catch (error) {
      this.byRow = new Map();
      // Before the first row ends, the batch has written no results file.
      const missing = (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
      if (!missing) this.deps.logger.warn(`Cannot read the batch results ${this.batch.resultsPath}: ${errorMessage(error)}`);
      message = {
        ...this.header(),
        rows: [],
        total: 0,
        truncated: false,
        badLines: 0,
        counts: emptyCounts(),
        columnNames: [],
        inputNames: [],
        outputNames: [],
        notice: missing ? 'No results file yet: no row has ended.' : errorMessage(error),
      };
    }
    if (this.host.disposed) return;
    this.posted = message;
    this.post(message);
  }

  private header(): Pick<RowsMessage, 'type' | 'title' | 'resultsPath'> {
    return { type: 'rows', title: this.batch.title, resultsPath: this.batch.resultsPath };
  }

  private onMessage(message: WebviewMessage): void {
    switch (message.type) {
      case 'ready':
        // Also after the panel was hidden and shown again: the page is then a new one.
        if (this.posted) this.post(this.posted);
        else void this.refresh();
        break;
      case 'refresh':
        void this.refresh();
        break;
      case 'select':
        this.post(this.detailOf(message.row));
        break;
      case 'export':
        void this.exportWithDialog(message.format, message.filter);
        break;
    }
  }

  private detailOf(row: number): DetailMessage {
    const result = this.byRow.get(row);
    return result ? { type: 'detail', row, sections: rowDetail(result, MAX_DETAIL_CHARS) } : { type: 'detail', row };
  }

  private async exportWithDialog(format: ExportFormat, filter: ResultsFilter): Promise<void> {
    if ((format !== 'csv' && format !== 'jsonl') || !isResultsFilter(filter)) {
      this.deps.logger.error(`The results table sent an export it cannot ask for: ${JSON.stringify({ format, filter })}`);
      return;
    }
    const base = basename(this.batch.resultsPath).replace(/\.jsonl?$/i, '');
    const suffix = filter.status === 'all' ? '' : `-${filter.status}`;
    const target = await vscode.window.showSaveDialog({
      title: `Export the rows shown as ${format === 'csv' ? 'CSV' : 'JSON lines'}`,
      defaultUri: vscode.Uri.file(join(dirname(this.batch.resultsPath), `${base}${suffix}-export.${format}`)),
      filters: format === 'csv' ? { CSV: ['csv'] } : { 'JSON lines': ['jsonl'] },
    });
    if (!target) return;
    try {
      const summary = await this.exportTo(target, format, filter);
      const notes = [
        summary.badLines ? `${summary.badLines} unreadable line${summary.badLines === 1 ? '' : 's'} of the results file skipped` : '',
        summary.columnsLeftOut ? 'some input or output columns left out (too many names; the JSONL export has them all)' : '',
      ].filter(Boolean);
      void vscode.window.showInformationMessage(
        `Exported ${summary.rows} row${summary.rows === 1 ? '' : 's'} to ${target.fsPath}${notes.length ? ` (${notes.join('; ')})` : ''}.`,
      );
    } catch (error) {
      this.deps.logger.error(`Cannot export the batch results: ${errorDetail(error)}`);
      void vscode.window.showErrorMessage(`Cannot export the batch results: ${errorMessage(error)}`);
    }
  }

  private post(message: HostMessage): void {
    this.host.post(message);
  }

  private html(): string {
    const statusOptions = ['all', ...ROW_STATUSES]
      .map((status) => `<option value="${status}">${status === 'all' ? 'All statuses' : status}</option>`)
      .join('');
    return webviewPage(this.webviewPanel.webview, this.deps.extensionUri, {
      name: 'batchResults',
      title: 'Batch results',
      body: `  <header id="header">
    <h1 id="title"></h1>
    <span id="file"></span>
    <p id="counts" role="status" aria-label="Rows by status"></p>
  </header>
  <div id="toolbar" role="toolbar" aria-label="Results table">
    <label for="status-filter">Status</label>
    <select id="status-filter">${statusOptions}</select>
    <label for="text-filter">Filter</label>
    <input id="text-filter" type="search" placeholder="Text in any cell" autocomplete="off">
    <button id="refresh" type="button">Refresh</button>
    <button id="export-csv" type="button">Export CSV</button>
    <button id="export-jsonl" type="button">Export JSONL</button>
  </div>
  <p id="notice" role="status" hidden></p>
  <div id="content">
    <div id="table-scroll">
      <table id="results" aria-describedby="shown">
        <thead><tr id="columns"></tr></thead>
        <tbody id="rows"></tbody>
      </table>
      <p id="shown" role="status"></p>
    </div>
    <aside id="detail" aria-label="Row detail" hidden>
      <div id="detail-head"><h2 id="detail-title"></h2><button id="detail-close" type="button" aria-label="Close the row detail">Close</button></div>
      <div id="detail-body"></div>
    </aside>
  </div>`,
    });
  }
}
