// The exchange view: one read-only document per exchange (a TextDocumentContentProvider on its
// own scheme), so folding, search and copy work as in any editor; its text is made by
// core/exchange/exchangeDocument. Images are written to the extension's storage (never the
// workspace) and shown by the editor's image preview beside the text. A long JSON body shows its
// first lines formatted, with an Open Whole Body code lens where it says so (the whole body is a
// document of its own: the same URI with the query `whole-body`).
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { RunBlocked } from '../commandErrors';
import type { Exchange } from '../core/exchange/exchange';
import { OPEN_WHOLE_BODY, exchangeDocument, exchangeTitle, imageExtension } from '../core/exchange/exchangeDocument';
import { formatBytes } from '../core/executions/executionRecord';
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

/** The query of the URI of an exchange's whole body. */
const WHOLE_BODY_QUERY = 'whole-body';

export interface ShowOptions {
  /** The whole JSON body formatted, however long it is. */
  readonly wholeBody?: boolean;
}

export class ExchangeViews implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  /** Exchanges handed to the view directly (those of local executions), bounded like the sends. */
  private readonly direct = new ExchangeHistory({ perNode: 20, totalBytes: 32 * 1024 * 1024 });
  private readonly images: vscode.Uri[] = [];
  private imagesCleared = false;
  private readonly registrations: vscode.Disposable[];

  constructor(
    private readonly sends: ExchangeHistory,
    /** The extension's own storage folder: images go in `exchange-images/` there. */
    private readonly storage: vscode.Uri,
  ) {
    this.registrations = [
      vscode.workspace.registerTextDocumentContentProvider(EXCHANGE_SCHEME, this),
      vscode.languages.registerCodeLensProvider({ scheme: EXCHANGE_SCHEME }, this),
    ];
  }

  dispose(): void {
    for (const registration of this.registrations) registration.dispose();
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
    return exchangeDocument(shown.exchange, { wholeBody: uri.query === WHOLE_BODY_QUERY }).text;
  }

  /**
   * Open Whole Body where a view shows only the start of its body: on the header line that says
   * so and on the note where the body stops (found from the ends: the header block, the closing
   * lines after the note).
   */
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (document.uri.scheme !== EXCHANGE_SCHEME || document.uri.query === WHOLE_BODY_QUERY || document.languageId !== 'jsonc') return [];
    const lenses: vscode.CodeLens[] = [];
    const lens = (line: number): void => {
      lenses.push(
        new vscode.CodeLens(document.lineAt(line).range, {
          title: 'Open Whole Body',
          tooltip: 'Show the whole body formatted (a long body takes the editor a while, and it does not fold past 300,000 lines)',
          command: COMMANDS.openWholeExchangeBody,
          arguments: [document.uri],
        }),
      );
    };
    let line = 0;
    for (; line < document.lineCount && document.lineAt(line).text.startsWith('//'); line++)
      if (document.lineAt(line).text.includes(OPEN_WHOLE_BODY)) lens(line);
    if (lenses.length === 0) return [];
    for (let last = document.lineCount - 1; last > line; last--) {
      const text = document.lineAt(last).text.trim();
      if (text.startsWith('//')) {
        if (text.includes(OPEN_WHOLE_BODY)) lens(last);
        break;
      }
      if (text !== ']' && text !== '}' && text !== '') break;
    }
    return lenses;
  }

  /** Opens the view of an exchange beside the agent (or where an exchange view already is). */
  async show(exchangeOrId: Exchange | string, options: ShowOptions = {}): Promise<vscode.TextDocument> {
    const shown = this.resolve(exchangeOrId);
    const wholeBody = options.wholeBody === true;
    // Made once: the body decides the language, so the file extension of the URI.
    const made = exchangeDocument(shown.exchange, { wholeBody });
    const uri = vscode.Uri.from({
      scheme: EXCHANGE_SCHEME,
      path: `/${shown.origin}/${encodeURIComponent(shown.exchange.id)}/${exchangeTitle(shown.exchange)}${made.extension}`,
      ...(wholeBody ? { query: WHOLE_BODY_QUERY } : {}),
    });
    this.pending.set(uri.toString(), made.text);
    const column = vscode.window.visibleTextEditors.find((editor) => editor.document.uri.scheme === EXCHANGE_SCHEME)?.viewColumn;
    const open = async (): Promise<vscode.TextEditor> => {
      const document = await vscode.workspace.openTextDocument(uri).then(
        (opened) => (this.pending.delete(uri.toString()), opened),
        (error: unknown) => {
          this.pending.delete(uri.toString());
          throw error;
        },
      );
      return vscode.window.showTextDocument(document, { viewColumn: column ?? vscode.ViewColumn.Beside, preview: true });
    };
    const body = shown.exchange.response?.body;
    // A whole long body takes the editor seconds: said while it opens.
    const editor = wholeBody
      ? await vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Notification,
            title: `Opening the whole body of ${exchangeTitle(shown.exchange)}${body && body.kind !== 'empty' ? ` (${formatBytes(body.size)})` : ''}…`,
          },
          open,
        )
      : await open();
    const document = editor.document;
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
