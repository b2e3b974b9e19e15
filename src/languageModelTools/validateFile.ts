// #validateAgent: the problems of an agent file, an agent test file or an environments file of the
// workspace, as the editor shows them. Sends nothing, so it works in Restricted Mode too.
import { checkFile } from '../core/tools/fileChecks';
import { knownArguments, textArgument } from '../core/tools/toolArguments';
import { shownPath, workspaceFile } from './toolCalls';
import type { AgentTool } from './toolNames';

export const validateTool: AgentTool = {
  async prepare(args) {
    return { invocationMessage: `Checking ${typeof args.path === 'string' ? args.path : 'a file'}` };
  },
  async invoke(args) {
    knownArguments(args, ['path']);
    const file = await workspaceFile(textArgument(args, 'path', 'the path of the file, relative to the workspace folder'), 'The file');
    const checked = await checkFile(file.path, shownPath(file.path, file.root));
    return { text: checked.text, value: checked.facts };
  },
};
