// "Copy Node as cURL": the API node under the cursor (or one picked from the file's API nodes) as
// a curl command on the clipboard, without running anything. Secrets are $AGENT_SECRET_NAME shell
// variables (the message names them), inputs of the URL {name} placeholders; `import curl` of the
// copy gives the node back.
import * as vscode from 'vscode';
import type { Node as YamlNode } from 'yaml';
import { COMMANDS } from '../commandIds';
import { RunBlocked, guardedCommand } from '../commandErrors';
import type { NodeDeclaration } from '../core/document/model';
import { plainValue } from '../core/document/plainValue';
import { SECRET_ENV_PREFIX } from '../core/engine/secrets';
import { curlForNode, secretsOfNode } from '../core/exchange/curl';
import type { NodeRequestSpec } from '../core/exchange/curl';
import { indexAgentText } from '../core/language/agentIndex';
import { AGENT_LANGUAGE_ID } from '../language/languageIds';

export function registerCopyNodeAsCurlCommand(context: vscode.ExtensionContext, deps: { logger: vscode.LogOutputChannel }): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.copyNodeAsCurl,
      // A file's Uri, or { uri, node } naming the node, from a caller; none from the palette or the
      // editor's context menu (the file in front).
      guardedCommand('Copy Node as cURL', deps.logger, async (argument) => {
        const named = isNodeArgument(argument) ? argument : undefined;
        const document = await agentDocument(named?.uri ?? argument);
        const apiNodes = [...(indexAgentText(document.getText()).model?.nodes.values() ?? [])].filter((node) => node.type === 'api');
        if (apiNodes.length === 0)
          throw new RunBlocked(`${vscode.workspace.asRelativePath(document.uri)} has no API node (type: api) to copy as a curl command.`);
        const given = named?.node;
        const node =
          given !== undefined ? apiNodes.find((candidate) => candidate.id === given) : await nodeAtCursorOrPicked(document, apiNodes);
        if (given !== undefined && !node)
          throw new RunBlocked(`There is no API node "${given}" in ${vscode.workspace.asRelativePath(document.uri)}.`);
        if (!node) return undefined;
        const spec = requestSpecOf(node);
        const command = curlForNode(spec);
        await vscode.env.clipboard.writeText(command);
        const secrets = secretsOfNode(spec).map((name) => `${SECRET_ENV_PREFIX}${name}`);
        void vscode.window.showInformationMessage(
          `Copied the node "${node.id}" as a curl command.` +
            (secrets.length > 0 ? ` Export ${secrets.join(', ')} in the shell before running it.` : '') +
            (/\{[\w.]+\}/.test(command.replace(/\$\{\w+\}/g, '')) ? ' Fill in its {placeholders} first.' : ''),
        );
        return command;
      }),
    ),
  );
}

function isNodeArgument(argument: unknown): argument is { uri: vscode.Uri; node: string } {
  return (
    typeof argument === 'object' &&
    argument !== null &&
    (argument as { uri?: unknown }).uri instanceof vscode.Uri &&
    typeof (argument as { node?: unknown }).node === 'string'
  );
}

async function agentDocument(resource: unknown): Promise<vscode.TextDocument> {
  if (resource instanceof vscode.Uri) return vscode.workspace.openTextDocument(resource);
  const editor = vscode.window.activeTextEditor;
  if (editor?.document.languageId === AGENT_LANGUAGE_ID) return editor.document;
  throw new RunBlocked('Open an agent file (.agent.yaml) in the editor first, then copy one of its API nodes as cURL.');
}

/** The API node the cursor is in, else the one the user picks (the only one, without asking). */
async function nodeAtCursorOrPicked(document: vscode.TextDocument, apiNodes: NodeDeclaration[]): Promise<NodeDeclaration | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (editor?.document === document) {
    const offset = document.offsetAt(editor.selection.active);
    const under = apiNodes.find((node) => {
      const start = node.keyNode.range?.[0];
      const end = node.map?.range?.[2];
      return start !== undefined && end !== undefined && offset >= start && offset <= end;
    });
    if (under) return under;
  }
  if (apiNodes.length === 1) return apiNodes[0];
  const picked = await vscode.window.showQuickPick(
    apiNodes.map((node) => ({ label: node.id, description: `${node.method ?? ''} ${node.url?.value ?? ''}`.trim(), node })),
    { title: 'Copy Node as cURL', placeHolder: 'The API node to copy as a curl command' },
  );
  return picked?.node;
}

function requestSpecOf(node: NodeDeclaration): NodeRequestSpec {
  if (!node.method || !node.url)
    throw new RunBlocked(`The node "${node.id}" needs a method and a url before it can be copied as a curl command.`);
  const value = node.bodyPair?.value as YamlNode | null | undefined;
  const body = value === undefined || value === null ? undefined : (plainValue(value) ?? value.toJSON());
  return {
    method: node.method,
    url: node.url.value,
    settings: node.settings.map((setting) => setting.value),
    ...(body !== undefined && body !== null ? { body } : {}),
  };
}
