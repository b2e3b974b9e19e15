// #runAgentTests: the cases of an agent test file of the workspace, run on this machine with the
// cases' mocks (the test core the Test Explorer runs), each answered passed or failed with its
// messages. Cases marked deployed: true are left to the Test Explorer's deployed profile.
import { loadSuite, runSuite } from '../core/testing/suite';
import { testRunResult } from '../core/tools/toolResults';
import { problemFacts } from '../core/tools/fileChecks';
import { knownArguments, textArgument, ToolCallError } from '../core/tools/toolArguments';
import { testsConfirmation } from '../core/tools/toolConfirmations';
import { callRedactor, redactedAnswer, shownPath, workspaceFile } from './toolCalls';
import type { AgentTool } from './toolNames';

export const runTestsTool: AgentTool = {
  async prepare(args) {
    const file = await workspaceFile(textArgument(args, 'path', 'the test file'), 'The test file');
    const shown = shownPath(file.path, file.root);
    return {
      invocationMessage: `Running the tests of ${shown}`,
      confirmation: testsConfirmation(shown, textArgument(args, 'grep', 'text', true)),
    };
  },
  async invoke(args, signal) {
    knownArguments(args, ['path', 'grep']);
    const file = await workspaceFile(
      textArgument(args, 'path', 'the path of the test file, relative to the workspace folder'),
      'The test file',
    );
    const grep = textArgument(args, 'grep', 'text to look for in case names', true);
    const loaded = loadSuite(file.path);
    if (!('suite' in loaded)) throw new ToolCallError(loaded.message, { problems: problemFacts(undefined, loaded.problems) });
    const results = await runSuite(loaded, {
      signal,
      ...(grep !== undefined ? { grep } : {}),
      deploymentError: "This case runs on the deployment (deployed: true): run it from the Test Explorer's deployed profile.",
    });
    const { text, value } = testRunResult(results, `${shownPath(file.path, file.root)}: `);
    // A test file's secrets are its own (mocks); the answer still passes the one redaction of bearer tokens.
    return redactedAnswer({ text, value }, callRedactor());
  },
};
