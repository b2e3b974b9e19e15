// The "Agent Executions" view: one item per execution, newest first, with its state as an icon,
// age and duration as description, and its inputs, outputs, trace and error as children. Tree
// nodes are small classes whose contextValue drives the menus in package.json.
import { isLocalServerUrl } from '../core/service/target';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { BoundedCache } from '../core/boundedCache';
import { boundedPrettyJson } from '../core/boundedJson';
import { describeInput, formatAge, formatBytes, formatDuration, isActive } from '../core/executions/executionRecord';
import { MAX_HISTORY_OUTPUT_BYTES } from '../core/limits';
import type { ExecutionRecord, ExecutionState, TraceEntry } from '../core/executions/executionRecord';
import { describeBatchCounts } from '../core/batch/batchRecord';
import { rowError } from '../core/batch/resultsRows';
import type { BatchRecord, BatchRecordState } from '../core/batch/batchRecord';
import type { BatchResults } from '../core/batch/resultsTable';
import type { RowResult, RowStatus } from '../core/batch/batchModel';
import type { BatchHistory } from '../runs/batchHistory';
import { loadBatchCore } from '../runs/batchCore';
import type { ExecutionHistory } from '../runs/executionHistory';
import type { ExecutionExchangeFiles } from '../runs/executionExchanges';
import { exchangeOfNode, summarizeExchange } from '../core/exchange/executionExchanges';
import type { ExecutionExchanges } from '../core/exchange/executionExchanges';
import type { Exchange } from '../core/exchange/exchange';

/** What a deployed execution's nodes say: the service's status answer carries no exchange. */
export const NO_DEPLOYED_EXCHANGES = 'Exchanges are kept only for local executions and those on a local agent server';

type TreeNode = ExecutionItem | GroupItem | ValueItem | TraceItem | MessageItem | BatchItem | BatchRowItem | BatchNoteItem;

/** Rows of a batch listed in the view; the results table shows them all. */
const MAX_BATCH_ROWS_SHOWN = 200;
/**
 * Characters of a value's tooltip: every value of an execution has one, made when the tree shows it,
 * and an output 256 levels deep would be hundreds of MB pretty.
 */
const MAX_TOOLTIP_CHARS = 10_000;

const BATCH_ICONS: Record<BatchRecordState, vscode.ThemeIcon> = {
  running: new vscode.ThemeIcon('sync~spin'),
  finished: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  stopped: new vscode.ThemeIcon('debug-pause'),
  error: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
  'given-up': new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('list.warningForeground')),
};

const ROW_ICONS: Record<RowStatus, vscode.ThemeIcon> = {
  finished: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  error: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
  timeout: new vscode.ThemeIcon('watch'),
  unknown: new vscode.ThemeIcon('question'),
  skipped: new vscode.ThemeIcon('circle-slash'),
};

const STATE_ICONS: Record<ExecutionState, vscode.ThemeIcon> = {
  starting: new vscode.ThemeIcon('loading~spin'),
  running: new vscode.ThemeIcon('sync~spin'),
  finished: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  problem: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  error: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
  stopped: new vscode.ThemeIcon('eye-closed'),
};

const STATE_WORDS: Record<ExecutionState, string> = {
  starting: 'starting',
  running: 'running',
  finished: 'finished',
  problem: 'failed',
  error: 'error',
  stopped: 'stopped watching',
};

/** Where an execution or batch ran, for its description: this machine, or its environment. */
function whereWords(run: { readonly mode: string; readonly target?: { readonly environment?: string } }): string {
  return run.mode === 'local' ? ' · local' : run.target?.environment ? ` · ${run.target.environment}` : '';
}

