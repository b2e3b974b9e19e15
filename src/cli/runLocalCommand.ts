// `agent-workflows run --local <file>`: runs the agent file on this machine with the workflow
// engine (no service, no key): nodes in reference order, independent ones together, secrets from
// AGENT_SECRET_<NAME>, a line per node on stderr, the outputs on stdout.
import { formatBytes, formatDuration } from '../core/executions/executionRecord';
import { loadAgent } from '../core/engine/agentPlan';
import { executeAgent } from '../core/engine/engine';
import { filesFromPaths, resolveInputs } from '../core/engine/inputs';
import { envSecretHint, envSecretResolver } from '../core/engine/secrets';
import type { NodeTrace } from '../core/engine/trace';
import { InputError } from '../core/inputs/inputValues';
import type { GivenInputs, InputHints } from '../core/inputs/inputValues';
import { CliError, ExitCode } from './io';
import type { CliIo } from './io';
import { createProgress } from './progress';
import { EXCHANGE_BODY_LIMITS } from '../core/exchange/exchange';
import type { Exchange } from '../core/exchange/exchange';
import { ExchangeLog } from '../core/exchange/executionExchanges';
import { formatVerboseExchange } from '../core/exchange/verboseExchange';

export interface LocalRunOptions {
  readonly timeoutMs: number;
  readonly json: boolean;
  /** How a message says to give an input (the run command's flags). */
  readonly inputHints: InputHints;
  /** Each API node's exchange on stderr, as `curl -v` prints it (secrets by name). */
  readonly verbose?: boolean;
}

export async function runLocally(path: string, text: string, given: GivenInputs, options: LocalRunOptions, io: CliIo): Promise<number> {
  const agent = loadAgent(text, path);
  let inputs;
  try {
    inputs = resolveInputs(agent.model, { values: given.values ?? {}, files: await filesFromPaths(given.files ?? {}) }, options.inputHints);
  } catch (error) {
    if (error instanceof InputError) throw new CliError(error.problems.join('\n'), ExitCode.usage);
    throw error;
  }

  const progress = createProgress(io.stderr, io.stderrIsTTY ?? false, io.terminal);
  const running = new Set<string>();
  // Kept within the execution's budget, as every local execution's are, and printed as each node ends.
  const exchanges = options.verbose ? new ExchangeLog() : undefined;
  let printed = 0;
  const printExchanges = (): void => {
    const kept = exchanges!.snapshot();
    for (; printed < kept.exchanges.length; printed++) {
      const exchange = kept.exchanges[printed]!;
      progress.line(formatVerboseExchange(exchange, { bodiesNotKept: kept.bodiesNotKept.includes(exchange.id) }).trimEnd());
    }
  };
  progress.line(`running ${agent.name} locally (${agent.plan.nodes.length} ${agent.plan.nodes.length === 1 ? 'node' : 'nodes'})`);
  const result = await executeAgent(agent, inputs, {
    secrets: envSecretResolver(io.env),
    secretHint: envSecretHint,
    timeoutMs: options.timeoutMs,
    ...(io.interrupt ? { signal: io.interrupt } : {}),
    ...(exchanges
      ? { onExchange: (record: () => Exchange) => exchanges.add(record()), exchangeBodyLimit: EXCHANGE_BODY_LIMITS.execution }
      : {}),
    onTrace: (entry) => {
      if (entry.status === 'running') running.add(entry.node);
      else running.delete(entry.node);
      if (entry.status !== 'running' && entry.status !== 'pending') {
        if (exchanges) printExchanges();
        progress.line(`  ${describeNode(entry)}`);
      }
      progress.update(running.size ? `running ${[...running].join(', ')}` : 'running');
    },
  });
  progress.done();

  if (result.status === 'finished') {
    io.stderr(`finished in ${formatDuration(result.durationMs)}\n`);
    io.stdout(
      options.json
        ? `${JSON.stringify({ executionId: null, status: 'finished', outputs: result.outputs })}\n`
        : `${JSON.stringify(result.outputs, null, 2)}\n`,
    );
    return ExitCode.ok;
  }
  io.stderr(`agent-workflows: ${result.error.message}\n`);
  if (options.json)
    io.stdout(
      `${JSON.stringify({ executionId: null, status: result.status, error: result.error.message, ...(result.error.node ? { node: result.error.node } : {}) })}\n`,
    );
  if (result.status === 'cancelled') return io.interrupt?.aborted ? ExitCode.interrupted : ExitCode.problems;
  return result.error.kind === 'timeout' ? ExitCode.timeout : ExitCode.problems;
}

function describeNode(entry: NodeTrace): string {
  const parts = [`${entry.node}: ${entry.status}`];
  if (entry.durationMs !== undefined) parts.push(`in ${formatDuration(entry.durationMs)}`);
  if (entry.method && entry.url)
    parts.push(`${entry.method} ${entry.url}${entry.httpStatus !== undefined ? ` → ${entry.httpStatus}` : ''}`);
  if (entry.bytes !== undefined) parts.push(formatBytes(entry.bytes));
  if (entry.error) parts.push(`(${entry.error})`);
  return parts.join(' ');
}
