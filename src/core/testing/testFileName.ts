// Which files are agent test files, and which agent one tests: cheap enough for the editor to ask
// before anything is parsed.

export const TEST_FILE = /\.agent\.test\.ya?ml$/;

/** The agent file a test file tests when it names none: weather.agent.test.yaml tests weather.agent.yaml. */
export function defaultAgentPath(testFileName: string): string {
  return testFileName.replace(/\.agent\.test\.(ya?ml)$/, '.agent.$1');
}

// `agent:` at the start of a line; the value after it is read by agentValueAt. One regex for both
// ended a lazy value with `[ \t]*…$`, which scans each run of spaces again from every character
// before it: minutes on a long line, and this runs on every keystroke in a test file.
const AGENT_KEY = /^agent[ \t]*:[ \t]*/gm;
/** Where a plain value ends: a comment, or the end of the line (any of the line ends `$` knows). */
const PLAIN_END = /[#\n\r\u2028\u2029]/g;
const LINE_END = /[\n\r\u2028\u2029]/;

/**
 * The agent a test file's text names with `agent:`, or the one its file name implies; read from the
 * line itself, so that it works while the rest of the YAML is broken.
 */
export function agentPathOf(text: string, testFileName: string): string {
  let named: string | undefined;
  AGENT_KEY.lastIndex = 0;
  for (let key = AGENT_KEY.exec(text); key && named === undefined; key = AGENT_KEY.exec(text))
    named = agentValueAt(text, AGENT_KEY.lastIndex);
  return named || defaultAgentPath(testFileName);
}

/**
 * The value at `start`: plain, or in double or single quotes, followed by an optional comment;
 * undefined when the line holds no such value.
 */
function agentValueAt(text: string, start: number): string | undefined {
  const first = text[start];
  if (first === undefined || first === '#' || /\s/.test(first)) return undefined;
  if (first !== '"' && first !== "'") {
    PLAIN_END.lastIndex = start + 1;
    const end = PLAIN_END.exec(text)?.index ?? text.length;
    let last = end;
    while (text[last - 1] === ' ' || text[last - 1] === '\t') last--;
    return text.slice(start, last);
  }
  let at = start + 1;
  for (;;) {
    const c = text[at];
    if (c === undefined || c === '\n') return undefined;
    if (first === '"' && c === '\\') {
      if (text[at + 1] === undefined || LINE_END.test(text[at + 1]!)) return undefined;
      at += 2;
    } else if (c === first && !(first === "'" && text[at + 1] === "'")) break;
    else at += c === first ? 2 : 1;
  }
  // After the closing quote: spaces, then a comment or the end of the line.
  let after = at + 1;
  while (text[after] === ' ' || text[after] === '\t') after++;
  if (after < text.length && text[after] !== '#' && !LINE_END.test(text[after]!)) return undefined;
  const quoted = text.slice(start + 1, at);
  return first === '"' ? quoted.replace(/\\(.)/g, '$1') : quoted.replace(/''/g, "'");
}
