// Small pieces shared by the test hosts (runWebHost.ts, runDesktopHost.ts, codeServer.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { addFailure, emptySummary, testsNarrowed, type Summary } from '../support/summary';

/** The repository root: the nearest folder above start whose package.json is this extension's. */
export function findRepoRoot(start: string = __dirname): string {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === 'agent-workflows') return dir;
    }
    if (dirname(dir) === dir) throw new Error(`no agent-workflows package.json above ${start}`);
  }
}

export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** Value of `--name <value>` or `--name=<value>` in argv. */
export function argValue(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === `--${name}`) return argv[i + 1];
    if (arg?.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}

/** Seconds from the environment variable, or the default. */
export function secondsFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number of seconds, got ${raw}`);
  return value;
}

/** Clean-up steps run last-in first-out, once, even when one of them fails. */
export class Cleanup {
  private readonly steps: { name: string; step: () => unknown }[] = [];
  private running: Promise<void> | undefined;

  add(name: string, step: () => unknown): void {
    this.steps.push({ name, step });
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (let next = this.steps.pop(); next; next = this.steps.pop()) {
        try {
          await next.step();
        } catch (error) {
          console.error(`clean-up: ${next.name} failed: ${String(error)}`);
        }
      }
    })();
    return this.running;
  }
}

export class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }
}

/** Aborts controller on SIGINT/SIGTERM/SIGHUP instead of exiting; returns a function removing the handlers. */
export function abortOnSignals(controller: AbortController): () => void {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const handler = (signal: NodeJS.Signals): void => {
    if (!controller.signal.aborted) {
      console.error(`\n${signal}: stopping and cleaning up`);
      controller.abort(new Interrupted(signal));
    }
  };
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}

/** Exit code for a run that ended for reason (128 + signal number when interrupted). */
export function interruptedExitCode(reason: unknown): number | undefined {
  if (!(reason instanceof Interrupted)) return undefined;
  return { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 }[reason.signal as 'SIGHUP' | 'SIGINT' | 'SIGTERM'] ?? 1;
}

/**
 * Lets the process end by itself (so a leaked timer or process shows), but exits anyway when it is
 * still running graceMs later, saying so.
 */
export function exitSoon(code: number, graceMs = 5_000): void {
  process.exitCode = code;
  setTimeout(() => {
    console.error(`still running ${graceMs / 1000} s after clean-up (something was left open); exiting`);
    process.exit(code);
  }, graceMs).unref();
}

/**
 * The result of a run of the integration suite: the suite's own summary (undefined when it wrote
 * none), plus one failure for what the suite cannot report itself.
 */
export function hostResult(host: string, inHost: Summary | undefined, exitCode: number, crash?: unknown): Summary {
  const result = inHost ?? emptySummary();
  if (!inHost) {
    addFailure(result, host, crash ?? `the suite wrote no summary (exit code ${exitCode})`);
  } else if (result.passed + result.failed === 0 && !testsNarrowed()) {
    addFailure(result, host, 'no integration tests ran');
  } else if (exitCode !== 0 && result.failed === 0) {
    addFailure(result, host, `the suite's run() failed (exit code ${exitCode})`);
  }
  return result;
}
