// Polls an execution for the command line: progress on stderr, Ctrl-C stops cleanly and says how
// to resume, the outcome on stdout.
import { pollExecution } from '../core/service/poller';
import { ServiceError } from '../core/service/serviceError';
import type { AgentTarget } from '../core/service/target';
import { formatDuration } from '../core/executions/executionRecord';
import type { CliIo } from './io';
import { createProgress } from './progress';
import { exitCodeFor, reportOutcome, resumeHint } from './serviceOptions';

export async function watchExecution(
  io: CliIo,
  target: AgentTarget,
  executionId: string,
  options: { timeoutMs: number; json: boolean },
): Promise<number> {
  const progress = createProgress(io.stderr, io.stderrIsTTY ?? false, io.terminal);
  const started = Date.now();
  progress.update(`running: ${executionId} 0 s`);
  try {
    const outcome = await pollExecution(target, executionId, {
      timeoutMs: options.timeoutMs,
      ...(io.interrupt ? { signal: io.interrupt } : {}),
      onUpdate: (answer, info) =>
        progress.update(
          `${answer.status}: ${executionId} ${formatDuration(Date.now() - started)} (${info.requests} ${info.requests === 1 ? 'request' : 'requests'})`,
        ),
      onRetry: (error, attempt, delayMs) => progress.line(`retrying in ${formatDuration(delayMs)} (attempt ${attempt}): ${error.message}`),
    });
    progress.done();
    io.stderr(`${outcome.kind === 'finished' ? 'finished' : `ended: ${outcome.status}`} after ${formatDuration(Date.now() - started)}\n`);
    return reportOutcome(io, executionId, outcome, options.json);
  } catch (error) {
    progress.done();
    if (error instanceof ServiceError) {
      if (error.kind === 'cancelled' || error.kind === 'timeout') {
        io.stderr(
          `${error.kind === 'cancelled' ? 'Stopped watching' : 'Gave up waiting for'} execution ${executionId}; it may still be running. Resume with:\n  ${resumeHint(executionId, target)}\n`,
        );
      } else {
        io.stderr(`agent-workflows: ${error.message}\n`);
      }
      if (options.json)
        io.stdout(
          `${JSON.stringify({ executionId, status: error.kind === 'cancelled' ? 'stopped-watching' : 'unknown', outputs: null, error: error.message })}\n`,
        );
      return exitCodeFor(error);
    }
    throw error;
  }
}
