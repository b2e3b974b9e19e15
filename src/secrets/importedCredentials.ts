// The credentials a pasted curl command held: stored only after one confirmation that names them
// (and where each came from), never written into the file the command was pasted into.
import * as vscode from 'vscode';
import type { ImportedSecret } from '../core/import/apiNodeFromCurl';
import type { ApiKeyStore } from './apiKeyStore';
import type { WorkflowSecrets } from './workflowSecrets';

const STORE = 'Store in Secret Storage';

/**
 * Asks once whether to store the values a command held, and stores them on yes. Secrets the command
 * only named (a placeholder or $VARIABLE) are mentioned so the user knows to set them. Answers
 * whether the values were stored (true when there was nothing to store).
 */
export async function offerToStoreSecrets(secrets: readonly ImportedSecret[], store: WorkflowSecrets): Promise<boolean> {
  const withValue = secrets.filter((secret) => secret.value !== undefined);
  const toSet = secrets.filter((secret) => secret.value === undefined && !store.names().includes(secret.name)).map((secret) => secret.name);
  const setLater = toSet.length > 0 ? ` Set ${toSet.join(', ')} with Agent Workflows: Set Secret… before running it.` : '';
  if (withValue.length === 0) {
    if (setLater !== '') void vscode.window.showInformationMessage(`The node refers to secrets it does not hold.${setLater}`);
    return true;
  }
  const stored = new Set(store.names());
  const listed = withValue
    .map((secret) => `${secret.name} (from ${secret.from}${stored.has(secret.name) ? '; replaces the stored value' : ''})`)
    .join(', ');
  const answer = await vscode.window.showWarningMessage(
    `The command holds ${withValue.length === 1 ? 'a credential' : `${withValue.length} credentials`}: ${listed}. Store ${withValue.length === 1 ? 'it' : 'them'} in VS Code's secret storage for local runs?`,
    {
      modal: true,
      detail: `The file only gets {{ secrets.NAME }} references; the values are never written into it.${setLater}`,
    },
    STORE,
  );
  if (answer !== STORE) return false;
  for (const secret of withValue) await store.set(secret.name, secret.value!);
  return true;
}

/** The service API key of a pasted start command: stored for its origin after a confirmation. */
export async function offerToStoreApiKey(origin: string, key: string, keys: ApiKeyStore): Promise<boolean> {
  const replaces = (await keys.get(origin)) !== undefined ? ' It replaces the key stored for that origin.' : '';
  const answer = await vscode.window.showWarningMessage(
    `The command holds an API key. Store it in VS Code's secret storage as the key of ${origin}?`,
    { modal: true, detail: `The key is sent only to ${origin}, and never written into the file.${replaces}` },
    STORE,
  );
  if (answer !== STORE) return false;
  await keys.set(origin, key);
  return true;
}
