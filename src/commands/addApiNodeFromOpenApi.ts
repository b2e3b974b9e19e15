// "Agent Workflows: Add API Node from OpenAPI…": an operation of an OpenAPI document (a workspace
// file, or a URL) as an API node of an agent file. From the palette it adds to the agent file in the
// editor; on an OpenAPI file in the explorer it asks which agent file to add to.
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { guardedCommand } from '../commandErrors';
import { apiNodeFromOperation, OpenApiError, operationsByTag, readOpenApi } from '../core/import/openApi';
import type { OpenApiDocument, OpenApiOperation } from '../core/import/openApi';
import { readOpenApiSource } from '../core/import/openApiSource';
import { describeImportNote } from '../core/import/importNotes';
import { nodeReferences } from '../core/import/nodeReferences';
import { addImportedNodeEdits, ImportPlacementError } from '../core/language/importEdits';
import { workspaceEditOf } from '../language/curlImportFlow';
import { AGENT_FILES, AGENT_LANGUAGE_ID } from '../language/languageIds';
import { findWorkspaceFiles } from '../workspaceSearch';
import type { WorkspaceFileKind } from '../workspaceSearch';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';

export interface OpenApiCommandDeps {
  readonly workflowSecrets: WorkflowSecrets;
  readonly logger: vscode.LogOutputChannel;
}

/** JSON and YAML files; those offered are the ones whose name says API (OPENAPI_NAME). */
const OPENAPI_FILES: WorkspaceFileKind = { glob: '**/*.{json,yaml,yml}', name: /\.(?:json|ya?ml)$/i };
const OPENAPI_NAME = /openapi|swagger|api/i;
const FROM_URL = '$(globe) From a URL…';

export function registerAddApiNodeFromOpenApiCommand(context: vscode.ExtensionContext, deps: OpenApiCommandDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.addApiNodeFromOpenApi,
      guardedCommand('Add API Node from OpenAPI', deps.logger, async (given) => {
        const agent = await agentDocument(given instanceof vscode.Uri);
        if (!agent) return false;
        const source = given instanceof vscode.Uri ? given.toString() : typeof given === 'string' ? given : await pickSource();
        if (source === undefined) return false;
        const document = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: 'Reading the OpenAPI document…', cancellable: true },
          async (_progress, token) => {
            const controller = new AbortController();
            token.onCancellationRequested(() => controller.abort());
            try {
              const uri = /^https?:/i.test(source) ? undefined : vscode.Uri.parse(source);
              const text = uri
                ? new TextDecoder().decode(await readWorkspaceFile(uri))
                : await readOpenApiSource(source, { signal: controller.signal });
              return readOpenApi(text, uri ? undefined : source);
            } catch (error) {
              if (error instanceof OpenApiError) {
                void vscode.window.showErrorMessage(`The OpenAPI document cannot be read: ${error.message}`);
                return undefined;
              }
              throw error;
            }
          },
        );
        if (!document) return false;
        const operation = await pickOperation(document);
        if (!operation) return false;
        return addOperation(agent, document, operation, deps);
      }),
    ),
  );
}

/** The agent file to add to: the one in the editor, or (from the explorer) one picked. */
async function agentDocument(fromExplorer: boolean): Promise<vscode.TextDocument | undefined> {
  const active = vscode.window.activeTextEditor?.document;
  if (active?.languageId === AGENT_LANGUAGE_ID) return active;
  if (!fromExplorer) {
    void vscode.window.showErrorMessage('Open an agent file (.agent.yaml) in the editor first: the import adds to the file in front.');
    return undefined;
  }
  const files = await findWorkspaceFiles(AGENT_FILES, { max: 500 });
  if (files.length === 0) {
    void vscode.window.showErrorMessage(
      'The workspace has no agent file (.agent.yaml) to add the node to. Create one with Agent Workflows: New Agent File.',
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    files.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri })),
    { title: 'Add API Node from OpenAPI', placeHolder: 'The agent file to add the node to' },
  );
  return picked ? vscode.workspace.openTextDocument(picked.uri) : undefined;
}

