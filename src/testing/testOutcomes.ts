// How a case or a test file ended (core/testing/caseOutcome decides it) as the Test Explorer shows
// it: a TestRun state with TestMessages at their places (a diff when expected and actual are both
// known), lines in the run's output, and the same facts as an ItemOutcome for callers and tests.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import type { Exchange } from '../core/exchange/exchange';
import type { CaseOutcome, OutcomeKind, OutcomeMessage, TextLocation } from '../core/testing/caseOutcome';

/** How one test item ended in the last run (what the Test Explorer shows, for callers and tests). */
export interface ItemOutcome {
  readonly state: OutcomeKind;
  readonly durationMs?: number;
  readonly messages: readonly ItemOutcomeMessage[];
  /** What the run's output said of how the case ran (e.g. what a deployment leaves out). */
  readonly notes?: readonly string[];
}

export interface ItemOutcomeMessage {
  readonly message: string;
  /** Zero-based line of the message's location. */
  readonly line?: number;
  readonly expected?: string;
  readonly actual?: string;
  /** The message offers Update Snapshot. */
  readonly updatesSnapshot?: true;
}

/** The contextValue of a message that Update Snapshot would put right (package.json's testing/message menus). */
export const SNAPSHOT_MESSAGE_CONTEXT = 'agentWorkflows.snapshot';

/**
 * Shows how an item ended in a run (its state and messages, and `extra` ones such as the link to an
 * exchange; see sayOutcome for the output); what was shown.
 */
export function showOutcome(
  run: vscode.TestRun,
  item: vscode.TestItem,
  outcome: CaseOutcome,
  extra: readonly vscode.TestMessage[] = [],
): ItemOutcome {
  const messages = [...outcome.messages.map(testMessage), ...extra];
  switch (outcome.kind) {
    case 'passed':
      run.passed(item, outcome.durationMs);
      break;
    case 'failed':
      run.failed(item, messages, outcome.durationMs);
      break;
    case 'errored':
      run.errored(item, messages, outcome.durationMs);
      break;
    default:
      run.skipped(item);
  }
  return itemOutcome(outcome, extra);
}

/**
 * A failed case's link to the exchange of the node it failed at: the request it sent and the answer,
 * secrets by name, opened in the exchange view. At the first failure's place, else the case's.
 */
export function exchangeMessage(exchange: Exchange, summary: string, outcome: CaseOutcome, item: vscode.TestItem): vscode.TestMessage {
  const link = `command:${COMMANDS.openExchange}?${encodeURIComponent(JSON.stringify([exchange]))}`;
  // Code spans: the node id and the summary (a URL) show as they are, no Markdown read in them.
  const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;
  const text = new vscode.MarkdownString(
    `Exchange of node ${code(exchange.node)}: ${code(summary)} [Open Exchange](${link} "Open the request and answer")`,
  );
  text.isTrusted = { enabledCommands: [COMMANDS.openExchange] };
  const message = new vscode.TestMessage(text);
  const first = outcome.messages.find((shown) => shown.location)?.location;
  if (first) message.location = vscodeLocation(first);
  else if (item.uri) message.location = new vscode.Location(item.uri, item.range ?? new vscode.Range(0, 0, 0, 0));
  return message;
}

/** Writes an outcome's lines in the run's output (a terminal: \r\n), linked to its case when given one. */
export function sayOutcome(run: vscode.TestRun, outcome: CaseOutcome, testCase?: vscode.TestItem): void {
  if (outcome.output.length === 0) return;
  const text = `${outcome.output.join('\r\n')}\r\n`;
  if (testCase?.uri) run.appendOutput(text, new vscode.Location(testCase.uri, testCase.range ?? new vscode.Range(0, 0, 0, 0)), testCase);
  else run.appendOutput(text);
}

function testMessage(shown: OutcomeMessage): vscode.TestMessage {
  const message =
    shown.expected !== undefined && shown.actual !== undefined
      ? vscode.TestMessage.diff(shown.message, shown.expected, shown.actual)
      : new vscode.TestMessage(shown.message);
  if (shown.location) message.location = vscodeLocation(shown.location);
  if (shown.code) message.contextValue = SNAPSHOT_MESSAGE_CONTEXT;
  return message;
}

/** A core location (1-based; its file a URI string) as VS Code's (0-based). */
function vscodeLocation({ file, start, end }: TextLocation): vscode.Location {
  return new vscode.Location(vscode.Uri.parse(file), new vscode.Range(start.line - 1, start.column - 1, end.line - 1, end.column - 1));
}

function itemOutcome({ kind, durationMs, messages, notes }: CaseOutcome, extra: readonly vscode.TestMessage[]): ItemOutcome {
  return {
    state: kind,
    ...(durationMs !== undefined ? { durationMs } : {}),
    messages: [
      ...messages.map(({ message, location, expected, actual, code }) => ({
        message,
        ...(location ? { line: location.start.line - 1 } : {}),
        ...(expected !== undefined && actual !== undefined ? { expected, actual } : {}),
        ...(code !== undefined ? { updatesSnapshot: true as const } : {}),
      })),
      ...extra.map((message) => ({
        message: typeof message.message === 'string' ? message.message : message.message.value,
        ...(message.location ? { line: message.location.range.start.line } : {}),
      })),
    ],
    ...(notes ? { notes } : {}),
  };
}
