// The agent debugger's editor side, in a bundle of its own (esbuild.mjs lazyModules) loaded by the
// first debug session: the adapter of core/debug/ run inline with secrets from secret storage, and
// a launch configuration completed as Run Locally asks (the agent checked first, its missing
// secrets and its inputs asked for and remembered per file).
import { isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { reportCommandError } from '../commandErrors';
import { AgentDebugSession } from '../core/debug/agentDebugSession';
import { loadAgent } from '../core/engine/agentPlan';
import { readText } from '../core/testing/loadSuite';
import { AGENT_LANGUAGE_ID } from '../language/languageIds';
import { unsavedText } from '../workspaceFiles';
import { loadAgentFile } from './agentFile';
import { allowedFolders, allowFilesHint } from './allowFiles';
import type { AgentDebuggerDeps } from './agentDebugConfig';
import { debugThisFile } from './agentDebugConfig';
import { ensureSecrets } from './agentRuns';
import { askForInputs } from './inputPrompts';

/** Files the user picked for a debug session's inputs in this window: read wherever they are. */
const chosenFiles = new Set<string>();
/** Picks remembered at most (the oldest go first). */
const MAX_CHOSEN_FILES = 100;

function rememberChosen(path: string): void {
  chosenFiles.delete(path);
  chosenFiles.add(path);
  for (const oldest of chosenFiles) {
    if (chosenFiles.size <= MAX_CHOSEN_FILES) break;
    chosenFiles.delete(oldest);
  }
}

export function inlineAdapter(session: vscode.DebugSession, deps: AgentDebuggerDeps): vscode.DebugAdapterDescriptor {
  const folder = session.workspaceFolder ?? vscode.workspace.workspaceFolders?.[0];
  const adapter = new AgentDebugSession({
    cwd: folder?.uri.fsPath ?? process.cwd(),
    // launch.json may be someone else's: its files come from its folder, the allowed folders, or
    // the user's own picks below.
    allowedFolders: allowedFolders(deps.fileAllowances, folder?.uri),
    chosenFiles: () => [...chosenFiles],
    allowHint: allowFilesHint,
    secrets: async (name) => deps.workflowSecrets.get(name),
    secretHint: (name) => `run "Agent Workflows: Set Secret…" for ${name}`,
    // What is debugged is what the editor shows, unsaved edits included, as runs do.
    readText: (file, kind) => {
      const unsaved = unsavedText(file);
      return unsaved === undefined ? readText(file, kind) : { text: unsaved };
    },
  });
  // The session speaks the protocol through handleMessage and onDidSendMessage: a vscode.DebugAdapter.
  return new vscode.DebugAdapterInlineImplementation(adapter as unknown as vscode.DebugAdapter);
}

/** F5 with no launch.json: debug the agent file in the editor. Undefined (nothing launched) elsewhere. */
export function completeConfiguration(
  _folder: vscode.WorkspaceFolder | undefined,
  configuration: vscode.DebugConfiguration,
): vscode.DebugConfiguration | undefined {
  // F5 with no launch.json gives a configuration with nothing in it (or only the type).
  if (configuration.request || configuration.program !== undefined || configuration.testCase !== undefined) return configuration;
  if (vscode.window.activeTextEditor?.document.languageId !== AGENT_LANGUAGE_ID) {
    void vscode.window.showInformationMessage('Open an agent file (.agent.yaml) to debug it.');
    return undefined;
  }
  return debugThisFile();
}

/**
 * Before an agent launches: a file with errors does not (its problems said, the first one opened
 * on request); missing secrets are asked for into secret storage, and the inputs, when the
 * configuration gives none, as Run Locally asks them. Undefined when the user cancels.
 */
export async function askForWhatIsMissing(
  folder: vscode.WorkspaceFolder | undefined,
  configuration: vscode.DebugConfiguration,
  deps: AgentDebuggerDeps,
): Promise<vscode.DebugConfiguration | undefined> {
  const program: unknown = configuration.program;
  if (configuration.testCase !== undefined || typeof program !== 'string' || program === '') return configuration;
  try {
    const path = isAbsolute(program) || !folder ? program : join(folder.uri.fsPath, program);
    const uri = vscode.workspace.textDocuments.find((document) => document.uri.fsPath === path)?.uri ?? vscode.Uri.file(path);
    const file = await loadAgentFile(uri);
    const agent = loadAgent(file.text, file.agentPath);
    if (!(await ensureSecrets(agent.plan.secretNames, file.displayName, deps))) return undefined;
    if (configuration.inputs !== undefined || configuration.files !== undefined || file.model.inputs.size === 0) return configuration;
    const inputs = await askForInputs(file.model, file.displayName, deps.inputMemory.get(uri));
    if (!inputs) return undefined;
    await deps.inputMemory.set(uri, inputs);
    for (const file of Object.values(inputs.files ?? {})) rememberChosen(file);
    return { ...configuration, program: path, inputs: { ...inputs.values }, files: { ...inputs.files } };
  } catch (error) {
    return reportCommandError(error, 'Debug Agent', deps.logger);
  }
}
