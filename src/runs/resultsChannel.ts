// The "Agent Workflows" output channel: one block per run, as it starts and as it ends. The full
// result of a run opens as a JSON document.
import * as vscode from 'vscode';
import { formatRunHeader, formatRunResult } from '../core/executions/runReport';
import type { ExecutionRecord } from '../core/executions/executionRecord';

export class ResultsChannel implements vscode.Disposable {
  private readonly channel = vscode.window.createOutputChannel('Agent Workflows');

  constructor(private readonly maxOutputLength: () => number) {}

  started(record: ExecutionRecord): void {
    this.channel.appendLine('');
    this.channel.appendLine(formatRunHeader(record, record.file ? vscode.workspace.asRelativePath(vscode.Uri.parse(record.file)) : undefined));
    this.channel.show(true);
  }

  /** Writes how the run ended; returns whether the outputs had to be cut. */
  ended(record: ExecutionRecord): boolean {
    const report = formatRunResult(record, this.maxOutputLength());
    this.channel.appendLine(`■ ${record.agentName}`);
    this.channel.appendLine(report.text);
    return report.truncated;
  }

  note(text: string): void {
    this.channel.appendLine(text);
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}

/** Opens everything known about a run as a JSON document (outputs are never cut here). */
export async function openResultDocument(record: ExecutionRecord): Promise<vscode.TextEditor> {
  const content = JSON.stringify(
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
  const document = await vscode.workspace.openTextDocument({ language: 'json', content });
  return vscode.window.showTextDocument(document, { preview: true });
}
