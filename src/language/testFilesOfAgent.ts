// The workspace's agent test files, each with the agent file its `agent:` names, for references and
// rename across an agent and its test files: the open test documents (unsaved text included) and
// the files the workspace's search finds (as many as the Test Explorer lists), read through
// vscode.workspace.fs, so that the browser build finds them too. Which of them test a given agent
// is the core's to sort out (crossFileReferences, crossFileRename).
import * as vscode from 'vscode';
import { errorDetail } from '../core/errors';
import { MAX_TEST_FILES } from '../core/limits';
import type { TestFileOfAgent } from '../core/testing/testFileReferences';
import { TEST_FILES, TEST_LANGUAGE_ID } from './languageIds';
import type * as LanguageCore from './languageCore';
import { workspaceFileTexts } from './workspaceFileTexts';

/** The agent file a test file tests: its `agent:`, or the file beside it of the same name. */
export function agentUriOf(core: typeof LanguageCore, testFile: vscode.Uri, text: string): vscode.Uri {
  return vscode.Uri.joinPath(testFile, '..', core.agentPathOf(text, testFile.path.split('/').pop() ?? ''));
}

/** Every test file of the workspace and the open ones, by URI string, with their text and agent's URI string. */
export async function workspaceTestFiles(
  core: typeof LanguageCore,
  logger: vscode.LogOutputChannel,
  token?: vscode.CancellationToken,
): Promise<TestFileOfAgent[]> {
  const files = await workspaceFileTexts(
    {
      languageId: TEST_LANGUAGE_ID,
      kind: TEST_FILES,
      max: MAX_TEST_FILES,
      onCapped: () =>
        logger.warn(
          `References and rename look at the first ${MAX_TEST_FILES} agent test files of the workspace; the others are left out.`,
        ),
      onPartial: (why) => logger.warn(`References and rename may leave out agent test files: ${why}`),
      onUnreadable: (uri, error) =>
        logger.warn(`References and rename leave out the test file ${uri.toString(true)}: ${errorDetail(error)}`),
    },
    token,
  );
  return files.map(({ uri, text }) => ({ path: uri.toString(), text, agentPath: agentUriOf(core, uri, text).toString() }));
}
