// The run of a test file's cases, several at a time: locally with the engine and each case's mocks,
// or on the deployment. Reading and checking the file is loadSuite.ts's.
import { dirname } from 'node:path';
import { checkFileAccess } from '../inputs/fileAccess';
import { runCaseDeployed } from './deployed';
import type { DeployedRunOptions } from './deployed';
import type { LoadedSuite } from './loadSuite';
import { runCase } from './runCase';
import type { CaseResult } from './caseResult';
import type { RunCaseOptions } from './runCase';
import type { TestSuite } from './testFile';
import type { TestCase } from './testModel';

export { loadSuite, loadSuiteFromText, readText } from './loadSuite';
export type { LoadedSuite, SuiteLoadFailure } from './loadSuite';

export interface RunSuiteOptions extends Omit<RunCaseOptions, 'baseDir'> {
  /** Only the cases whose name contains this text (any case). */
  readonly grep?: string;
  /** Only the cases of these exact names (an editor's selection); with grep, both apply. */
  readonly only?: ReadonlySet<string>;
  /** Cases running at the same time; default 8. */
  readonly concurrency?: number;
  /** Called as each case ends, in the order they end. */
  readonly onCase?: (result: CaseResult) => void;
  /**
   * What the run keeps of each case as it ends (all of it by default): a file of thousands of cases
   * would otherwise hold every execution, its node answers and requests, until its last case.
   */
  readonly keep?: (result: CaseResult, testCase: TestCase) => CaseResult;
  /** Where the cases that run on the deployment go: those marked `deployed: true`, or all with `allDeployed`. */
  readonly deployment?: Omit<DeployedRunOptions, 'baseDir' | 'signal'>;
  /** Every case runs against `deployment` (the CLI's --deployed, the editor's deployed profile). */
  readonly allDeployed?: boolean;
  /** Why there is no `deployment` (no target, no key): the failure of each case that needed it. */
  readonly deploymentError?: string;
}

/** The cases a run selects (grep and only), in file order. */
export function selectedCases(suite: TestSuite, options: Pick<RunSuiteOptions, 'grep' | 'only'>): TestCase[] {
  const grep = options.grep?.toLowerCase();
  return suite.cases.filter(
    (testCase) => (!grep || testCase.name.toLowerCase().includes(grep)) && (!options.only || options.only.has(testCase.name)),
  );
}

/** Whether a run with these options sends a case to the deployment (and so needs a target and key). */
export function needsDeployment(suite: TestSuite, options: Pick<RunSuiteOptions, 'grep' | 'only' | 'allDeployed'>): boolean {
  const cases = selectedCases(suite, options);
  return cases.length > 0 && (options.allDeployed === true || cases.some((testCase) => testCase.deployed));
}

/**
 * The folders outside the test file's own (and not allowed) that the selected cases name files in:
 * what the editor asks to allow before a run. Cases whose files are refused fail saying why.
 */
export async function refusedFileFolders(
  loaded: LoadedSuite,
  options: Pick<RunSuiteOptions, 'grep' | 'only' | 'allowedFolders'>,
): Promise<string[]> {
  const folders = new Set<string>();
  const folder = dirname(loaded.testFile);
  for (const testCase of selectedCases(loaded.suite, options))
    for (const given of Object.values(testCase.files)) {
      const access = await checkFileAccess(given, {
        folder,
        ...(options.allowedFolders ? { allowedFolders: options.allowedFolders } : {}),
      });
      if (!access.ok && access.refusal.allowFolder !== undefined) folders.add(access.refusal.allowFolder);
    }
  return [...folders];
}

/** Runs the cases (those grep selects), at most `concurrency` at once; results in file order. */
export async function runSuite(loaded: LoadedSuite, options: RunSuiteOptions = {}): Promise<CaseResult[]> {
  const cases = selectedCases(loaded.suite, options);
  const results: CaseResult[] = new Array(cases.length);
  const baseDir = dirname(loaded.testFile);
  let next = 0;
  const runOne = (testCase: TestCase): Promise<CaseResult> => {
    if (!options.allDeployed && !testCase.deployed) return runCase(loaded.agent, testCase, { ...options, baseDir });
    if (!options.deployment) {
      // Callers resolve a deployment whenever needsDeployment says so; a case is never run locally in its place.
      return Promise.resolve({
        name: testCase.name,
        passed: false,
        durationMs: 0,
        failures: [
          {
            message: options.deploymentError ?? 'This case runs on the deployment (deployed: true), but no deployment was given.',
            span: testCase.span,
          },
        ],
        requests: [],
        notes: [],
      });
    }
    return runCaseDeployed(loaded.agent, testCase, {
      ...options.deployment,
      baseDir,
      ...(options.allowedFolders ? { allowedFolders: options.allowedFolders } : {}),
      ...(options.allowHint ? { allowHint: options.allowHint } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  };
  const worker = async (): Promise<void> => {
    while (next < cases.length && !options.signal?.aborted) {
      const index = next++;
      const testCase = cases[index] as TestCase;
      const result = await runOne(testCase);
      options.onCase?.(result);
      results[index] = options.keep ? options.keep(result, testCase) : result;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 8, cases.length)) }, worker));
  return results.filter((result) => result !== undefined);
}
