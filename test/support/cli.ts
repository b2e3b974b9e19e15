// The command line run in-process, as the unit tests drive it: stdout and stderr captured, and
// checked never to hold any of the secrets the test names (API keys, secret values).
import assert from 'node:assert/strict';
import type { CliIo } from '../../src/cli/io';
import { runCli } from '../../src/cli/main';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `agent-workflows args` with the io given (all but its output), and what it printed. */
export async function runCliCaptured(
  args: readonly string[],
  io: Omit<CliIo, 'stdout' | 'stderr'>,
  secrets: readonly string[] = [],
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { ...io, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  for (const secret of secrets)
    assert.ok(!(stdout + stderr).includes(secret), `the secret ${secret.slice(0, 3)}… never appears in the output`);
  return { code, stdout, stderr };
}
