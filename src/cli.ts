// Entry point of the `agent-workflows` command line (bundled to dist/cli.js).
import { runCli } from './cli/main';

// Ctrl-C aborts long commands (polling) so they can stop cleanly and say how to resume; a second
// Ctrl-C exits at once.
const interrupt = new AbortController();
process.once('SIGINT', () => {
  interrupt.abort();
  process.once('SIGINT', () => process.exit(130));
});

void runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
  interrupt: interrupt.signal,
  stderrIsTTY: process.stderr.isTTY === true,
}).then((code) => {
  process.exitCode = code;
});