async function pickSource(): Promise<string | undefined> {
  const files = (await findWorkspaceFiles(OPENAPI_FILES, { max: 2000 })).filter((uri) =>
    OPENAPI_NAME.test(uri.path.split('/').pop() ?? ''),
  );
  const picked = await vscode.window.showQuickPick(
    [...files.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), source: uri.toString() })), { label: FROM_URL, source: '' }],
    { title: 'Add API Node from OpenAPI', placeHolder: 'The OpenAPI document (JSON or YAML)', matchOnDescription: true },
  );
  if (!picked) return undefined;
  if (picked.label !== FROM_URL) return picked.source;
  return vscode.window.showInputBox({
    title: 'Add API Node from OpenAPI',
    prompt: 'The URL of an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1)',
    placeHolder: 'https://api.example.com/openapi.json',
    ignoreFocusOut: true,
    validateInput: (value) => (/^https?:\/\/\S+$/i.test(value.trim()) ? undefined : 'Enter an http:// or https:// URL.'),
  });
}

async function readWorkspaceFile(uri: vscode.Uri): Promise<Uint8Array> {
  const { MAX_OPENAPI_BYTES } = await import('../core/limits');
  const stat = await vscode.workspace.fs.stat(uri);
  if (stat.size > MAX_OPENAPI_BYTES)
    throw new OpenApiError(
      `${vscode.workspace.asRelativePath(uri)} is larger than ${MAX_OPENAPI_BYTES / 1024 / 1024} MB, the most read for an import.`,
    );
  return vscode.workspace.fs.readFile(uri);
}

/** Operations by tag (in the document's order, untagged last), each with its method, path and summary; the quick pick filters on all of them. */
async function pickOperation(document: OpenApiDocument): Promise<OpenApiOperation | undefined> {
  if (document.operations.length === 0) {
    void vscode.window.showErrorMessage(`${document.title} describes no operation.`);
    return undefined;
  }
  type Item = vscode.QuickPickItem & { operation?: OpenApiOperation };
  const items: Item[] = [];
  for (const group of operationsByTag(document.operations)) {
    items.push({ label: group.tag ?? 'Other', kind: vscode.QuickPickItemKind.Separator });
    for (const operation of group.operations)
      items.push({
        label: operation.key,
        description: operation.operationId ?? '',
        ...(operation.summary || operation.deprecated
          ? { detail: `${operation.summary ?? ''}${operation.deprecated ? ' (deprecated)' : ''}` }
          : {}),
        operation,
      });
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: `Add API Node from ${document.title}`,
    placeHolder: 'The operation (type to filter by method, path, id or summary)',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.operation;
}

async function addOperation(
  agent: vscode.TextDocument,
  document: OpenApiDocument,
  operation: OpenApiOperation,
  deps: OpenApiCommandDeps,
): Promise<boolean> {
  let edits;
  let imported;
  try {
    imported = await apiNodeFromOperation(document, operation);
    edits = addImportedNodeEdits(agent.getText(), imported);
  } catch (error) {
    if (error instanceof OpenApiError || error instanceof ImportPlacementError) {
      void vscode.window.showErrorMessage(`${operation.key} cannot be imported: ${error.message}`);
      return false;
    }
    throw error;
  }
  if (!(await vscode.workspace.applyEdit(workspaceEditOf(agent, edits.edits)))) {
    void vscode.window.showErrorMessage('The agent file changed while the node was added: nothing was added. Try again.');
    return false;
  }
  // What the node as written refers to, and where the request goes: a secret is sent there.
  const references = nodeReferences(imported.node);
  const destination = references.host ?? 'the host its base_url input names';
  const unset = references.secrets.filter((name) => !deps.workflowSecrets.names().includes(name));
  void vscode.window.showInformationMessage(
    [
      `Added API node "${edits.id}" for ${operation.key}; it calls ${destination}.`,
      references.secrets.length > 0 ? `It sends secrets ${references.secrets.join(', ')} to ${destination}.` : '',
      references.inputs.length > 0 ? `Inputs: ${references.inputs.join(', ')}.` : '',
      unset.length > 0 ? `Set ${unset.join(', ')} with Agent Workflows: Set Secret… before running it.` : '',
      ...imported.notes.map(describeImportNote),
    ]
      .filter(Boolean)
      .join(' '),
  );
  return true;
}
