// The comparison of two batches: a webview beside the editor with the summary on top (A against B)
// and the rows that changed, regressions first, then fixes, then other changes, filtered like the
// results table (and styled by its CSS); a click on a row opens VS Code's diff editor on its two
// results, and Export as Markdown writes the command line's Markdown report. One panel per pair of
// batches. The comparison is the core's (core/compare/); the webview is src/webview/batchCompare/.
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { summaryRows } from '../core/compare/compareMarkdown';
import type { Comparison } from '../core/compare/compareRuns';
import { compareTableRows, VERDICTS } from '../core/compare/compareTable';
import type { CompareTableRow } from '../core/compare/compareTable';
import { errorDetail, errorMessage } from '../core/errors';
import { webviewPage } from './webviewPage';
import { WebviewPanelHost } from './webviewPanelHost';
import type { CompareRenderReport, ComparisonMessage, CompareSideView, WebviewMessage } from '../webview/batchCompare/protocol';

const VIEW_TYPE = 'agentWorkflows.batchComparison';

export interface BatchComparePanelDeps {
  readonly extensionUri: vscode.Uri;
  readonly logger: vscode.LogOutputChannel;
  /** Opens the diff editor on a row's two results; returns the two documents. */
  readonly openRow: (
    source: BatchComparisonSource,
    row: CompareTableRow,
  ) => Promise<{ readonly left: vscode.Uri; readonly right: vscode.Uri } | undefined>;
  /** The command line's Markdown report of a comparison (the core's, loaded with the comparison). */
  readonly markdown: (comparison: Comparison) => string;
}

export interface BatchComparisonSource {
  /** Identifies the pair: one panel per key. */
  readonly key: string;
  readonly title: string;
  readonly a: CompareSideView;
  readonly b: CompareSideView;
  readonly comparison: Comparison;
}

const openPanels = new Map<string, BatchComparePanel>();

/** Shows the comparison of two batches: the open panel of the pair (with this comparison), or a new one. */
export function showBatchComparison(deps: BatchComparePanelDeps, source: BatchComparisonSource): BatchComparePanel {
  const open = openPanels.get(source.key);
  if (open) {
    open.update(source);
    open.webviewPanel.reveal(undefined, true);
    return open;
  }
  const panel = new BatchComparePanel(deps, source, () => openPanels.delete(source.key));
  openPanels.set(source.key, panel);
  return panel;
}

export class BatchComparePanel implements vscode.Disposable {
  private readonly host: WebviewPanelHost<WebviewMessage, CompareRenderReport>;
  private rows: CompareTableRow[] = [];
  private posted: ComparisonMessage | undefined;

  constructor(
    private readonly deps: BatchComparePanelDeps,
    private source: BatchComparisonSource,
    onDisposed: () => void,
  ) {
    this.host = new WebviewPanelHost({
      viewType: VIEW_TYPE,
      title: `Compare: ${source.title}`,
      extensionUri: deps.extensionUri,
      onMessage: (message) => this.onMessage(message),
      onDispose: onDisposed,
    });
    this.webviewPanel.webview.html = this.html();
    this.update(source);
  }

  get webviewPanel(): vscode.WebviewPanel {
    return this.host.panel;
  }

  /** The last comparison sent to the webview. */
  lastPosted(): ComparisonMessage | undefined {
    return this.posted;
  }

  /** What the webview showed last, read back from its page. */
  get rendered(): CompareRenderReport | undefined {
    return this.host.rendered;
  }

  /** Shows another comparison of the same pair (compared again). */
  update(source: BatchComparisonSource): void {
    this.source = source;
    this.rows = compareTableRows(source.comparison);
    this.posted = comparisonMessage(source, this.rows);
    this.post(this.posted);
  }

  /** What a click on a row does: the diff editor on its two results. */
  openRow(index: number): Promise<{ readonly left: vscode.Uri; readonly right: vscode.Uri } | undefined> {
    const row = this.rows[index];
    if (!row) return Promise.resolve(undefined);
    return this.deps.openRow(this.source, row);
  }

  /** What Export as Markdown does, without the dialog: the command line's Markdown report, to `uri`. */
  async exportMarkdown(uri: vscode.Uri): Promise<void> {
    // The batches by their names, not by the extension's storage folders.
    const { comparison, a, b } = this.source;
    const shown: Comparison = { ...comparison, a: { ...comparison.a, path: a.label }, b: { ...comparison.b, path: b.label } };
    await vscode.workspace.fs.writeFile(uri, Buffer.from(this.deps.markdown(shown)));
  }

  dispose(): void {
    this.host.dispose();
  }

