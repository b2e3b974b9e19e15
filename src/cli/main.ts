// The `agent-workflows` command line: argument parsing (commander) and dispatch to the commands.
import { Command, CommanderError, Option } from 'commander';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import { validateCommand } from './validateCommand';
import type { ValidateFormat } from './validateCommand';

declare const AGENT_WORKFLOWS_VERSION: string | undefined;

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const program = new Command('agent-workflows')
    .description('Validate and run workflow agents (.agent.yaml files).')
    .version(typeof AGENT_WORKFLOWS_VERSION === 'string' ? AGENT_WORKFLOWS_VERSION : 'development', '-V, --version')
    .exitOverride()
    .showHelpAfterError('(run agent-workflows --help for usage)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  program
    .command('validate')
    .description('Check agent files and print their problems. Exits 0 with no errors, 1 with errors, 2 on usage errors or unreadable files.')
    .argument('<paths...>', 'agent files, or directories to search for *.agent.yaml files')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (paths: string[], options: { format: ValidateFormat }) => {
      exitCode = await validateCommand(paths, options.format, io);
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; anything else commander rejects is a usage error.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (error instanceof CliError) {
      io.stderr(`agent-workflows: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr(`agent-workflows: internal error (please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return ExitCode.internal;
  }
}
