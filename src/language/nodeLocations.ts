// Where the nodes of an open agent file are written (src/core/language/nodeLenses.ts), for the
// per-node code lenses and for the context key that shows Send Request, Render and Pin in the
// editor's context menu when the cursor is inside a node. Computed once per document version.
import * as vscode from 'vscode';
import type { NodeLocation } from '../core/language/nodeLenses';
import { AGENT_LANGUAGE_ID } from './languageIds';
import { loadLanguageCore } from './loadLanguageCore';

/** The context key: `api` or `template` when the cursor of the active agent editor is inside such a node, else unset. */
export const CURSOR_NODE_CONTEXT = 'agentWorkflows.cursorNodeType';

const computed = new WeakMap<vscode.TextDocument, { readonly version: number; readonly locations: Promise<NodeLocation[]> }>();

export function nodeLocationsOf(document: vscode.TextDocument): Promise<NodeLocation[]> {
  const known = computed.get(document);
  if (known?.version === document.version) return known.locations;
  const locations = loadLanguageCore().then((core) => core.nodeLocations(core.indexAgentText(document.getText())));
  computed.set(document, { version: document.version, locations });
  return locations;
}

/** The node the cursor (or a position) is in, read from the document as it is now. */
export async function nodeAtPosition(document: vscode.TextDocument, position: vscode.Position): Promise<NodeLocation | undefined> {
  const offset = document.offsetAt(position);
  return (await nodeLocationsOf(document)).find((location) => offset >= location.start && offset <= location.end);
}

/**
 * Keeps CURSOR_NODE_CONTEXT up to date as the cursor moves: at once when the document's nodes are
 * known (a right click moves the cursor just before the menu reads the key), debounced while the
 * user types (every key changes the document).
 */
export function registerCursorNodeContext(context: vscode.ExtensionContext): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let shown: string | undefined;
  const set = (value: string | undefined): void => {
    if (value === shown) return;
    shown = value;
    void vscode.commands.executeCommand('setContext', CURSOR_NODE_CONTEXT, value ?? '');
  };
  const update = async (): Promise<void> => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== AGENT_LANGUAGE_ID) return set(undefined);
    try {
      const node = await nodeAtPosition(editor.document, editor.selection.active);
      set(node?.type === 'api' || node?.type === 'template' ? node.type : undefined);
    } catch {
      set(undefined);
    }
  };
  const schedule = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void update(), 100);
  };
  context.subscriptions.push(
    vscode.window.onDidChangeTextEditorSelection((event) => {
      const document = event.textEditor.document;
      if (document.languageId !== AGENT_LANGUAGE_ID) return;
      if (computed.get(document)?.version === document.version) void update();
      else schedule();
    }),
    vscode.window.onDidChangeActiveTextEditor(schedule),
    { dispose: () => timer && clearTimeout(timer) },
  );
  if (vscode.window.activeTextEditor?.document.languageId === AGENT_LANGUAGE_ID) schedule();
}