  private onMessage(message: WebviewMessage): void {
    switch (message.type) {
      case 'ready':
        // Also after the panel was hidden and shown again: the page is then a new one.
        if (this.posted) this.post(this.posted);
        break;
      case 'open':
        this.openRow(message.index).catch((error: unknown) => {
          this.deps.logger.error(`Cannot open the diff of a compared row: ${errorDetail(error)}`);
          void vscode.window.showErrorMessage(`Cannot open the diff of the row: ${errorMessage(error)}`);
        });
        break;
      case 'export':
        void this.exportWithDialog();
        break;
    }
  }

  private async exportWithDialog(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = `compare-${basename(this.source.b.resultsPath, '.jsonl')}.md`;
    const target = await vscode.window.showSaveDialog({
      title: 'Export the comparison as Markdown',
      defaultUri: folder ? vscode.Uri.joinPath(folder, name) : vscode.Uri.file(join(dirname(this.source.b.resultsPath), name)),
      filters: { Markdown: ['md'] },
    });
    if (!target) return;
    try {
      await this.exportMarkdown(target);
      void vscode.window.showInformationMessage(
        `Exported the comparison to ${target.scheme === 'file' ? target.fsPath : target.toString(true)}.`,
      );
    } catch (error) {
      this.deps.logger.error(`Cannot export the comparison: ${errorDetail(error)}`);
      void vscode.window.showErrorMessage(`Cannot export the comparison: ${errorMessage(error)}`);
    }
  }

  private post(message: ComparisonMessage): void {
    this.host.post(message);
  }

  private html(): string {
    const verdictOptions = ['all', ...VERDICTS]
      .map(
        (verdict) =>
          `<option value="${verdict}">${verdict === 'all' ? 'All changes' : verdict === 'fix' ? 'fixes' : verdict === 'regression' ? 'regressions' : 'other changes'}</option>`,
      )
      .join('');
    return webviewPage(this.webviewPanel.webview, this.deps.extensionUri, {
      name: 'batchCompare',
      styles: ['batchResults'],
      title: 'Batch comparison',
      body: `  <header id="header">
    <h1 id="title"></h1>
    <span id="file"></span>
    <p id="counts" role="status" aria-label="Rows by change"></p>
  </header>
  <table id="summary" aria-label="Summary, A against B">
    <thead id="summary-head"></thead>
    <tbody id="summary-rows"></tbody>
  </table>
  <div id="toolbar" role="toolbar" aria-label="Comparison table">
    <label for="verdict-filter">Show</label>
    <select id="verdict-filter">${verdictOptions}</select>
    <label for="text-filter">Filter</label>
    <input id="text-filter" type="search" placeholder="Text in any cell" autocomplete="off">
    <button id="export-markdown" type="button">Export as Markdown</button>
  </div>
  <p id="notice" role="status" hidden></p>
  <div id="content">
    <div id="table-scroll">
      <table id="results" aria-describedby="shown">
        <thead><tr id="columns"><th scope="col">Change</th><th scope="col">Row</th><th scope="col">Status</th><th scope="col">What changed</th><th scope="col">Diff</th></tr></thead>
        <tbody id="rows"></tbody>
      </table>
      <p id="shown" role="status"></p>
    </div>
  </div>`,
    });
  }
}

/** The comparison as the webview takes it, with what else to say in words. */
function comparisonMessage(source: BatchComparisonSource, rows: readonly CompareTableRow[]): ComparisonMessage {
  const { comparison } = source;
  const notes: string[] = [];
  if (comparison.differentAgents)
    notes.push(
      `The batches are of different agents (${comparison.differentAgents.a}; ${comparison.differentAgents.b}): compared by output names.`,
    );
  if (comparison.badLines.count)
    notes.push(
      `${comparison.badLines.count} ${comparison.badLines.count === 1 ? 'line' : 'lines'} of the results could not be read and ${comparison.badLines.count === 1 ? 'was' : 'were'} skipped (${comparison.badLines.items
        .slice(0, 3)
        .map((line) => `${line.side.toUpperCase()} line ${line.line}: ${line.problem}`)
        .join('; ')}).`,
    );
  for (const [name, list] of [
    ['regressions', comparison.regressions],
    ['fixes', comparison.fixes],
    ['other changes', comparison.changes],
  ] as const)
    if (list.count > list.items.length) notes.push(`The first ${list.items.length} of ${list.count} ${name} are listed.`);
  return {
    type: 'comparison',
    title: source.title,
    a: source.a,
    b: source.b,
    summary: summaryRows(comparison),
    counts: {
      matched: comparison.matched,
      unchanged: comparison.unchanged,
      regressions: comparison.regressions.count,
      fixes: comparison.fixes.count,
      changes: comparison.changes.count,
      changedOutputs: comparison.changedOutputs,
      onlyInA: comparison.onlyInA.count,
      onlyInB: comparison.onlyInB.count,
    },
    rows,
    notes,
  };
}
