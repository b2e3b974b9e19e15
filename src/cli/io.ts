// What a command writes to and where it runs, so tests can drive the command line in-process.
import type { Clock } from '../core/clock';
import { printable } from '../core/printable';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on Ctrl-C: long commands stop cleanly. */
  readonly interrupt?: AbortSignal;
  /** Whether stderr is a terminal (progress is then a spinner, else plain lines). */
  readonly stderrIsTTY?: boolean;
  /** Writes to stderr as it is: only for the progress spinner's own control sequences. */
  readonly terminal?: (text: string) => void;
  /**
   * Asks a yes/no question and answers true for yes; only when a person can answer (stdin and
   * stderr are terminals). Absent otherwise: a command that needs a confirmation then needs --yes.
   */
  readonly confirm?: (question: string) => Promise<boolean>;
  /** The time a command that paces itself goes by (a batch: its scheduler, its progress): the system's, or a fake one in tests. */
  readonly clock?: Clock;
}

/**
 * The io every command gets: everything written to stdout and stderr is made printable (a service
 * or a file may hold terminal escape sequences); only `terminal` writes control sequences.
 */
export function printableIo(io: CliIo): CliIo {
  return {
    ...io,
    stdout: (text) => io.stdout(printable(text)),
    stderr: (text) => io.stderr(printable(text)),
    terminal: io.terminal ?? io.stderr,
    ...(io.confirm ? { confirm: (question: string) => io.confirm!(printable(question)) } : {}),
  };
}

/** Exit codes of the `agent-workflows` command line. */
export const ExitCode = {
  ok: 0,
  /** validate: errors found; run/status: the execution ended with a problem status. */
  problems: 1,
  usage: 2,
  auth: 3,
  network: 4,
  timeout: 5,
  /** A bug in the command line itself. */
  internal: 70,
  /** Stopped by Ctrl-C (128 + SIGINT). */
  interrupted: 130,
} as const;

/** A failure that ends the command with a message and an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * Whether error is a CliError. Each command is bundled on its own and loaded on first use (see
 * esbuild.mjs), with its own copy of this class, so `instanceof` would miss its errors.
 */
export function isCliError(error: unknown): error is CliError {
  return error instanceof Error && error.name === 'CliError' && typeof (error as { exitCode?: unknown }).exitCode === 'number';
}
