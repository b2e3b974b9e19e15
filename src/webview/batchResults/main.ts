// The batch results panel's webview: the rows the extension sends as a table, sorted by a clicked
// header, filtered by status and text (the same filter the exports apply: resultsRows.ts), counts
// by status above it, and a clicked row's whole result in a detail pane. At most MAX_SHOWN_ROWS
// rows are in the DOM, so 10,000 rows stay quick. Bundled by esbuild for the browser; everything is
// built with DOM calls and textContent: values from the results file are never parsed as HTML.
import { cellText, filterRows, ROW_STATUSES, sortRows } from '../../core/batch/resultsRows';
import { formatDuration } from '../../core/executions/executionRecord';
import type { ResultsFilter, ResultsSort } from '../../core/batch/resultsRows';
import type { RowStatus } from '../../core/batch/batchModel';
import type { DetailMessage, HostMessage, RenderReport, RowsMessage, WebviewMessage } from './protocol';
import { byId, element, onHostMessage, plural, vsCodeApi } from '../page';
import type { DomDocument, DomElement } from '../page';

// The DOM as declared for the webviews (page.ts): the project has no DOM library.
declare const document: DomDocument;
interface ViewState {
  readonly filter: ResultsFilter;
  readonly sort: ResultsSort;
}
const vscode = vsCodeApi<WebviewMessage, ViewState>();
/** Rows in the DOM at most; the others are reached by sorting or filtering. */
const MAX_SHOWN_ROWS = 500;
/** Characters of a value shown in its cell; the tooltip has the whole cell text. */
const MAX_SHOWN_CHARS = 60;
/** Quiet time after a keystroke in the text filter before the table is filtered again. */
const FILTER_DELAY_MS = 150;

const STATUS_ICON: Record<RowStatus, string> = {
  finished: '✓',
  failed: '✗',
  error: '⚠',
  timeout: '⏱',
  unknown: '?',
  skipped: '⤼',
};

const saved = vscode.getState();
let filter: ResultsFilter = saved?.filter ?? { status: 'all', text: '' };
let sort: ResultsSort = saved?.sort ?? { column: 'row', direction: 'ascending' };
let current: RowsMessage | undefined;
let selectedRow: number | undefined;
let filterTimer: ReturnType<typeof setTimeout> | undefined;

/** A status's icon, hidden from screen readers: the word beside it says the same. */
function statusIcon(status: RowStatus): DomElement {
  const icon = element('span', 'icon', STATUS_ICON[status]);
  icon.setAttribute('aria-hidden', 'true');
  return icon;
}

function saveState(): void {
  vscode.setState({ filter, sort });
}

function columnsOf(message: RowsMessage): { key: string; label: string }[] {
  return [
    { key: 'row', label: 'Row' },
    { key: 'status', label: 'Status' },
    { key: 'duration', label: 'Duration' },
    ...(message.columnNames ?? []).map((name) => ({ key: `column:${name}`, label: name })),
    ...message.inputNames.map((name) => ({ key: `input:${name}`, label: name })),
    ...message.outputNames.map((name) => ({ key: `output:${name}`, label: name })),
    { key: 'error', label: 'Error' },
  ];
}

function show(message: RowsMessage): void {
  current = message;
  byId('title').textContent = message.title;
  const file = byId('file');
  file.textContent = message.resultsPath.split(/[\\/]/).pop() ?? message.resultsPath;
  file.title = message.resultsPath;
  drawCounts(message);
  const notes = [
    message.notice ?? '',
    message.badLines
      ? `${plural(message.badLines, 'line')} of the results file could not be read and ${message.badLines === 1 ? 'is' : 'are'} left out.`
      : '',
    message.truncated
      ? `The table holds the first ${message.rows.length.toLocaleString('en')} of ${plural(message.total, 'row')}; exports include them all.`
      : '',
  ].filter(Boolean);
  const notice = byId('notice');
  notice.textContent = notes.join(' ');
  notice.hidden = notes.length === 0;
  if (!columnsOf(message).some((column) => column.key === sort.column)) sort = { column: 'row', direction: 'ascending' };
  drawHeaders(message);
  drawRows();
}

function drawCounts(message: RowsMessage): void {
  const counts = byId('counts');
  const parts = [element('span', 'count-total', plural(message.total, 'row'))];
  for (const status of ROW_STATUSES) {
    const count = message.counts[status];
    if (!count) continue;
    const part = element('span', `count status-${status}`);
    part.append(statusIcon(status), element('span', '', ` ${count.toLocaleString('en')} ${status}`));
    parts.push(part);
  }
  counts.replaceChildren(...parts);
}

function drawHeaders(message: RowsMessage): void {
  const headers = columnsOf(message).map(({ key, label }) => {
    const th = element('th');
    th.scope = 'col';
    th.dataset.column = key;
    th.className = key.startsWith('input:') ? 'input' : key.startsWith('output:') ? 'output' : key.startsWith('column:') ? 'column' : key;
    if (sort.column === key) th.setAttribute('aria-sort', sort.direction);
    const button = element('button', 'sort');
    button.type = 'button';
    const kind = key.startsWith('input:') ? 'input ' : key.startsWith('output:') ? 'output ' : '';
    button.title = `Sort by ${kind}${label}`;
    button.append(
      element('span', 'kind', kind ? (kind === 'input ' ? 'in' : 'out') : ''),
      element('span', 'label', label),
      element('span', 'arrow', sort.column === key ? (sort.direction === 'ascending' ? '▲' : '▼') : ''),
    );
    button.addEventListener('click', () => {
      sort = { column: key, direction: sort.column === key && sort.direction === 'ascending' ? 'descending' : 'ascending' };
      saveState();
      drawHeaders(message);
      drawRows();
      // The header was drawn again: keep the focus on the same header's button.
      for (const again of document.querySelectorAll('#columns th'))
        if (again.dataset.column === key) again.querySelector('button.sort')?.focus();
    });
    th.append(button);
    return th;
  });
  byId('columns').replaceChildren(...headers);
}

