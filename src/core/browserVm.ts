// Node's `vm`, as much of it as src/core/testing/regexTest.ts uses, for the browser build (esbuild.mjs
// gives this module in place of `node:vm` there; the desktop and the command line keep Node's). A
// browser cannot stop a running regular expression from its own thread, so the one script regexTest
// makes runs here without vm's time limit. In the browser, patterns are only compiled (a test file's
// checks, in the language worker); runs are the desktop's. Were one run, it would run in that worker,
// which the extension stops after its own time limit (VALIDATION_TIME_LIMIT_MS).

/** The one script regexTest.ts runs. */
const PATTERN_TEST = 'regex.lastIndex = 0; regex.test(text)';

interface PatternContext {
  regex: RegExp | undefined;
  text: string;
}

export function createContext<T extends object>(sandbox: T): T {
  return sandbox;
}

export class Script {
  constructor(code: string) {
    if (code !== PATTERN_TEST) throw new Error(`The browser build runs only regexTest's script, not: ${code}`);
  }

  runInContext(context: PatternContext): boolean {
    const { regex, text } = context;
    if (!regex) return false;
    regex.lastIndex = 0;
    return regex.test(text);
  }
}
