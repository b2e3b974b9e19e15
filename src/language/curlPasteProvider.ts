// "Paste as API Node": pasting a curl command into an agent file offers, beside plain paste, the
// API node it makes (or, for the agent's own execute URL or command, its `deployment:` fields).
// A paste edit cannot ask anything, so the credentials the command held are offered for secret
// storage once the edit is seen in the document.
import * as vscode from 'vscode';
import { errorMessage } from '../core/errors';
import { AGENT_LANGUAGE_ID } from './languageIds';
import type { CurlImportPlan, CurlImportServices } from './curlImportFlow';

export const PASTE_AS_API_NODE = vscode.DocumentDropOrPasteEditKind.Text.append('agentWorkflows', 'apiNode');
const EXECUTE_URL = /^\s*https?:\/\/\S+\/api\/[^/\s]+\/agent\/[^/\s]+\/(?:execute(?:\/multipart)?|status)\/?\s*$/;
/** Pastes whose edits have not been seen in their document yet (a paste edit may be offered and not taken). */
const MAX_PENDING = 8;

interface Pending {
  readonly document: vscode.TextDocument;
  readonly plan: CurlImportPlan;
  /** Text the edit adds, seen in a change when it was taken. */
  readonly marker: string;
}

export class CurlPasteProvider implements vscode.DocumentPasteEditProvider, vscode.Disposable {
  private readonly pending: Pending[] = [];
  private readonly listener: vscode.Disposable;

  constructor(
    private readonly services: CurlImportServices,
    private readonly logger: vscode.LogOutputChannel,
  ) {
    this.listener = vscode.workspace.onDidChangeTextDocument((event) => this.noticeApplied(event));
  }

  async provideDocumentPasteEdits(
    document: vscode.TextDocument,
    _ranges: readonly vscode.Range[],
    dataTransfer: vscode.DataTransfer,
    _context: vscode.DocumentPasteEditContext,
    token: vscode.CancellationToken,
  ): Promise<vscode.DocumentPasteEdit[] | undefined> {
    const pasted = await dataTransfer.get('text/plain')?.asString();
    if (pasted === undefined || token.isCancellationRequested) return undefined;
    const { LOOKS_LIKE_CURL, planCurlImport, workspaceEditOf } = await import('./curlImportFlow');
    if (!LOOKS_LIKE_CURL.test(pasted) && !EXECUTE_URL.test(pasted)) return undefined;
    let plan: CurlImportPlan;
    try {
      plan = planCurlImport(document.getText(), pasted);
    } catch (error) {
      // Plain paste stays; the reason shows in the log (the palette command says it in a message).
      this.logger.info(`Paste as API Node is not offered: ${errorMessage(error)}`);
      return undefined;
    }
    const title = plan.kind === 'node' ? `Paste as API Node "${plan.id}"` : 'Paste as Agent Deployment';
    const edit = new vscode.DocumentPasteEdit('', title, PASTE_AS_API_NODE);
    edit.additionalEdit = workspaceEditOf(document, plan.edits);
    const marker = plan.edits.map((textEdit) => textEdit.newText).join('');
    this.pending.push({ document, plan, marker: marker.trim().split('\n')[0] ?? marker });
    if (this.pending.length > MAX_PENDING) this.pending.shift();
    return [edit];
  }

  private noticeApplied(event: vscode.TextDocumentChangeEvent): void {
    if (this.pending.length === 0) return;
    const index = this.pending.findIndex(
      (pending) => pending.document === event.document && event.contentChanges.some((change) => change.text.includes(pending.marker)),
    );
    if (index === -1) return;
    const [applied] = this.pending.splice(index, 1);
    void import('./curlImportFlow')
      .then(({ finishCurlImport }) => finishCurlImport(applied!.document, applied!.plan, this.services))
      .catch((error: unknown) => this.logger.error(`Paste as API Node: ${errorMessage(error)}`));
  }

  dispose(): void {
    this.listener.dispose();
    this.pending.length = 0;
  }
}

export function registerCurlPaste(
  context: vscode.ExtensionContext,
  services: CurlImportServices,
  logger: vscode.LogOutputChannel,
): CurlPasteProvider {
  const provider = new CurlPasteProvider(services, logger);
  context.subscriptions.push(
    provider,
    vscode.languages.registerDocumentPasteEditProvider({ language: AGENT_LANGUAGE_ID }, provider, {
      providedPasteEditKinds: [PASTE_AS_API_NODE],
      pasteMimeTypes: ['text/plain'],
    }),
  );
  return provider;
}
