// Which of the three kinds of file the extension reads a file name is: the one rule the command
// line's `validate` and the language server decide by.
import { ENVIRONMENTS_FILE_NAME } from '../environments/environmentsFileName';
import { TEST_FILE } from '../testing/testFileName';
import { AGENT_FILE } from './agentFileName';
import type { ParsedFileKind } from './parse';

/** The kind of file a name (without folders) is, or undefined for any other file. */
export function fileKindOfName(name: string): ParsedFileKind | undefined {
  if (TEST_FILE.test(name)) return 'test';
  if (AGENT_FILE.test(name)) return 'agent';
  if (name === ENVIRONMENTS_FILE_NAME) return 'environments';
  return undefined;
}
