// A curl command (or the agent's own execute URL) brought into an agent file: what it becomes (an
// API node with its inputs, or the `deployment:` fields), as one WorkspaceEdit, and the credentials
// it held, offered for secret storage once. Used by Paste as API Node and the two palette commands.
import * as vscode from 'vscode';
import { apiNodeFromCurl } from '../core/import/apiNodeFromCurl';
import type { ImportedApiNode } from '../core/import/apiNodeFromCurl';
import { parseCurlCommand } from '../core/import/curlCommand';
import { deploymentFromCurl, deploymentFromUrl } from '../core/import/deploymentFromCommand';
import type { ImportedDeployment } from '../core/import/deploymentFromCommand';
import { describeImportedReferences, describeImportNote } from '../core/import/importNotes';
import { addImportedNodeEdits, setDeploymentEdits } from '../core/language/importEdits';
import type { TextEdit } from '../core/language/quickFixes';
import { offerToStoreApiKey, offerToStoreSecrets } from '../secrets/importedCredentials';
import type { ApiKeyStore } from '../secrets/apiKeyStore';
import type { WorkflowSecrets } from '../secrets/workflowSecrets';

/** A command line that starts with curl (after an optional "$ " prompt). */
export const LOOKS_LIKE_CURL = /^\s*(?:\$\s+)?curl(?:\.exe)?\s/;

export type CurlImportPlan =
  | { readonly kind: 'node'; readonly imported: ImportedApiNode; readonly id: string; readonly edits: readonly TextEdit[] }
  | { readonly kind: 'deployment'; readonly deployment: ImportedDeployment; readonly edits: readonly TextEdit[] };

/** What a command or URL becomes in `text`. Throws CurlCommandError or ImportPlacementError (their messages say why). */
export function planCurlImport(text: string, pasted: string): CurlImportPlan {
  const url = deploymentFromUrl(pasted);
  if (url) {
    const deployment = { ...url, inputs: [] };
    return { kind: 'deployment', deployment, edits: setDeploymentEdits(text, deployment) };
  }
  const request = parseCurlCommand(pasted);
  const deployment = deploymentFromCurl(request);
  if (deployment) return { kind: 'deployment', deployment, edits: setDeploymentEdits(text, deployment) };
  const imported = apiNodeFromCurl(request);
  const { edits, id } = addImportedNodeEdits(text, imported);
  return { kind: 'node', imported, id, edits };
}

export function workspaceEditOf(document: vscode.TextDocument, edits: readonly TextEdit[]): vscode.WorkspaceEdit {
  const edit = new vscode.WorkspaceEdit();
  for (const { span, newText } of edits)
    edit.replace(document.uri, new vscode.Range(document.positionAt(span.start), document.positionAt(span.end)), newText);
  return edit;
}

export interface CurlImportServices {
  readonly workflowSecrets: WorkflowSecrets;
  readonly keys: ApiKeyStore;
  /** Names the environment of agent-workflows.yaml with this origin, for the message; undefined when none. */
  readonly environmentWithOrigin?: (agent: vscode.Uri, origin: string) => Promise<string | undefined>;
}

/** After the plan's edits are in the file: the credentials offered for storage, and what changed said once. */
export async function finishCurlImport(document: vscode.TextDocument, plan: CurlImportPlan, services: CurlImportServices): Promise<void> {
  if (plan.kind === 'deployment') {
    const origin = new URL(plan.deployment.baseUrl).origin;
    if (plan.deployment.apiKey !== undefined) await offerToStoreApiKey(origin, plan.deployment.apiKey, services.keys);
    const environment = await services.environmentWithOrigin?.(document.uri, origin);
    const missing = plan.deployment.agent === undefined ? ' A status URL has no agent path: add agent: from the Agents tab.' : '';
    void vscode.window.showInformationMessage(
      `Deployment set to ${plan.deployment.baseUrl}, account ${plan.deployment.account}${plan.deployment.agent !== undefined ? `, agent ${plan.deployment.agent}` : ''}.${environment !== undefined ? ` agent-workflows.yaml's environment "${environment}" has this origin.` : ''}${missing}`,
    );
    return;
  }
  await offerToStoreSecrets(plan.imported.secrets, services.workflowSecrets);
  const notes = plan.imported.notes.map(describeImportNote);
  // Every secret and input the node refers to is named, stored secrets included: the user sees what it sends.
  void vscode.window.showInformationMessage(
    [`Added API node "${plan.id}".`, describeImportedReferences(plan.imported), ...notes].join(' '),
  );
}
