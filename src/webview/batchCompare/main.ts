// The batch comparison panel's webview: the summary of two batches on top (A against B), then a
// table of the rows that changed, regressions first, then fixes, then other changes, filtered by
// verdict and text (core/compare/compareTable, as the tests filter); a click on a row opens the
// diff editor on its two results, and Export as Markdown writes the command line's report. Styled
// by the results table's CSS: the same look. Built with DOM calls and textContent only.
import { filterCompareRows, VERDICTS } from '../../core/compare/compareTable';
import type { CompareFilter, CompareTableRow } from '../../core/compare/compareTable';
import type { RowVerdict } from '../../core/compare/compareRows';
import type { CompareRenderReport, ComparisonMessage, HostMessage, WebviewMessage } from './protocol';
import { byId, element, onHostMessage, plural, vsCodeApi } from '../page';
import type { DomDocument, DomElement } from '../page';

declare const document: DomDocument;
interface ViewState {
  readonly filter: CompareFilter;
}
const vscode = vsCodeApi<WebviewMessage, ViewState>();
/** Quiet time after a keystroke in the text filter before the table is filtered again. */
const FILTER_DELAY_MS = 150;
/** Characters of a cell shown; the tooltip has it all. */
const MAX_SHOWN_CHARS = 80;

const VERDICT_ICON: Record<RowVerdict, string> = { regression: '✗', fix: '✓', changed: '~' };
/** The verdicts as the results table's status colours show them. */
const VERDICT_CLASS: Record<RowVerdict, string> = { regression: 'status-failed', fix: 'status-finished', changed: 'status-timeout' };

let filter: CompareFilter = vscode.getState()?.filter ?? { verdict: 'all', text: '' };
let current: ComparisonMessage | undefined;
let filterTimer: ReturnType<typeof setTimeout> | undefined;

function shortText(text: string): string {
  const line = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return line.length > MAX_SHOWN_CHARS ? `${line.slice(0, MAX_SHOWN_CHARS - 1)}…` : line;
}

function cell(text: string, className: string): DomElement {
  const td = element('td', className, shortText(text));
  if (text) td.title = text;
  return td;
}

function show(message: ComparisonMessage): void {
  current = message;
  byId('title').textContent = message.title;
  const file = byId('file');
  file.textContent = `A: ${message.a.label} · B: ${message.b.label}`;
  file.title = `A: ${message.a.resultsPath}\nB: ${message.b.resultsPath}`;
  const { counts } = message;
  const parts = [
    element('span', 'count-total', `${plural(counts.matched, 'row')} in both`),
    verdictCount('regression', plural(counts.regressions, 'regression')),
    verdictCount('fix', `${counts.fixes.toLocaleString('en')} ${counts.fixes === 1 ? 'fix' : 'fixes'}`),
    verdictCount('changed', `${plural(counts.changedOutputs, 'row')} with outputs changed`),
    element('span', 'count', `${counts.unchanged.toLocaleString('en')} unchanged`),
  ];
  if (counts.onlyInA) parts.push(element('span', 'count', `${plural(counts.onlyInA, 'row')} only in A`));
  if (counts.onlyInB) parts.push(element('span', 'count', `${plural(counts.onlyInB, 'row')} only in B`));
  byId('counts').replaceChildren(...parts);
  const head = element('tr');
  for (const label of ['', 'A', 'B']) {
    const th = element('th', '', label);
    th.scope = 'col';
    head.append(th);
  }
  byId('summary-head').replaceChildren(head);
  byId('summary-rows').replaceChildren(
    ...message.summary.map(([label, a, b]) => {
      const tr = element('tr');
      const th = element('th', '', label);
      th.scope = 'row';
      tr.append(th, element('td', '', a), element('td', '', b));
      return tr;
    }),
  );
  const notice = byId('notice');
  notice.textContent = message.notes.join(' ');
  notice.hidden = message.notes.length === 0;
  drawRows();
}

function verdictCount(verdict: RowVerdict, text: string): DomElement {
  const part = element('span', `count ${VERDICT_CLASS[verdict]}`);
  const icon = element('span', 'icon', VERDICT_ICON[verdict]);
  icon.setAttribute('aria-hidden', 'true');
  part.append(icon, element('span', '', ` ${text}`));
  return part;
}

function drawRows(): void {
  const message = current;
  if (!message) return;
  const matching = filterCompareRows(message.rows, filter);
  const trs = matching.map((row: CompareTableRow) => {
    const tr = element('tr', `verdict-${row.verdict}`);
    tr.dataset.index = String(row.index);
    const verdict = element('td', `verdict ${VERDICT_CLASS[row.verdict]}`);
    const icon = element('span', 'icon', VERDICT_ICON[row.verdict]);
    icon.setAttribute('aria-hidden', 'true');
    verdict.append(icon, element('span', 'word', ` ${row.verdict}`));
    const label = element('td', 'label');
    const button = element('button', 'row-button', row.label);
    button.type = 'button';
    button.title = `Open the diff of ${row.label}: its result in A and in B`;
    label.append(button);
    tr.append(verdict, label, cell(row.status, 'status'), cell(row.words, 'words'), cell(row.diff, 'diff'));
    tr.addEventListener('click', () => vscode.postMessage({ type: 'open', index: row.index }));
    return tr;
  });
  byId('rows').replaceChildren(...trs);
  byId('shown').textContent =
    matching.length === message.rows.length
      ? message.rows.length
        ? plural(matching.length, 'changed row')
        : 'No row changed.'
      : `${plural(matching.length, 'row')} of ${message.rows.length.toLocaleString('en')} match the filter.`;
  const report: CompareRenderReport = {
    rows: matching.map((row) => ({ verdict: row.verdict, label: row.label })),
    summary: [...document.querySelectorAll('#summary-rows tr')].map((tr) =>
      [...tr.querySelectorAll('th, td')].map((part) => part.textContent ?? ''),
    ),
    counts: [...document.querySelectorAll('#counts > span')].map((part) => (part.textContent ?? '').trim()).join(' · '),
    filter,
  };
  vscode.postMessage({ type: 'rendered', report });
}

function setUp(): void {
  const verdictFilter = byId('verdict-filter');
  const textFilter = byId('text-filter');
  verdictFilter.value = filter.verdict;
  textFilter.value = filter.text;
  verdictFilter.addEventListener('change', () => {
    const verdict = verdictFilter.value;
    filter = { ...filter, verdict: VERDICTS.includes(verdict as RowVerdict) ? (verdict as RowVerdict) : 'all' };
    vscode.setState({ filter });
    drawRows();
  });
  textFilter.addEventListener('input', () => {
    if (filterTimer) clearTimeout(filterTimer);
    filterTimer = setTimeout(() => {
      filterTimer = undefined;
      filter = { ...filter, text: textFilter.value };
      vscode.setState({ filter });
      drawRows();
    }, FILTER_DELAY_MS);
  });
  byId('export-markdown').addEventListener('click', () => vscode.postMessage({ type: 'export' }));
}

setUp();
onHostMessage<HostMessage>((message) => {
  if (message?.type === 'comparison') show(message);
});
vscode.postMessage({ type: 'ready' });
