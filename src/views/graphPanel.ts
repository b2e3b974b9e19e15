// The workflow graph webview beside the editor: shows the graph of one agent document, follows the
// active agent editor and the document's changes, and reveals a clicked node in the YAML.
import * as vscode from 'vscode';
import { layoutGraph } from '../core/graph/graphLayout';
import { buildWorkflowGraph } from '../core/graph/workflowGraph';
import type { WorkflowGraph } from '../core/graph/workflowGraph';
import { AGENT_LANGUAGE_ID } from '../language/languageIds';
import type { HostMessage, RenderReport, WebviewMessage } from '../webview/graph/protocol';
import { errorDetail } from '../core/errors';
import { webviewPage } from './webviewPage';
import { WebviewPanelHost } from './webviewPanelHost';

const VIEW_TYPE = 'agentWorkflows.graph';
/** Quiet time after the last keystroke before the graph is drawn again. */
const UPDATE_DELAY_MS = 250;

export interface GraphPanelDeps {
  readonly extensionUri: vscode.Uri;
  readonly logger: vscode.LogOutputChannel;
}

export class GraphPanel implements vscode.Disposable {
  private readonly host: WebviewPanelHost<WebviewMessage, RenderReport>;
  private document: vscode.TextDocument;
  /** The editor column the document was last seen in, where clicks reveal it. */
  private sourceColumn: vscode.ViewColumn | undefined;
  /** The graph of the document version drawn last, to find clicked nodes. */
  private drawn: { readonly version: number; readonly graph: WorkflowGraph } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly deps: GraphPanelDeps,
    document: vscode.TextDocument,
    sourceColumn: vscode.ViewColumn | undefined,
    onDisposed: () => void,
  ) {
    this.document = document;
    this.sourceColumn = sourceColumn;
    const media = vscode.Uri.joinPath(deps.extensionUri, 'media');
    this.host = new WebviewPanelHost({
      viewType: VIEW_TYPE,
      title: this.title(),
      extensionUri: deps.extensionUri,
      showOptions: { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      onMessage: (message) => this.onMessage(message),
      onDispose: () => {
        if (this.timer) clearTimeout(this.timer);
        onDisposed();
      },
    });
    this.webviewPanel.iconPath = {
      light: vscode.Uri.joinPath(media, 'agent-file-light.svg'),
      dark: vscode.Uri.joinPath(media, 'agent-file-dark.svg'),
    };
    this.webviewPanel.webview.html = this.html();
    this.host.track(
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (!sameFile(event.document, this.document)) return;
        // A file closed and opened again is a new document object, its versions counted anew.
        if (event.document !== this.document) this.drawn = undefined;
        this.document = event.document;
        this.schedule();
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        // Focus moving to the graph itself leaves no active editor: keep the current document.
        if (editor?.document.languageId === AGENT_LANGUAGE_ID) this.show(editor.document, editor.viewColumn, { reveal: false });
      }),
    );
  }

  get webviewPanel(): vscode.WebviewPanel {
    return this.host.panel;
  }

  get documentUri(): vscode.Uri {
    return this.document.uri;
  }

  /** What the webview drew last, read back from its page (tests check the drawing with it). */
  get rendered(): RenderReport | undefined {
    return this.host.rendered;
  }

  /** Shows a document's graph (drawn at once) and, unless told not to, brings the panel forward. */
  show(document: vscode.TextDocument, column: vscode.ViewColumn | undefined, options: { reveal: boolean }): void {
    if (column !== undefined) this.sourceColumn = column;
    if (document !== this.document) {
      this.document = document;
      this.drawn = undefined;
      this.webviewPanel.title = this.title();
      this.update();
    }
    // In the column it is in now, wherever the user moved it.
    if (options.reveal) this.webviewPanel.reveal(undefined, true);
  }

  /** Selects a graph node's name in the YAML and scrolls its entry into view, as a click does. */
  async revealNode(key: string): Promise<vscode.TextEditor | undefined> {
    const node = this.currentGraph().nodes.find((candidate) => candidate.key === key);
    if (!node) return undefined;
    return this.revealSpan(node.select.start, node.select.end, node.extent.start, node.extent.end);
  }

  dispose(): void {
    this.host.dispose();
  }

  private onMessage(message: WebviewMessage): void {
    switch (message.type) {
      case 'ready':
        // Also after the panel was hidden and shown again: the page is then a new one.
        this.update();
        break;
      case 'revealNode':
        void this.revealNode(message.key).catch((error: unknown) => this.logError('Cannot show the node', error));
        break;
      case 'revealSpan':
        void this.revealSpan(message.start, message.end).catch((error: unknown) => this.logError('Cannot show the problem', error));
        break;
    }
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.update();
    }, UPDATE_DELAY_MS);
  }

  private update(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    let message: HostMessage;
    try {
      const graph = this.currentGraph();
      message = {
        type: 'graph',
        uri: this.document.uri.toString(),
        version: this.document.version,
        fileName: this.fileName(),
        ...(graph.name !== undefined ? { agentName: graph.name } : {}),
        readable: graph.readable,
        layout: layoutGraph(graph),
        problems: graph.problems,
      };
    } catch (error) {
      // The core does not throw for bad input; a throw is a bug, logged rather than lost.
      this.logError(`Cannot draw the graph of ${this.document.uri.toString(true)}`, error);
      return;
    }
    this.host.post(message);
  }

  /** The graph of the document as it is now (computed again only when its text changed). */
  private currentGraph(): WorkflowGraph {
    const version = this.document.version;
    if (this.drawn?.version !== version) this.drawn = { version, graph: buildWorkflowGraph(this.document.getText()) };
    return this.drawn.graph;
  }

  private async revealSpan(start: number, end: number, extentStart = start, extentEnd = end): Promise<vscode.TextEditor> {
    // The document may have been closed since it was drawn; open it again by its URI.
    const document = this.document.isClosed ? await vscode.workspace.openTextDocument(this.document.uri) : this.document;
    const visible = vscode.window.visibleTextEditors.find((editor) => editor.document === document);
    const selection = new vscode.Selection(document.positionAt(start), document.positionAt(end));
    const editor = await vscode.window.showTextDocument(document, {
      viewColumn: visible?.viewColumn ?? this.sourceColumn ?? vscode.ViewColumn.One,
      preserveFocus: false,
      selection,
    });
    editor.revealRange(
      new vscode.Range(document.positionAt(extentStart), document.positionAt(extentEnd)),
      vscode.TextEditorRevealType.InCenterIfOutsideViewport,
    );
    // The name stays visible even when the entry is taller than the editor.
    editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return editor;
  }

  private fileName(): string {
    return this.document.uri.path.split('/').pop() || this.document.uri.toString(true);
  }

  private title(): string {
    return `Graph: ${this.fileName()}`;
  }

  private html(): string {
    return webviewPage(this.webviewPanel.webview, this.deps.extensionUri, {
      name: 'graph',
      title: 'Workflow graph',
      body: `  <header id="header">
    <span id="file"></span><span id="agent"></span><span id="status" class="status" role="status"></span>
    <div id="zoom" role="toolbar" aria-label="Zoom" hidden>
      <button type="button" id="zoom-out" class="tool" title="Zoom out (-)" aria-label="Zoom out">−</button>
      <span id="zoom-level" title="Zoom" aria-live="polite">100%</span>
      <button type="button" id="zoom-in" class="tool" title="Zoom in (+, or Ctrl and the mouse wheel)" aria-label="Zoom in">+</button>
      <button type="button" id="zoom-fit" class="tool" title="Fit the whole graph in the panel (0)" aria-label="Fit">Fit</button>
      <button type="button" id="zoom-reset" class="tool" title="Actual size" aria-label="Zoom to 100%">100%</button>
    </div>
  </header>
  <ul id="problems" aria-label="Problems" hidden></ul>
  <main id="viewport" tabindex="0" aria-label="Workflow graph: drag the background or use the arrow keys to move it, + and - to zoom, 0 to fit">
    <div id="empty" hidden></div>
    <div id="sizer"><div id="canvas"></div></div>
  </main>`,
    });
  }

  private logError(what: string, error: unknown): void {
    this.deps.logger.error(`${what}: ${errorDetail(error)}`);
  }
}

function sameFile(a: vscode.TextDocument, b: vscode.TextDocument): boolean {
  return a.uri.toString() === b.uri.toString();
}
