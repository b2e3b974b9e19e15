// Which files are agent test files, and which agent one tests: cheap enough for the editor to ask
// before anything is parsed.

export const TEST_FILE = /\.agent\.test\.ya?ml$/;

/** The agent file a test file tests when it names none: weather.agent.test.yaml tests weather.agent.yaml. */
export function defaultAgentPath(testFileName: string): string {
  return testFileName.replace(/\.agent\.test\.(ya?ml)$/, '.agent.$1');
}

// `agent: path` at the top level: plain, or in double or single quotes, with an optional comment.
const AGENT_LINE = /^agent[ \t]*:[ \t]*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\n]|'')*)'|([^\s#'"][^\n#]*?))[ \t]*(?:#[^\n]*)?$/m;

/**
 * The agent a test file's text names with `agent:`, or the one its file name implies; read from the
 * line itself, so that it works while the rest of the YAML is broken.
 */
export function agentPathOf(text: string, testFileName: string): string {
  const match = AGENT_LINE.exec(text);
  const named = match ? (match[1]?.replace(/\\(.)/g, '$1') ?? match[2]?.replace(/''/g, "'") ?? match[3]) : undefined;
  return named || defaultAgentPath(testFileName);
}
