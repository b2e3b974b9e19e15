// What every webview panel of the extension (the graph, the batch results, the batch comparison)
// does alike: it makes its panel with scripts on and its resources only from webviewRoots, passes the
// page's messages to its owner, keeps what the page reports it drew (the tests read it back), posts
// nothing once closed, and disposes of itself, its listeners and the panel once, whoever closes it.
import * as vscode from 'vscode';
import { webviewRoots } from './webviewPage';

export interface WebviewPanelHostOptions<Incoming> {
  readonly viewType: string;
  readonly title: string;
  readonly extensionUri: vscode.Uri;
  /** Where it opens: by default in the active group, taking the focus. */
  readonly showOptions?: { readonly viewColumn: vscode.ViewColumn; readonly preserveFocus: boolean };
  /** Each message of the page, "rendered" ones included (after they are kept). */
  readonly onMessage: (message: Incoming) => void;
  /** Once, when the panel is closed by the user or disposed of by its owner. */
  readonly onDispose: () => void;
}

/** A panel's page tells what it drew with a message of this shape (see each page's protocol). */
interface RenderedMessage<Report> {
  readonly type: 'rendered';
  readonly report: Report;
}

export class WebviewPanelHost<Incoming extends { readonly type: string }, Report> implements vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  private lastRendered: Report | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private closed = false;

  constructor(private readonly options: WebviewPanelHostOptions<Incoming>) {
    // The page is not kept while hidden: it loads again, and says it is ready, when shown.
    this.panel = vscode.window.createWebviewPanel(
      options.viewType,
      options.title,
      options.showOptions ?? { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { enableScripts: true, localResourceRoots: webviewRoots(options.extensionUri) },
    );
    this.disposables.push(
      this.panel.onDidDispose(() => this.dispose()),
      this.panel.webview.onDidReceiveMessage((message: Incoming) => {
        if (message.type === 'rendered') this.lastRendered = (message as unknown as RenderedMessage<Report>).report;
        options.onMessage(message);
      }),
    );
  }

  /** What the page drew last, read back from it. */
  get rendered(): Report | undefined {
    return this.lastRendered;
  }

  get disposed(): boolean {
    return this.closed;
  }

  /** Disposed of with the panel (the owner's listeners). */
  track(...disposables: vscode.Disposable[]): void {
    this.disposables.push(...disposables);
  }

  /** Sends a message to the page; nothing once the panel is closed. */
  post(message: unknown): void {
    if (this.closed) return;
    void this.panel.webview.postMessage(message);
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const disposable of this.disposables) disposable.dispose();
    this.panel.dispose();
    this.options.onDispose();
  }
}
