// Entry point of the `agent-workflows` command line (bundled to dist/cli.js).
import { createInterface } from 'node:readline/promises';
import { runCli } from './cli/main';

// Ctrl-C aborts long commands (polling) so they can stop cleanly and say how to resume; a second
// Ctrl-C exits at once.
const interrupt = new AbortController();
process.once('SIGINT', () => {
  interrupt.abort();
  process.once('SIGINT', () => process.exit(130));
});

/** A y/N question on the terminal (the answer is yes only for y or yes); Ctrl-C answers no. */
async function confirm(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await terminal.question(question, { signal: interrupt.signal });
    return /^\s*y(es)?\s*$/i.test(answer);
  } catch {
    return false;
  } finally {
    terminal.close();
  }
}

void runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
  interrupt: interrupt.signal,
  stderrIsTTY: process.stderr.isTTY === true,
  ...(process.stdin.isTTY === true && process.stderr.isTTY === true ? { confirm } : {}),
}).then((code) => {
  process.exitCode = code;
});
