// The "Agent Workflows" output channel: one block per run, as it starts and as it ends. The full
// result of a run opens as a JSON document. What a service sent is shown with its control
// characters escaped (printable), so it cannot rewrite what the channel shows.
import * as vscode from 'vscode';
import { printable } from '../core/printable';
import { formatRunHeader, formatRunResult } from '../core/executions/runReport';
import type { ExecutionRecord } from '../core/executions/executionRecord';

export class ResultsChannel implements vscode.Disposable {
  /** Made on the first run, not at activation. */
  private made: vscode.OutputChannel | undefined;

  constructor(private readonly maxOutputLength: () => number) {}

  private get channel(): vscode.OutputChannel {
    this.made ??= vscode.window.createOutputChannel('Agent Workflows');
    return this.made;
  }

  started(record: ExecutionRecord): void {
    this.channel.appendLine('');
    this.channel.appendLine(
      printable(formatRunHeader(record, record.file ? vscode.workspace.asRelativePath(vscode.Uri.parse(record.file)) : undefined)),
    );
    this.channel.show(true);
  }

  /** Writes how the run ended; returns whether the outputs had to be cut. */
  ended(record: ExecutionRecord): boolean {
    const report = formatRunResult(record, this.maxOutputLength());
    this.channel.appendLine(printable(`■ ${record.agentName}`));
    this.channel.appendLine(printable(report.text));
    return report.truncated;
  }

  note(text: string): void {
    this.channel.appendLine(printable(text));
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.made?.dispose();
  }
}

export const RESULT_SCHEME = 'agent-result';

/** Everything known about a run, as the JSON a result document shows (outputs never cut). */
export function resultJson(record: ExecutionRecord): string {
  return JSON.stringify(
    {
      agent: record.agentName,
      executionId: record.executionId ?? null,
      mode: record.mode,
      target: record.target ?? null,
      state: record.state,
      status: record.serviceStatus ?? null,
      startedAt: new Date(record.startedAt).toISOString(),
      endedAt: record.endedAt !== undefined ? new Date(record.endedAt).toISOString() : null,
      inputs: record.inputs,
      outputs: record.outputs ?? null,
      error: record.error ?? null,
      trace: record.trace ?? null,
    },
    null,
    2,
  );
}

/**
 * Result documents are read-only views of the history (agent-result:/<agent> <id>.json?<key>):
 * nothing to save when they close, and they show the record as it is now.
 */
export class ResultDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly store: {
      get(key: string): ExecutionRecord | undefined;
      readonly onDidChange: vscode.Event<ExecutionRecord | undefined>;
    },
  ) {
    this.subscriptions = [
      vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, this),
      store.onDidChange((record) => {
        for (const document of vscode.workspace.textDocuments) {
          if (document.uri.scheme === RESULT_SCHEME && (!record || document.uri.query === record.key)) this.changed.fire(document.uri);
        }
      }),
    ];
  }

  static uriOf(record: ExecutionRecord): vscode.Uri {
    const name = `${record.agentName} ${record.executionId?.slice(0, 8) ?? record.key}.json`.replace(/[\\/?#%]/g, '_');
    return vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${name}`, query: record.key });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const record = this.store.get(uri.query);
    return record ? resultJson(record) : JSON.stringify({ error: 'This execution is no longer in the history.' }, null, 2);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }
}

/** Opens everything known about a run as a read-only JSON document (outputs are never cut there). */
export async function openResultDocument(record: ExecutionRecord): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(ResultDocuments.uriOf(record));
  if (document.languageId !== 'json') await vscode.languages.setTextDocumentLanguage(document, 'json');
  return vscode.window.showTextDocument(document, { preview: true });
}
