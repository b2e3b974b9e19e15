// The agent files an environments file applies to (it is the nearest agent-workflows.yaml above
// them), with their texts, for references and rename of environment names across files: the open
// agent documents under its folder (unsaved text included) and the files vscode.workspace.findFiles
// finds there, read through vscode.workspace.fs so that the browser build finds them too.
import * as vscode from 'vscode';
import type { FileText } from '../core/environments/environmentsNavigation';
import { errorDetail } from '../core/errors';
import { MAX_AGENT_FILES } from '../core/limits';
import { currentText } from '../workspaceFiles';
import { AGENT_FILE_GLOB, AGENT_LANGUAGE_ID } from './languageIds';

/** Which environments file applies to a file: the nearest above it (WorkspaceEnvironments answers it). */
export interface EnvironmentsFileLookup {
  fileFor(uri: vscode.Uri): Promise<vscode.Uri | undefined>;
}

/** Agent files looked at the same time. */
const MAX_READS = 8;

/** The agent files `environmentsFile` applies to, by URI string, with their texts, in path order. */
export async function agentsOfEnvironmentsFile(
  environmentsFile: vscode.Uri,
  environments: EnvironmentsFileLookup,
  logger: vscode.LogOutputChannel,
  token?: vscode.CancellationToken,
): Promise<FileText[]> {
  const folder = vscode.Uri.joinPath(environmentsFile, '..');
  const under = `${folder.toString()}/`;
  const uris = new Map<string, vscode.Uri>();
  for (const document of vscode.workspace.textDocuments)
    if (document.languageId === AGENT_LANGUAGE_ID && document.uri.toString().startsWith(under))
      uris.set(document.uri.toString(), document.uri);
  const found = await vscode.workspace.findFiles(
    new vscode.RelativePattern(folder, AGENT_FILE_GLOB),
    '**/node_modules/**',
    MAX_AGENT_FILES,
    token,
  );
  if (found.length === MAX_AGENT_FILES)
    logger.warn(
      `Renaming an environment looks at the first ${MAX_AGENT_FILES} agent files under ${folder.toString(true)}; the others are left out.`,
    );
  for (const uri of found) if (uris.size < MAX_AGENT_FILES) uris.set(uri.toString(), uri);
  const queue = [...uris.values()];
  const agents: FileText[] = [];
  const target = environmentsFile.toString();
  const readNext = async (): Promise<void> => {
    for (let uri = queue.shift(); uri && !token?.isCancellationRequested; uri = queue.shift()) {
      try {
        // A nearer environments file, in a folder between, applies to the agent instead.
        if ((await environments.fileFor(uri))?.toString() !== target) continue;
        const text = await currentText(uri);
        if (text !== undefined) agents.push({ path: uri.toString(), text });
      } catch (error) {
        logger.warn(`References and rename of environments leave out the agent file ${uri.toString(true)}: ${errorDetail(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: MAX_READS }, readNext));
  return agents.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