export class ExecutionItem extends vscode.TreeItem {
  constructor(
    readonly record: ExecutionRecord,
    now: number,
  ) {
    super(record.agentName, vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `execution:${record.key}`;
    const duration = record.endedAt !== undefined ? ` · ${formatDuration(record.endedAt - record.startedAt)}` : '';
    this.description = `${record.state === 'problem' && record.serviceStatus ? record.serviceStatus : STATE_WORDS[record.state]} · ${formatAge(record.startedAt, now)}${duration}${whereWords(record)}`;
    this.iconPath = STATE_ICONS[record.state];
    // e.g. "execution-finished-deployed-id": menus match on the parts they need.
    this.contextValue = [
      'execution',
      record.state,
      record.mode,
      record.executionId ? 'id' : 'noid',
      record.outputs !== undefined ? 'outputs' : 'nooutputs',
    ].join('-');
    this.tooltip = tooltipOf(record);
    this.accessibilityInformation = { label: `${record.agentName}, ${STATE_WORDS[record.state]}, ${this.description}` };
  }
}

/** A batch over a data file: its progress, and its rows as children. */
export class BatchItem extends vscode.TreeItem {
  constructor(
    readonly batch: BatchRecord,
    now: number,
  ) {
    super(batch.agentName, vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `batch:${batch.key}`;
    this.description = `batch of ${basename(batch.dataPath)} · ${batch.state === 'running' ? '' : `${batch.state === 'given-up' ? 'given up' : batch.state} · `}${describeBatchCounts(batch)} · ${formatAge(batch.startedAt, now)}${whereWords(batch)}`;
    this.iconPath = BATCH_ICONS[batch.state];
    // Menus offer Restart Unknown Rows only on an ended batch with rows whose start is unknown.
    this.contextValue = `batch-${batch.state}${batch.state !== 'running' && batch.counts?.unknown ? '-unknown' : ''}`;
    this.tooltip = new vscode.MarkdownString(
      [
        `**${escape(batch.agentName)}** · batch · ${batch.state}`,
        '',
        `Data: ${escape(batch.dataPath)}`,
        `Rows: ${escape(describeBatchCounts(batch))}`,
        batch.target ? `Service: ${escape(batch.target.baseUrl)} · account \`${escape(batch.target.account)}\`` : 'Ran locally in VS Code',
        ...(batch.target?.environment ? [`Environment: \`${escape(batch.target.environment)}\``] : []),
        `Started: ${new Date(batch.startedAt).toLocaleString()}`,
        ...(batch.error ? [`${escape(batch.error)}`] : []),
      ].join('  \n'),
    );
  }
}

/** One row of a batch, as its results file has it. */
export class BatchRowItem extends vscode.TreeItem {
  constructor(
    readonly batch: BatchRecord,
    readonly result: RowResult,
  ) {
    super(`Row ${result.row}`, vscode.TreeItemCollapsibleState.None);
    this.id = `batch:${batch.key}:row:${result.row}`;
    const detail =
      result.status === 'finished' || result.status === 'failed'
        ? result.durationMs !== undefined
          ? formatDuration(result.durationMs)
          : undefined
        : rowError(result);
    this.description = [result.status, result.passed === false ? 'expectations not met' : undefined, detail].filter(Boolean).join(' · ');
    this.iconPath = ROW_ICONS[result.status];
    this.contextValue = 'batch-row';
    this.command = { title: 'Open Row Result', command: COMMANDS.openBatchRow, arguments: [this] };
  }
}

export class BatchNoteItem extends vscode.TreeItem {
  constructor(batch: BatchRecord, text: string, open: boolean) {
    super(text, vscode.TreeItemCollapsibleState.None);
    this.id = `batch:${batch.key}:note:${text}`;
    this.iconPath = new vscode.ThemeIcon(open ? 'table' : 'info');
    this.contextValue = 'batch-note';
    if (open) this.command = { title: 'Open Results Table', command: COMMANDS.openBatchResults, arguments: [batch.key] };
  }
}

export class GroupItem extends vscode.TreeItem {
  constructor(
    readonly record: ExecutionRecord,
    readonly group: 'inputs' | 'outputs' | 'trace',
    readonly count: number,
  ) {
    // A local execution's trace is its nodes, each opening its exchange.
    super(
      group === 'inputs' ? 'Inputs' : group === 'outputs' ? 'Outputs' : record.mode === 'local' ? 'Nodes' : 'Trace',
      group === 'outputs' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
    );
    this.id = `execution:${record.key}:${group}`;
    this.description = String(count);
    this.iconPath = new vscode.ThemeIcon(group === 'inputs' ? 'arrow-right' : group === 'outputs' ? 'output' : 'list-tree');
    this.contextValue = `group-${group}`;
  }
}

/** A named value (an input, an output, or a field inside one); objects and lists expand. */
export class ValueItem extends vscode.TreeItem {
  constructor(
    readonly record: ExecutionRecord,
    readonly path: string,
    readonly name: string,
    readonly value: unknown,
    readonly kind: 'input' | 'output',
  ) {
    const expandable = value !== null && typeof value === 'object' && !isFileInput(value, kind);
    super(name, expandable ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    this.id = `execution:${record.key}:${kind}:${path}`;
    this.description = expandable ? (Array.isArray(value) ? `[${value.length}]` : `{${Object.keys(value).length}}`) : preview(value, kind);
    this.tooltip = new vscode.MarkdownString().appendCodeblock(
      kind === 'input' && isFileInput(value, kind)
        ? describeInput(value)
        : boundedPrettyJson(value, { maxChars: MAX_TOOLTIP_CHARS, cutNote: 'cut: Copy Value copies all of it' }).text,
      'json',
    );
    this.contextValue = `value-${kind}`;
  }

  /** The text "Copy Value" puts on the clipboard: strings as they are, anything else as JSON. */
  get copyText(): string {
    return typeof this.value === 'string' ? this.value : (JSON.stringify(this.value, null, 2) ?? String(this.value));
  }
}

export class TraceItem extends vscode.TreeItem {
  constructor(
    record: ExecutionRecord,
    entry: TraceEntry,
    /** The node's request and answer (API nodes of local executions). */
    readonly exchange?: Exchange,
    bodiesNotKept = false,
  ) {
    super(entry.node, vscode.TreeItemCollapsibleState.None);
    this.id = `execution:${record.key}:trace:${entry.node}`;
    this.description = [
      entry.status,
      entry.durationMs !== undefined ? formatDuration(entry.durationMs) : undefined,
      entry.bytes !== undefined ? `${entry.bytes} B` : undefined,
      entry.detail,
      bodiesNotKept ? 'bodies not kept' : undefined,
    ]
      .filter(Boolean)
      .join(' · ');
    if (exchange) {
      this.tooltip = `${summarizeExchange(exchange)}${bodiesNotKept ? '\nIts bodies were not kept: the execution’s exchanges took their whole budget (1 MiB).' : ''}\nClick to open the exchange.`;
      this.command = { title: 'Open Exchange', command: COMMANDS.openExchange, arguments: [exchange] };
    }
    this.iconPath = new vscode.ThemeIcon(
      entry.status === 'succeeded'
        ? 'check'
        : entry.status === 'failed'
          ? 'error'
          : entry.status === 'running'
            ? 'sync~spin'
            : 'circle-outline',
    );
    this.contextValue = exchange ? 'trace-exchange' : 'trace';
  }
}

export class MessageItem extends vscode.TreeItem {
  constructor(record: ExecutionRecord, text: string, which = 'message') {
    super(text.split('\n')[0] ?? text, vscode.TreeItemCollapsibleState.None);
    this.id = `execution:${record.key}:${which}`;
    this.tooltip = text;
    this.iconPath = new vscode.ThemeIcon('info');
    this.contextValue = 'message';
  }
}

export class ExecutionsTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  private readonly batchReads: BatchReads = new BoundedCache(64, 64 * 1024);

