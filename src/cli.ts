// Entry point of the `agent-workflows` command line (bundled to dist/cli.js).
import { runCli } from './cli/main';

void runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
}).then((code) => {
  process.exitCode = code;
});
