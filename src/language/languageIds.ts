// The languages the extension contributes, as VS Code knows them, and the files they cover
// (package.json contributes the same; manifest tests check both agree).
import { AGENT_FILE } from '../core/document/agentFileName';
import type { ParsedFileKind } from '../core/document/parse';
import { TEST_FILE } from '../core/testing/testFileName';
import type { WorkspaceFileKind } from '../workspaceSearch';

export const AGENT_LANGUAGE_ID = 'agent-yaml';
export const AGENT_FILE_GLOB = '**/*.{agent.yaml,agent.yml}';
/** Agent test files, NAME.agent.test.yaml (docs/testing-agents.md). */
export const TEST_LANGUAGE_ID = 'agent-test-yaml';
export const TEST_FILE_GLOB = '**/*.agent.test.{yaml,yml}';
/** Agent files and agent test files, as the workspace's search finds them (workspaceSearch). */
export const AGENT_FILES: WorkspaceFileKind = { glob: AGENT_FILE_GLOB, name: AGENT_FILE };
export const TEST_FILES: WorkspaceFileKind = { glob: TEST_FILE_GLOB, name: TEST_FILE };
/** The environments file, agent-workflows.yaml (docs/environments.md). */
export const ENVIRONMENTS_LANGUAGE_ID = 'agent-environments-yaml';

/** The kind of file each language is, as the core reads it. */
export const FILE_KIND_OF_LANGUAGE: Readonly<Record<string, ParsedFileKind>> = {
  [AGENT_LANGUAGE_ID]: 'agent',
  [TEST_LANGUAGE_ID]: 'test',
  [ENVIRONMENTS_LANGUAGE_ID]: 'environments',
};