  constructor(
    private readonly store: ExecutionHistory,
    private readonly batches: BatchHistory,
    private readonly exchanges?: ExecutionExchangeFiles,
  ) {
    this.subscriptions = [
      store.onDidChange(() => this.refresh()),
      batches.onDidChange(() => this.refresh()),
      ...(exchanges ? [exchanges.onDidChange(() => this.refresh())] : []),
    ];
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(element: TreeNode): vscode.TreeItem {
    return element;
  }

  async getChildren(element?: TreeNode): Promise<TreeNode[]> {
    if (!element) {
      const now = Date.now();
      const items: (ExecutionItem | BatchItem)[] = [
        ...this.store.all().map((record) => new ExecutionItem(record, now)),
        ...this.batches.all().map((batch) => new BatchItem(batch, now)),
      ];
      const startedAt = (item: ExecutionItem | BatchItem): number =>
        item instanceof BatchItem ? item.batch.startedAt : item.record.startedAt;
      return items.sort((a, b) => startedAt(b) - startedAt(a));
    }
    if (element instanceof BatchItem) return batchChildren(element.batch, this.batchReads);
    if (element instanceof ExecutionItem) return childrenOf(element.record);
    if (element instanceof GroupItem) {
      const record = element.record;
      if (element.group === 'inputs')
        return Object.entries(record.inputs).map(([name, value]) => new ValueItem(record, name, name, value, 'input'));
      if (element.group === 'trace') return this.nodesOf(record);
      return fieldsOf(record, '', record.outputs, 'output');
    }
    if (element instanceof ValueItem) return fieldsOf(element.record, element.path, element.value, element.kind);
    return [];
  }

  /**
   * The nodes of an execution's trace; those of a local one, or of one on a local agent server,
   * open their exchange.
   */
  private async nodesOf(record: ExecutionRecord): Promise<TreeNode[]> {
    const trace = record.trace ?? [];
    const notKept = record.traceNotKept
      ? [new MessageItem(record, `${record.traceNotKept} more trace entries not kept: the trace was too long to keep.`, 'trace-not-kept')]
      : [];
    if (isActive(record)) return [...trace.map((entry) => new TraceItem(record, entry)), ...notKept];
    const log: ExecutionExchanges | undefined = await this.exchanges?.get(record.key);
    const items: TreeNode[] = trace.map((entry) => {
      const exchange = exchangeOfNode(log, entry.node);
      return new TraceItem(record, entry, exchange, exchange !== undefined && log!.bodiesNotKept.includes(exchange.id));
    });
    if (!log) {
      // A deployed execution's lack of them is said once, beside its groups (ranOnLocalServer).
      if (record.mode === 'local' || ranOnLocalServer(record))
        items.push(new MessageItem(record, 'Exchanges not kept for this execution: run it again to see them.', 'exchanges'));
    } else if (log.notKept > 0)
      items.push(new MessageItem(record, `${log.notKept} more exchanges not kept: the execution made too many calls.`, 'exchanges'));
    return [...items, ...notKept];
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

/** A batch's rows from its results file (the first ones), with a way to the full table. */
async function batchChildren(batch: BatchRecord, reads: BatchReads): Promise<TreeNode[]> {
  const children: TreeNode[] = [];
  if (batch.error) children.push(new BatchNoteItem(batch, batch.error, false));
  const read = await readBatchRows(batch.resultsPath, reads);
  children.push(
    new BatchNoteItem(
      batch,
      read && read.total > read.rows.length
        ? `Open Results Table (${read.total} rows; ${read.rows.length} listed here)`
        : 'Open Results Table',
      true,
    ),
  );
  for (const result of [...(read?.rows ?? [])].sort((a, b) => a.row - b.row)) children.push(new BatchRowItem(batch, result));
  return children;
}

/** The last read of each results file with the file's size and time when it was read. */
type BatchReads = BoundedCache<{ readonly stamp: string; readonly read: BatchResults | undefined }>;

/**
 * The first rows of a results file, read again only when the file changed: every refresh of the
 * view (any execution's update) lists the children of each expanded batch.
 */
async function readBatchRows(path: string, reads: BatchReads): Promise<BatchResults | undefined> {
  let stamp: string;
  try {
    const stats = await stat(path);
    stamp = `${stats.size}:${stats.mtimeMs}`;
  } catch {
    // No results yet (nothing ended), or the file went: the note says so.
    return undefined;
  }
  const last = reads.get(path);
  if (last?.stamp === stamp) return last.read;
  let read: BatchResults | undefined;
  try {
    read = await (await loadBatchCore()).readBatchResults(path, { maxRows: MAX_BATCH_ROWS_SHOWN });
  } catch {
    read = undefined;
  }
  reads.set(path, { stamp, read });
  return read;
}

function childrenOf(record: ExecutionRecord): TreeNode[] {
  const children: TreeNode[] = [];
  if (record.error) children.push(new MessageItem(record, record.error));
  else if (record.state === 'stopped')
    children.push(new MessageItem(record, 'Not watched any more; it may still be running. Use Watch Again.'));
  else if (isActive(record)) children.push(new MessageItem(record, record.executionId ? `Execution ${record.executionId}` : 'Starting…'));
  if (record.outputsNotKept !== undefined)
    children.push(
      new MessageItem(
        record,
        `Outputs not kept (${formatBytes(record.outputsNotKept)}): the history keeps the newest ${formatBytes(MAX_HISTORY_OUTPUT_BYTES)} of outputs. Run it again to see them.`,
      ),
    );
  const inputs = Object.keys(record.inputs).length;
  if (inputs) children.push(new GroupItem(record, 'inputs', inputs));
  if (record.outputs !== undefined)
    children.push(
      new GroupItem(
        record,
        'outputs',
        record.outputs !== null && typeof record.outputs === 'object' ? Object.keys(record.outputs).length : 1,
      ),
    );
  if (record.trace?.length) children.push(new GroupItem(record, 'trace', record.trace.length));
  if (record.mode === 'deployed' && !isActive(record) && !ranOnLocalServer(record))
    children.push(new MessageItem(record, NO_DEPLOYED_EXCHANGES, 'exchanges'));
  return children;
}

/** A deployed-style execution on a local agent server (on this machine), which keeps its exchanges. */
function ranOnLocalServer(record: ExecutionRecord): boolean {
  return record.target !== undefined && isLocalServerUrl(record.target.baseUrl);
}

function fieldsOf(record: ExecutionRecord, path: string, value: unknown, kind: 'input' | 'output'): ValueItem[] {
  if (value === null || typeof value !== 'object') return path === '' ? [new ValueItem(record, 'value', 'value', value, kind)] : [];
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, index) => [`[${index}]`, item]) : Object.entries(value);
  // Very large objects would make a tree nobody reads; the result document has everything.
  return entries.slice(0, 500).map(([name, item]) => new ValueItem(record, path ? `${path}.${name}` : name, name, item, kind));
}

function isFileInput(value: unknown, kind: 'input' | 'output'): value is { file: string; size: number } {
  return kind === 'input' && value !== null && typeof value === 'object' && 'file' in value && 'size' in value;
}

function preview(value: unknown, kind: 'input' | 'output'): string {
  if (isFileInput(value, kind)) return describeInput(value);
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function tooltipOf(record: ExecutionRecord): vscode.MarkdownString {
  const lines = [
    `**${escape(record.agentName)}** · ${STATE_WORDS[record.state]}${record.serviceStatus ? ` (\`${escape(record.serviceStatus)}\`)` : ''}`,
    '',
  ];
  if (record.executionId) lines.push(`Execution: \`${record.executionId}\``);
  if (record.target)
    lines.push(
      `Service: ${escape(record.target.baseUrl)} · account \`${escape(record.target.account)}\` · agent \`${escape(record.target.agent)}\``,
    );
  else lines.push('Ran locally in VS Code');
  if (record.target?.environment) lines.push(`Environment: \`${escape(record.target.environment)}\``);
  lines.push(`Started: ${new Date(record.startedAt).toLocaleString()}`);
  if (record.endedAt !== undefined) lines.push(`Took: ${formatDuration(record.endedAt - record.startedAt)}`);
  if (record.file) lines.push(`File: ${escape(vscode.workspace.asRelativePath(vscode.Uri.parse(record.file)))}`);
  return new vscode.MarkdownString(lines.join('  \n'));
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
