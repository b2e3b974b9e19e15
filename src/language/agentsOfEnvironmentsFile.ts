// The agent files an environments file applies to (it is the nearest agent-workflows.yaml above
// them), with their texts, for references and rename of environment names across files.
import * as vscode from 'vscode';
import type { FileText } from '../core/language/quickFixes';
import { errorDetail } from '../core/errors';
import { MAX_AGENT_FILES } from '../core/limits';
import { AGENT_FILES, AGENT_LANGUAGE_ID } from './languageIds';
import { workspaceFileTexts } from './workspaceFileTexts';

/** Which environments file applies to a file: the nearest above it (WorkspaceEnvironments answers it). */
export interface EnvironmentsFileLookup {
  fileFor(uri: vscode.Uri): Promise<vscode.Uri | undefined>;
}

/** The agent files `environmentsFile` applies to, by URI string, with their texts, in path order. */
export async function agentsOfEnvironmentsFile(
  environmentsFile: vscode.Uri,
  environments: EnvironmentsFileLookup,
  logger: vscode.LogOutputChannel,
  token?: vscode.CancellationToken,
): Promise<FileText[]> {
  const folder = vscode.Uri.joinPath(environmentsFile, '..');
  const target = environmentsFile.toString();
  const files = await workspaceFileTexts(
    {
      languageId: AGENT_LANGUAGE_ID,
      kind: AGENT_FILES,
      under: folder,
      max: MAX_AGENT_FILES,
      // A nearer environments file, in a folder between, applies to the agent instead.
      wanted: async (uri) => (await environments.fileFor(uri))?.toString() === target,
      onCapped: () =>
        logger.warn(
          `Renaming an environment looks at the first ${MAX_AGENT_FILES} agent files under ${folder.toString(true)}; the others are left out.`,
        ),
      onPartial: (why) => logger.warn(`Renaming an environment may leave out agent files: ${why}`),
      onUnreadable: (uri, error) =>
        logger.warn(`References and rename of environments leave out the agent file ${uri.toString(true)}: ${errorDetail(error)}`),
    },
    token,
  );
  return files.map(({ uri, text }) => ({ path: uri.toString(), text }));
}
