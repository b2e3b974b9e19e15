// Which node of which agent file a per-node command (Send Request, Render, Pin, Unpin) acts on:
// the file and node a code lens or view passed; else the node under the cursor of the active agent
// editor; else one the user picks from the file's nodes of the right kind.
import * as vscode from 'vscode';
import { RunBlocked } from '../commandErrors';
import { nodeAtPosition } from '../language/nodeLocations';
import { chooseAgentFile, loadAgentFile } from './agentFile';

export interface NodeChoice {
  readonly uri: vscode.Uri;
  readonly node: string;
}

export interface NodeChoiceOptions {
  /** For the pick's title, e.g. "Send Request". */
  readonly purpose: string;
  /** Which nodes of the file may be chosen, by id and declared type; the message when none may. */
  readonly accepts: (uri: vscode.Uri, node: string, type: string | undefined) => boolean;
  readonly noneMessage: (fileName: string) => string;
}

/** Undefined when the user cancelled. */
export async function chooseNode(resource: unknown, nodeArgument: unknown, options: NodeChoiceOptions): Promise<NodeChoice | undefined> {
  if (resource instanceof vscode.Uri && typeof nodeArgument === 'string') return { uri: resource, node: nodeArgument };
  const uri = await chooseAgentFile(resource, options.purpose);
  if (!uri) return undefined;
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.uri.toString() === uri.toString()) {
    const under = await nodeAtPosition(editor.document, editor.selection.active);
    if (under && options.accepts(uri, under.id, under.type)) return { uri, node: under.id };
  }
  const file = await loadAgentFile(uri);
  const name = uri.path.split('/').pop() ?? uri.toString();
  const nodes = [...file.model.nodes.values()].filter((node) => options.accepts(uri, node.id, node.type));
  if (nodes.length === 0) throw new RunBlocked(options.noneMessage(name));
  const picked = await vscode.window.showQuickPick(
    nodes.map((node) => ({
      label: node.id,
      description: [node.type, node.method, node.url?.value].filter(Boolean).join(' '),
      id: node.id,
    })),
    { title: `${options.purpose}: ${name}`, placeHolder: 'Choose a node' },
  );
  return picked ? { uri, node: picked.id } : undefined;
}
