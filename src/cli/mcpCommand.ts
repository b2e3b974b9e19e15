// `agent-workflows mcp [dir]`: the MCP server (src/mcp/) on standard input and output, for AI
// assistants (docs/ai-assistants.md). Standard output carries the protocol only: the server's own
// notes go to standard error.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { createAgentServer } from '../mcp/agentServer';
import { positiveNumber } from './flagValues';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';

export interface McpFlags {
  readonly allowEnv: readonly string[];
  readonly agents?: string;
  readonly timeout?: string;
  readonly watch: boolean;
}

export async function mcpCommand(dir: string, flags: McpFlags, io: CliIo): Promise<number> {
  const root = resolve(io.cwd, dir);
  if (!(await stat(root).catch(() => undefined))?.isDirectory())
    throw new CliError(
      `${dir} is not a folder: start the server in the folder of the agent files (agent-workflows mcp DIR).`,
      ExitCode.usage,
    );
  const callTimeoutMs = (flags.timeout === undefined ? 600 : positiveNumber(flags.timeout, '--timeout', 'a number of seconds')) * 1000;
  // Anything a library prints with console.log would break the protocol on stdout.
  console.log = console.info = (...args: unknown[]) => console.error(...args);
  const agents = createAgentServer({
    root,
    env: io.env,
    allowedEnvironments: flags.allowEnv,
    ...(flags.agents !== undefined ? { agentsGlob: flags.agents } : {}),
    callTimeoutMs,
    watch: flags.watch,
    log: (line) => io.stderr(`${line}\n`),
  });
  const transport = new StdioServerTransport();
  // A line that is not JSON, or not a JSON-RPC message, gets a JSON-RPC error (the SDK only reports it).
  transport.onerror = (error) => {
    const parse = error instanceof SyntaxError;
    if (!parse && !error.name.includes('ZodError')) return;
    void transport
      .send({
        jsonrpc: '2.0',
        id: null as unknown as string,
        error: {
          code: parse ? ErrorCode.ParseError : ErrorCode.InvalidRequest,
          message: parse
            ? `Parse error: the message is not JSON (${error.message}).`
            : 'Invalid request: the message is not a JSON-RPC 2.0 request, notification or response.',
        },
      })
      .catch(() => undefined);
  };
  const closed = new Promise<void>((resolveClosed) => {
    process.stdin.once('end', resolveClosed);
    process.stdin.once('close', resolveClosed);
  });
  await agents.server.connect(transport);
  await closed;
  agents.close();
  await agents.server.close().catch(() => undefined);
  return ExitCode.ok;
}
