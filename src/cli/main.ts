// The `agent-workflows` command line: argument parsing (commander) and dispatch to the commands,
// each loaded only when it runs (`--help` loads none of them).
import { Command, CommanderError, Option } from 'commander';
import { ExitCode, isCliError, printableIo } from './io';
import type { CliIo } from './io';
import type { EnvsFlags } from './envsCommand';
import type { LspFlags } from './lspCommand';
import type { McpFlags } from './mcpCommand';
import type { ImportCurlFlags, ImportOpenApiFlags } from './importCommand';
import type { BatchFlags } from './batchCommand';
import type { CompareFlags } from './compareCommand';
import type { RunFlags } from './runCommand';
import type { SendFlags } from './sendCommand';
import type { ServeFlags } from './serveCommand';
import type { StatusFlags } from './statusCommand';
import type { TestFlags } from './testCommand';
import type { ValidateFormat } from './validateCommand';
import { errorDetail } from '../core/errors';

declare const AGENT_WORKFLOWS_VERSION: string | undefined;

export async function runCli(argv: readonly string[], rawIo: CliIo): Promise<number> {
  const io = printableIo(rawIo);
  let exitCode: number = ExitCode.ok;
  const program = new Command('agent-workflows')
    .description('Validate and run workflow agents (.agent.yaml files).')
    .version(typeof AGENT_WORKFLOWS_VERSION === 'string' ? AGENT_WORKFLOWS_VERSION : 'development', '-V, --version')
    .exitOverride()
    .showHelpAfterError('(run agent-workflows --help for usage)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  const collect = (value: string, previous: string[]): string[] => [...previous, value];
  program
    .command('validate')
    .description(
      'Check agent files, agent test files and environments files (agent-workflows.yaml), each as its kind, and print their problems. Exits 0 with no errors, 1 with errors, 2 on usage errors or unreadable files.',
    )
    .argument('<paths...>', 'files, or directories to search for *.agent.yaml, *.agent.test.yaml and agent-workflows.yaml files')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option(
      '-r, --reporter <type[:file]>',
      'a report: text, json or github, to standard output or, as TYPE:FILE, to a file (repeatable; at most one on standard output; instead of --format). github writes annotations to standard error and a summary to $GITHUB_STEP_SUMMARY; it is added when GITHUB_ACTIONS=true and no reporter is given',
      collect,
      [],
    )
    .action(async (paths: string[], options: { format: ValidateFormat; reporter: string[] }, command: Command) => {
      exitCode = await (
        await import('./validateCommand')
      ).validateCommand(paths, options.format, io, options.reporter, command.getOptionValueSource('format') === 'cli');
    });

  withDeploymentOptions(
    program
      .command('run')
      .description(
        'Run a deployed agent: validate the file, start it with the given inputs, and wait for its outputs. The API key comes from AGENT_WORKFLOWS_API_KEY. With --local, run the file on this machine instead.',
      )
      .argument('<file>', 'the .agent.yaml file of the agent')
      .option('-i, --input <NAME=VALUE>', 'an input value (repeatable)', collect, [])
      .option('-f, --file <NAME=PATH>', 'a file for a file input (repeatable; the run then uses multipart)', collect, [])
      .option('--timeout <seconds>', 'the time limit of the whole run, the start request included (default 1800)')
      .option('--no-wait', 'print the execution id and return without waiting')
      .option('--json', 'print {"executionId","status","outputs"} on stdout')
      .option('--local', 'run the file on this machine with the workflow engine (no service or key; secrets from AGENT_SECRET_<NAME>)')
      .option('--verbose', "with --local, print each API node's request and answer on stderr as curl -v does (secrets by name)"),
  ).action(async (file: string, options: RunFlags) => {
    exitCode = await (await import('./runCommand')).runCommand(file, options, io);
  });

  program
    .command('send')
    .description(
      "Send one API node's request, built as a run builds it, and print the answer's body (a template node: its text). Secrets come from AGENT_SECRET_<NAME>, shown as {{ secrets.NAME }}. Exits 0 on an answer below 400, 1 on 4xx/5xx (or an answer the node could not use), 2 on usage errors or values not given (nothing sent), 4 when the request failed (refused, DNS, TLS, redirects), 5 on --timeout.",
    )
    .argument('<file>', 'the .agent.yaml file of the agent')
    .argument('<node-id>', 'the node to send')
    .option('--input <NAME=VALUE>', 'an input value (repeatable)', collect, [])
    .option('-f, --file <NAME=PATH>', 'a file for a file input (repeatable)', collect, [])
    .option(
      '--node <ID=JSON>',
      'the result of an upstream node the request uses, as JSON or @file.json: its body, or {"body","status","headers"} (repeatable)',
      collect,
      [],
    )
    .option('-i, --include', 'print the status line and the response headers before the body, as curl -i does')
    .option('--json', 'print the whole exchange (request, redirects, response, times) as JSON')
    .option('--timeout <seconds>', 'the time limit of the request, redirects included (default 30)')
    // Accepted only to say why they do not apply (environments name the deployed service).
    .addOption(new Option('--env <name>').hideHelp())
    .addOption(new Option('--envs-file <path>').hideHelp())
    .action(async (file: string, nodeId: string, options: SendFlags) => {
      exitCode = await (await import('./sendCommand')).sendCommand(file, nodeId, options, io);
    });

  program
    .command('status')
    .description('Read the status of an execution, or with --wait poll it until it ends.')
    .argument('<executionId>', 'the id printed by run')
    .option('--base-url <url>', "the service's base URL (required without an environment)")
    .option('--account <account>', 'the account path (required without an environment)')
    .option('--agent <agent>', 'the agent path, for a status template that uses {agent}')
    .option(
      '--status-path <template>',
      "the status URL template (default: the environment's, else {baseUrl}/api/{account}/agent/{executionId}/status)",
    )
    .option(
      '--env <name>',
      "the environment of agent-workflows.yaml the execution runs in (default: AGENT_WORKFLOWS_ENV, else the file's default)",
    )
    .option('--envs-file <path>', 'the environments file (default: the nearest agent-workflows.yaml above the current folder)')
    .option('--wait', 'poll until the execution ends')
    .option('--timeout <seconds>', 'with --wait, stop waiting after this long (default 1800)')
    .option('--json', 'print {"executionId","status","outputs"} on stdout')
    .option('--allow-insecure-http', 'allow an http:// base URL that is not loopback')
    .action(async (executionId: string, options: StatusFlags) => {
      exitCode = await (await import('./statusCommand')).statusCommand(executionId, options, io);
    });

  withDeploymentOptions(
    program
      .command('test')
      .description(
        "Run agent tests (*.agent.test.yaml) on this machine: each case runs the agent with its inputs, its API nodes answered by the case's mocks, and checks its expectations. Exits 0 when every case passed, 1 when one failed, 2 on usage errors or a test file that cannot run.",
      )
      .argument('[paths...]', 'test files, or directories to search for *.agent.test.yaml files (default: the current directory)')
      .option('-u, --update', 'write the actual outputs into expect.outputs of the cases marked snapshot: true')
      .option('-g, --grep <text>', 'run only the cases whose name contains this text')
      .option(
        '-r, --reporter <type[:file]>',
        'a report: text, json, junit, ctrf or github, to standard output or, as TYPE:FILE, to a file (repeatable; at most one on standard output). github writes annotations to standard error and a summary to $GITHUB_STEP_SUMMARY; it is added when GITHUB_ACTIONS=true and no reporter is given (default: text)',
        collect,
        [],
      )
      .option(
        '-o, --output <file>',
        'write the report given without a file to this file instead of standard output (a summary still goes to standard error)',
      )
      .option(
        '--compare-with <file>',
        "an earlier run's JSON report: the GitHub step summary compares this run's (--reporter json:FILE) with it",
      )
      .option(
        '--deployed',
        "send every case to the deployed agent (the file's deployment, or the options below; the key from AGENT_WORKFLOWS_API_KEY) and check its outputs; mocks are not used. Cases marked deployed: true go there in any run",
      )
      .option('--timeout <seconds>', 'for deployed cases: the most each case may take (default 300)')
      .option(
        '--allow-files-from <DIR>',
        "let the cases' files: come from this folder too (repeatable); by default only from the test file's folder",
        collect,
        [],
      ),
    'for deployed cases',
  ).action(async (paths: string[], options: TestFlags) => {
    exitCode = await (await import('./testCommand')).testCommand(paths, options, io);
  });

  program
    .command('envs')
    .description(
      'List the environments of agent-workflows.yaml (the nearest one above the current folder): name, origin, account, protected, and the default. Exits 2 when the file has errors.',
    )
    .option('--json', 'print {"file","default","environments":[…]} on stdout')
    .option('--envs-file <path>', 'the environments file (default: the nearest agent-workflows.yaml above the current folder)')
    .action(async (options: EnvsFlags) => {
      exitCode = await (await import('./envsCommand')).envsCommand(options, io);
    });

  const importing = program.command('import').description('Make agent-file YAML from what an API gives you.');
  importing
    .command('curl')
    .description(
      'Print the API node a curl command makes (its inputs first when it has placeholders). Credentials become {{ secrets.NAME }} references: the names to set are printed on stderr, the values never. Exits 2 when the command cannot be read.',
    )
    .argument('<command>', 'the curl command, quoted as one argument (e.g. \'curl -H "…" https://…\'), or @FILE to read it from a file')
    .option('--id <id>', 'the node id (default: made from the method and the path)')
    .action(async (command: string, options: ImportCurlFlags) => {
      exitCode = await (await import('./importCommand')).importCurlCommand(command, options, io);
    });
  importing
    .command('openapi')
    .description(
      'List the operations of an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1; JSON or YAML; a file or a URL), or print one as an API node with its inputs. Its security scheme becomes {{ secrets.NAME }} references. Exits 2 when the document cannot be read.',
    )
    .argument('<document>', 'the document: a file path or an http(s) URL')
    .option('--operation <id>', 'the operation: its operationId, or "METHOD /path"')
    .option('--list', 'list the operations by tag, and print no node')
    .option('--id <id>', 'the node id (default: from the operationId)')
    .action(async (source: string, options: ImportOpenApiFlags) => {
      exitCode = await (await import('./importCommand')).importOpenApiCommand(source, options, io);
    });

  withDeploymentOptions(
    program
      .command('batch')
      .description(
        'Run an agent once per row of a data file (.jsonl, .csv or .json): rows are checked first, executions started with bounded concurrency and polled by one scheduler within a request-rate budget, results written to --out as rows end; resumable with --resume. The API key comes from AGENT_WORKFLOWS_API_KEY. Exits 0 when every row finished (and met its expectations), 1 when some failed or were skipped, 2 on usage errors or when --out or its state file cannot be written (resume once there is room), 3 auth, 4 network or gave up on a service that only throttles (--give-up-after), 5 gave up waiting. See docs/batch.md.',
      )
      .argument('<file>', 'the .agent.yaml file of the agent')
      .requiredOption(
        '-d, --data <file>',
        'the data file: .jsonl (one JSON object a line), .csv (a header row) or .json (an array of objects)',
      )
      .option('-o, --out <file>', 'write one JSON line per row to this file as rows end (its state goes to <file>.state, for --resume)')
      .option('--state <file>', 'the state file (default: the --out file + ".state")')
      .option('--resume', 'go on with the batch of --out: skip rows that ended, poll again the executions started, start the rest')
      .option('--restart-unknown', 'with --resume: start again the rows whose start was sent but not answered (they may run twice)')
      .option('-m, --map <INPUT=COLUMN>', 'read an input from a column of another name (repeatable)', collect, [])
      .option('--limit <n>', 'only the first n rows')
      .option(
        '--strict-columns',
        'skip (as bad rows) the rows that fill a column that is neither an input nor expect.…; by default such columns are kept in the results',
      )
      .option(
        '--expect <file>',
        'an agent test file (*.agent.test.yaml) with one case: its expect.outputs apply to every row, for a pass rate',
      )
      .option('-c, --concurrency <n>', 'executions running at once (default 8)')
      .option('--rate <requests>', 'requests a second to the service, starts and polls together (default 10)')
      .option('--timeout <seconds>', 'give up waiting for an execution after this long (default 1800)')
      .option(
        '--give-up-after <seconds>',
        'stop the batch (exit 4, resumable) when the service has answered nothing but 429 or 503 for this long (default 900: 15 minutes)',
      )
      .option('--local', 'run the rows on this machine with the workflow engine (no service or key; secrets from AGENT_SECRET_<NAME>)')
      .option(
        '-r, --reporter <type[:file]>',
        'a report of the rows, a test per row: json, junit, ctrf or github, to standard output or, as TYPE:FILE, to a file (repeatable; at most one on standard output). github writes annotations to standard error and a summary to $GITHUB_STEP_SUMMARY; it is chosen when GITHUB_ACTIONS=true and no reporter is given',
        collect,
        [],
      )
      .option(
        '--compare-with <file>',
        'an earlier results file: the GitHub step summary compares the results of this batch (--out) with it',
      )
      .option(
        '--allow-files-from <DIR>',
        "let the data's file paths name files in this folder too (repeatable); by default only in the data file's folder",
        collect,
        [],
      ),
  ).action(async (file: string, options: BatchFlags) => {
    exitCode = await (await import('./batchCommand')).batchCommand(file, options, io);
  });

  program
    .command('compare')
    .description(
      'Compare two runs of an agent: two batch results files (batch --out) or two agent-test JSON reports (test --reporter json). Lists regressions (finished -> failed, passed -> not passed), fixes, changed outputs with a short diff, durations changed beyond noise, rows only in one run, and a summary. Exits 0, 1 when --fail-on finds what it names, 2 on usage errors or files that cannot be compared.',
    )
    .argument('<A>', 'the earlier run (the base)')
    .argument('<B>', 'the later run')
    .option('-k, --key <column>', 'match rows by this column of the data (an other column or an input) rather than by row number')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .addOption(
      new Option('--fail-on <what>', 'exit 1 when the comparison finds regressions, or any change').choices(['regression', 'change']),
    )
    .option(
      '-o, --output <file>',
      'write the comparison to this file instead of standard output (a summary line still goes to standard error)',
    )
    .option('--force', 'compare runs of different agents anyway, by output names')
    .action(async (pathA: string, pathB: string, options: CompareFlags) => {
      exitCode = await (await import('./compareCommand')).compareCommand(pathA, pathB, options, io);
    });

  program
    .command('serve')
    .description(
      "Run the local agent server: the agent service's HTTP interface on this machine, for every *.agent.yaml under a folder (reloaded when files change). Stops cleanly on Ctrl-C or SIGTERM.",
    )
    .argument('[dir]', 'the folder of agent files', '.')
    .option('-p, --port <port>', 'port to listen on (0 picks a free one)', '8787')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--allow-host <name>',
      'another name clients reach the server by, accepted as their Host (repeatable; the --host address and loopback names always are)',
      collect,
      [],
    )
    .option(
      '--api-key <key>',
      'the key clients must send as "Authorization: Bearer <key>" (default: AGENT_WORKFLOWS_API_KEY, else one is made and printed)',
    )
    .option('--concurrency <n>', 'nodes of one execution that run at the same time', '16')
    .option('--node-timeout <seconds>', 'time limit of each API node call', '30')
    .action(async (dir: string, options: ServeFlags) => {
      exitCode = await (await import('./serveCommand')).serveCommand(dir, options, io);
    });

  program
    .command('dap')
    .description(
      'Serve the agent debugger over stdio with the Debug Adapter Protocol (debug type agent-workflow), for editors such as Neovim (nvim-dap). Secrets the launch configuration does not give come from AGENT_SECRET_<NAME>. See docs/debugging.md.',
    )
    .action(async () => {
      exitCode = await (await import('./dapCommand')).dapCommand(io);
    });

  program
    .command('lsp')
    .description(
      'Run the language server of agent, agent test and environments files for editors other than VS Code (Neovim, Helix, Zed, Emacs, JetBrains IDEs): diagnostics, completion, hover, quick fixes, definition, references, rename and symbols over the Language Server Protocol. See docs/editors.md.',
    )
    .option('--stdio', 'talk over standard input and output (the only transport)')
    .action(async (options: LspFlags) => {
      exitCode = await (await import('./lspCommand')).lspCommand(options);
    });

  program
    .command('mcp')
    .description(
      "Serve the agents of a folder to AI assistants over the Model Context Protocol (stdio): a tool per agent file (or list_agents and run_agent past 40), and tools to validate a file, send one API node, run an agent's tests and read an execution's status. Keys and secrets come from the environment (AGENT_WORKFLOWS_API_KEY, AGENT_SECRET_<NAME>), never from a tool's arguments. See docs/ai-assistants.md.",
    )
    .argument('[dir]', 'the folder of agent files', '.')
    .option(
      '--allow-env <name>',
      'let calls run in this protected environment (repeatable); protected environments are refused otherwise',
      collect,
      [],
    )
    .option(
      '--agents <glob>',
      'offer a tool only for the agent files matching this glob (relative to the folder); the others through list_agents and run_agent',
    )
    .option('--timeout <seconds>', 'the time limit of each tool call (default 600)')
    .option('--no-watch', 'read the folder once at start: the tool list does not follow file changes')
    .action(async (dir: string, options: McpFlags) => {
      exitCode = await (await import('./mcpCommand')).mcpCommand(dir, options, io);
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; anything else commander rejects is a usage error.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (isCliError(error)) {
      io.stderr(`agent-workflows: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr(`agent-workflows: internal error (please report it): ${errorDetail(error)}\n`);
    return ExitCode.internal;
  }
}

/**
 * Where an agent is deployed, for run, batch and test: what the options give beats the environment,
 * which beats the agent file's deployment block. `scope` says when they apply ("for deployed cases").
 */
function withDeploymentOptions(command: Command, scope?: string): Command {
  const say = (text: string): string => (scope ? `${scope}: ${text}` : text);
  const options = [
    new Option('--base-url <url>', say("the service's base URL (default: the environment's, else the file's deployment.baseUrl)")),
    new Option('--account <account>', say("the account path (default: the environment's, else the file's deployment.account)")),
    new Option('--agent <agent>', say("the agent path (default: the file's deployment.agent)")),
    new Option(
      '--status-path <template>',
      say("the status URL template (default: the environment's, else {baseUrl}/api/{account}/agent/{executionId}/status)"),
    ),
    new Option('--env <name>', say("the environment of agent-workflows.yaml (default: AGENT_WORKFLOWS_ENV, else the file's default)")),
    new Option('--envs-file <path>', say('the environments file (default: the nearest agent-workflows.yaml above the agent file)')),
    new Option('-y, --yes', say('run in a protected environment without asking')),
    new Option('--allow-insecure-http', say('allow an http:// base URL that is not loopback (the key travels in clear text)')),
  ];
  for (const option of options) command.addOption(option);
  return command;
}