function cell(text: string | undefined, className: string): DomElement {
  const td = element('td', className, cellText(text ?? '', MAX_SHOWN_CHARS));
  if (text) td.title = text;
  return td;
}

function drawRows(): void {
  const message = current;
  if (!message) return;
  const matching = sortRows(filterRows(message.rows, filter), sort);
  const shown = matching.slice(0, MAX_SHOWN_ROWS);
  const trs = shown.map((row) => {
    const tr = element('tr', `status-${row.status}`);
    tr.dataset.row = String(row.row);
    tr.classList.toggle('selected', row.row === selectedRow);
    const rowCell = element('td', 'row');
    const button = element('button', 'row-button', String(row.row));
    button.type = 'button';
    button.title = `Show row ${row.row}'s inputs, outputs and error`;
    rowCell.append(button);
    const status = element('td', `status status-${row.status}`);
    status.append(statusIcon(row.status), element('span', 'word', ` ${row.status}`));
    if (row.passed !== undefined) status.append(element('span', `passed passed-${row.passed}`, row.passed ? ' · passed' : ' · not passed'));
    if (row.executionId) status.title = `Execution ${row.executionId}`;
    const duration = element('td', 'duration', row.durationMs === undefined ? '' : formatDuration(row.durationMs));
    tr.append(
      rowCell,
      status,
      duration,
      ...(message.columnNames ?? []).map((name) => cell(row.columns?.[name], 'column')),
      ...message.inputNames.map((name) => cell(row.inputs[name], 'input')),
      ...message.outputNames.map((name) => cell(row.outputs[name], 'output')),
      cell(row.error, 'error'),
    );
    tr.addEventListener('click', () => select(row.row));
    return tr;
  });
  byId('rows').replaceChildren(...trs);
  const shownText =
    matching.length > shown.length
      ? `Showing ${shown.length.toLocaleString('en')} of ${plural(matching.length, 'matching row')}: sort or refine the filter to see the others.`
      : matching.length === message.rows.length
        ? plural(matching.length, 'row')
        : `${plural(matching.length, 'row')} of ${message.rows.length.toLocaleString('en')} match the filter.`;
  byId('shown').textContent = message.rows.length ? shownText : '';
  const report: RenderReport = { rows: shown.map((row) => row.row), matching: matching.length, filter, sort };
  vscode.postMessage({ type: 'rendered', report });
}

function select(row: number): void {
  selectedRow = row;
  for (const tr of document.querySelectorAll('#rows tr')) tr.classList.toggle('selected', tr.dataset.row === String(row));
  byId('detail').hidden = false;
  byId('detail-title').textContent = `Row ${row}`;
  byId('detail-body').replaceChildren(element('p', 'loading', 'Loading…'));
  vscode.postMessage({ type: 'select', row });
}

function showDetail(message: DetailMessage): void {
  if (message.row !== selectedRow) return;
  const body = byId('detail-body');
  if (!message.sections) {
    body.replaceChildren(element('p', 'missing', 'This row is no longer in the table: refresh it.'));
    return;
  }
  body.replaceChildren(
    ...message.sections.map(({ title, json }) => {
      const section = element('section');
      section.append(element('h3', '', title), element('pre', 'json', json));
      return section;
    }),
  );
}

function closeDetail(): void {
  const row = selectedRow;
  selectedRow = undefined;
  byId('detail').hidden = true;
  for (const tr of document.querySelectorAll('#rows tr.selected')) tr.classList.toggle('selected', false);
  // Back to the row the pane was opened from.
  for (const tr of document.querySelectorAll('#rows tr'))
    if (tr.dataset.row === String(row)) tr.querySelector('button.row-button')?.focus();
}

function setUp(): void {
  const statusFilter = byId('status-filter');
  const textFilter = byId('text-filter');
  statusFilter.value = filter.status;
  textFilter.value = filter.text;
  statusFilter.addEventListener('change', () => {
    const status = statusFilter.value;
    filter = { ...filter, status: status === 'all' || ROW_STATUSES.includes(status as RowStatus) ? (status as RowStatus | 'all') : 'all' };
    saveState();
    drawRows();
  });
  textFilter.addEventListener('input', () => {
    if (filterTimer) clearTimeout(filterTimer);
    filterTimer = setTimeout(() => {
      filterTimer = undefined;
      filter = { ...filter, text: textFilter.value };
      saveState();
      drawRows();
    }, FILTER_DELAY_MS);
  });
  byId('refresh').addEventListener('click', () => vscode.postMessage({ type: 'refresh' }));
  // The filter as typed, even within the quiet time: what is exported is what the user asked for.
  const exportAs = (format: 'csv' | 'jsonl') =>
    vscode.postMessage({ type: 'export', format, filter: { ...filter, text: textFilter.value } });
  byId('export-csv').addEventListener('click', () => exportAs('csv'));
  byId('export-jsonl').addEventListener('click', () => exportAs('jsonl'));
  byId('detail-close').addEventListener('click', closeDetail);
}

setUp();
onHostMessage<HostMessage>((message) => {
  if (message?.type === 'rows') show(message);
  else if (message?.type === 'detail') showDetail(message);
});
vscode.postMessage({ type: 'ready' });
