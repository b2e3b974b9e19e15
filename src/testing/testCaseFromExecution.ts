// "New Test Case from This Execution": an execution of the Agent Executions view becomes a case in
// NAME.agent.test.yaml beside its agent file (created when missing): its inputs, its outputs as
// expect.outputs, a mock stub per API node with the status it got, test values for the agent's
// secrets. Then the file opens at the new case, for the user to fill in the mocks' bodies.
import { basename, dirname, relative } from 'node:path';
import * as vscode from 'vscode';
import type { ExecutionRecord } from '../core/executions/executionRecord';
import { loadTestCore } from './testCore';
import { currentText } from '../workspaceFiles';

/** Why an execution cannot become a case, in words the user can act on. */
export class NewTestCaseRefused extends Error {}

/** The test file beside an agent file: weather.agent.yaml → weather.agent.test.yaml (.yml stays .yml). */
export function testFileBeside(agentFile: vscode.Uri): vscode.Uri {
  const name = basename(agentFile.path).replace(/\.agent\.(ya?ml)$/i, '.agent.test.$1');
  return vscode.Uri.joinPath(agentFile, '..', name);
}

/** Writes the case and opens the test file at it; returns the test file and the case's name. */
export async function newTestCaseFromExecution(
  record: ExecutionRecord,
): Promise<{ readonly testFile: vscode.Uri; readonly caseName: string }> {
  if (!record.file)
    throw new NewTestCaseRefused(
      'This execution has no agent file (it was started by id); only executions of an agent file of this workspace can become test cases.',
    );
  if (record.state !== 'finished' || record.outputs === null || typeof record.outputs !== 'object' || Array.isArray(record.outputs)) {
    throw new NewTestCaseRefused('Only a finished execution with outputs can become a test case: its outputs are what the case expects.');
  }
  const agentUri = vscode.Uri.parse(record.file);
  if (!/\.agent\.ya?ml$/i.test(agentUri.path)) throw new NewTestCaseRefused(`${agentUri.fsPath} is not an agent file (*.agent.yaml).`);
  const testUri = testFileBeside(agentUri);
  const core = await loadTestCore();

  const agentText = await currentText(agentUri);
  if (agentText === undefined)
    throw new NewTestCaseRefused(`The agent file ${vscode.workspace.asRelativePath(agentUri)} no longer exists.`);
  let nodes: Array<{ id: string; type?: string }>;
  let secretNames: readonly string[] = [];
  try {
    const agent = core.loadAgent(agentText, vscode.workspace.asRelativePath(agentUri));
    nodes = [...agent.model.nodes.values()];
    secretNames = agent.plan.secretNames;
  } catch (error) {
    if (!(error instanceof core.AgentFileError) || !error.model) throw error;
    // The agent has errors now: the case is written from its declarations; its checks say the rest.
    nodes = [...error.model.nodes.values()];
  }
  const statuses = new Map((record.trace ?? []).map((entry) => [entry.node, /^HTTP (\d{3})$/.exec(entry.detail ?? '')?.[1]]));
  const inputs: Record<string, unknown> = {};
  const files: Record<string, string> = {};
  for (const [name, value] of Object.entries(record.inputs)) {
    if (typeof value !== 'object') inputs[name] = value;
    else if (record.filePaths?.[name]) files[name] = relative(dirname(testUri.fsPath), record.filePaths[name]).split('\\').join('/');
  }

  const existing = await currentText(testUri);
  const written = core.appendCaseFromExecution(existing, {
    name: `${record.agentName} ${new Date(record.startedAt).toISOString().slice(0, 16).replace('T', ' ')}`,
    agentFileName: basename(agentUri.path),
    inputs,
    files,
    outputs: record.outputs as Record<string, unknown>,
    apiNodes: nodes
      .filter((node) => node.type === 'api')
      .map((node) => ({ node: node.id, ...(statuses.get(node.id) ? { status: Number(statuses.get(node.id)) } : {}) })),
    secretNames,
  });

  let document: vscode.TextDocument;
  if (existing === undefined) {
    await vscode.workspace.fs.writeFile(testUri, new TextEncoder().encode(written.text));
    document = await vscode.workspace.openTextDocument(testUri);
  } else {
    // Through the editor, so the change can be undone; saved, so the CLI and watcher see it.
    document = await vscode.workspace.openTextDocument(testUri);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(testUri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), written.text);
    if (!(await vscode.workspace.applyEdit(edit)))
      throw new Error(`The test file ${vscode.workspace.asRelativePath(testUri)} could not be edited.`);
    await document.save();
  }
  const at = document.positionAt(written.offset);
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(at, at.translate(0, written.name.length)) });
  return { testFile: testUri, caseName: written.name };
}
