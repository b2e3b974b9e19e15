// The exchange view: one read-only document per exchange (a TextDocumentContentProvider on its
// own scheme), so folding, search and copy work as in any editor; its text is made by
// core/exchange/exchangeDocument. Images are written to the extension's storage (never the
// workspace) and shown by the editor's image preview beside the text.
import * as vscode from 'vscode';
import { RunBlocked } from '../commandErrors';
import type { Exchange } from '../core/exchange/exchange';
import { exchangeDocument, exchangeTitle, imageExtension } from '../core/exchange/exchangeDocument';
import { ExchangeHistory } from '../core/exchange/exchangeHistory';
import type { ExchangeEntry } from '../core/exchange/exchangeHistory';

export const EXCHANGE_SCHEME = 'agent-exchange';

/** How an exchange came: a Send Request (kept in the send history) or a local execution. */
export type ExchangeOrigin = 'send' | 'run';

export interface ShownExchange {
  readonly exchange: Exchange;
  readonly origin: ExchangeOrigin;
  /** The send's entry: its agent file and node (for Send Again and Pin). */
  readonly entry?: ExchangeEntry;
}

/** Images written for the preview: the oldest are deleted past this many. */
const IMAGES_KEPT = 20;

export class ExchangeViews implements vscode.TextDocumentContentProvider, vscode.Disposable {
  /** Exchanges handed to the view directly (those of local executions), bounded like the sends. */
  private readonly direct = new ExchangeHistory({ perNode: 20, totalBytes: 32 * 1024 * 1024 });
  private readonly images: vscode.Uri[] = [];
  private imagesCleared = false;
  private readonly registration: vscode.Disposable;

  constructor(
    private readonly sends: ExchangeHistory,
    /** The extension's own storage folder: images go in `exchange-images/` there. */
    private readonly storage: vscode.Uri,
  ) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(EXCHANGE_SCHEME, this);
  }

  dispose(): void {
    this.registration.dispose();
  }

  /** The document's text made when it is opened, kept until the editor asks for it. */
  private readonly pending = new Map<string, string>();

  find(idOrUri: string | vscode.Uri): ShownExchange | undefined {
    if (typeof idOrUri === 'string') {
      const entry = this.sends.get(idOrUri);
      if (entry) return { exchange: entry.exchange, origin: 'send', entry };
      const direct = this.direct.get(idOrUri);
      return direct ? { exchange: direct.exchange, origin: 'run' } : undefined;
    }
    if (idOrUri.scheme !== EXCHANGE_SCHEME) return undefined;
    const [, , id] = idOrUri.path.split('/');
    return id === undefined ? undefined : this.find(decodeURIComponent(id));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const text = this.pending.get(uri.toString());
    if (text !== undefined) {
      this.pending.delete(uri.toString());
      return text;
    }
    const shown = this.find(uri);
    if (!shown)
      return '// This exchange is no longer kept: the window keeps the last 20 sends of each node. Send the request again to see a new one.\n';
    return exchangeDocument(shown.exchange).text;
  }

  /** Opens the view of an exchange beside the agent (or where an exchange view already is). */
  async show(exchangeOrId: Exchange | string): Promise<vscode.TextDocument> {
    const shown = this.resolve(exchangeOrId);
    // Made once: the body decides the language, so the file extension of the URI.
    const made = exchangeDocument(shown.exchange);
    const uri = vscode.Uri.from({
      scheme: EXCHANGE_SCHEME,
      path: `/${shown.origin}/${encodeURIComponent(shown.exchange.id)}/${exchangeTitle(shown.exchange)}${made.extension}`,
    });
    this.pending.set(uri.toString(), made.text);
    const column = vscode.window.visibleTextEditors.find((editor) => editor.document.uri.scheme === EXCHANGE_SCHEME)?.viewColumn;
    const document = await vscode.workspace.openTextDocument(uri).then(
      (opened) => (this.pending.delete(uri.toString()), opened),
      (error: unknown) => {
        this.pending.delete(uri.toString());
        throw error;
      },
    );
    const editor = await vscode.window.showTextDocument(document, { viewColumn: column ?? vscode.ViewColumn.Beside, preview: true });
    const response = shown.exchange.response;
    const image = imageExtension(response?.contentType);
    if (image && response?.body.kind === 'binary') {
      const file = await this.writeImage(shown.exchange.id, image, Buffer.from(response.body.base64, 'base64'));
      await vscode.commands.executeCommand('vscode.open', file, { viewColumn: editor.viewColumn, preview: false });
    }
    return document;
  }

  private resolve(exchangeOrId: Exchange | string): ShownExchange {
    if (typeof exchangeOrId === 'string') {
      const found = this.find(exchangeOrId);
      if (!found)
        throw new RunBlocked(
          `The exchange ${exchangeOrId} is no longer kept: the window keeps the last 20 sends of each node. Send the request again.`,
        );
      return found;
    }
    const entry = this.sends.get(exchangeOrId.id);
    if (entry) return { exchange: entry.exchange, origin: 'send', entry };
    this.direct.add({ exchange: exchangeOrId, file: '', node: exchangeOrId.node });
    return { exchange: exchangeOrId, origin: 'run' };
  }

  private async writeImage(id: string, extension: string, bytes: Uint8Array): Promise<vscode.Uri> {
    const folder = vscode.Uri.joinPath(this.storage, 'exchange-images');
    if (!this.imagesCleared) {
      // Images of earlier windows: nothing refers to them any more.
      this.imagesCleared = true;
      await Promise.resolve(vscode.workspace.fs.delete(folder, { recursive: true, useTrash: false })).catch(() => undefined);
    }
    await vscode.workspace.fs.createDirectory(folder);
    const file = vscode.Uri.joinPath(folder, `${id.replace(/[^\w.-]/g, '_')}${extension}`);
    await vscode.workspace.fs.writeFile(file, bytes);
    this.images.push(file);
    while (this.images.length > IMAGES_KEPT) {
      const old = this.images.shift()!;
      await Promise.resolve(vscode.workspace.fs.delete(old, { useTrash: false })).catch(() => undefined);
    }
    return file;
  }
}
