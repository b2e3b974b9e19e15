// $match tests a pattern from a test file against text that may come from a real API (live and
// deployed cases). A pattern that backtracks without end on some text, such as ^(a+)+$ on "aaaa…!",
// can take minutes on 40 characters and would block the process: the command line, or VS Code's
// extension host. V8 stops a script that runs past vm's time limit, a regular expression included,
// so the test runs as a small script with a limit.
import { createContext, Script } from 'node:vm';
import type { Context } from 'node:vm';

/** The most time one $match test may take. */
export const MATCH_TIME_LIMIT_MS = 1000;

let sandbox: { context: Context; script: Script } | undefined;

/** The time left to the $match tests that share one limit (an expectation's, over all items of a list). */
export class PatternTime {
  private usedMs = 0;
  constructor(readonly limitMs: number) {}
  get leftMs(): number {
    return Math.max(0, this.limitMs - this.usedMs);
  }
  spend(ms: number): void {
    this.usedMs += ms;
  }
}

/**
 * A pattern without repeats (*, + or {…}; an escaped one counts too, to be safe) runs in time
 * linear in the text, so it needs no sandbox (whose time limit costs 50 µs a test).
 */
const REPEAT = /[*+{]/;

/**
 * Whether the pattern matches the text, or 'stopped' when testing it took longer than the time
 * left. Each test starts at the text's beginning, whatever the pattern's flags (g and y keep a position).
 */
export function testPattern(regex: RegExp, text: string, time: PatternTime = new PatternTime(MATCH_TIME_LIMIT_MS)): boolean | 'stopped' {
  if (!REPEAT.test(regex.source)) {
    regex.lastIndex = 0;
    return regex.test(text);
  }
  const limitMs = Math.floor(time.leftMs);
  if (limitMs <= 0) return 'stopped';
  sandbox ??= { context: createContext({ regex: undefined, text: '' }), script: new Script('regex.lastIndex = 0; regex.test(text)') };
  const { context, script } = sandbox;
  context.regex = regex;
  context.text = text;
  const started = performance.now();
  try {
    return script.runInContext(context, { timeout: limitMs }) === true;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'stopped';
    throw error;
  } finally {
    time.spend(performance.now() - started);
    // The sandbox outlives the test: it must not keep a large text alive.
    context.regex = undefined;
    context.text = '';
  }
}
