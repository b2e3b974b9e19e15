// The languages the extension contributes, as VS Code knows them, and the files they cover
// (package.json contributes the same; manifest tests check both agree).
export const AGENT_LANGUAGE_ID = 'agent-yaml';
export const AGENT_FILE_GLOB = '**/*.{agent.yaml,agent.yml}';
/** Agent test files, NAME.agent.test.yaml (docs/testing-agents.md). */
export const TEST_LANGUAGE_ID = 'agent-test-yaml';
/** The environments file, agent-workflows.yaml (docs/environments.md). */
export const ENVIRONMENTS_LANGUAGE_ID = 'agent-environments-yaml';
