// A debug session's launch configuration, checked and made ready to run: the agent (refused with
// its problems when it has errors), its inputs (the one input check), its secrets (every one the
// agent uses, up front: a missing one is named before anything runs), or an agent test case with
// its mocks. Every refusal is a LaunchError whose message says what to change.
import { isAbsolute, relative, resolve } from 'node:path';
import { AgentFileError, loadAgent } from '../engine/agentPlan';
import type { LoadedAgent } from '../engine/agentPlan';
import { filesFromPaths, resolveInputs } from '../engine/inputs';
import type { ResolvedInputs } from '../engine/inputs';
import type { SecretResolver } from '../engine/secrets';
import { errorMessage } from '../errors';
import type { ParsedFileKind } from '../document/parse';
import { checkNamedFiles, describeFileRefusal } from '../inputs/fileAccess';
import type { FileRefusal } from '../inputs/fileAccess';
import { InputError } from '../inputs/inputValues';
import type { InputHints } from '../inputs/inputValues';
import { loadSuiteFromText, readText } from '../testing/loadSuite';
import type { TestCase } from '../testing/testModel';

/** The launch configuration as a client sends it (anything may be missing or of the wrong type). */
export interface AgentLaunchArguments {
  /** The agent file. */
  readonly program?: unknown;
  /** Input values by name. */
  readonly inputs?: unknown;
  /** Paths of the files of file inputs, by input name. */
  readonly files?: unknown;
  /** Secret values by name (the editor's secret storage); others come from the adapter's resolver. */
  readonly secrets?: unknown;
  /** "file.agent.test.yaml#case name": run that case with its mocks. */
  readonly testCase?: unknown;
  readonly stopOnEntry?: unknown;
  /** What relative paths are relative to (default: the adapter's working folder). */
  readonly cwd?: unknown;
}

export class LaunchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LaunchError';
  }
}

interface TargetBase {
  /** The agent file, absolute: breakpoints and stack frames name it. */
  readonly agentFile: string;
  /** Its text, for the lines of its nodes. */
  readonly text: string;
  readonly agent: LoadedAgent;
  readonly stopOnEntry: boolean;
}

export type DebugTarget =
  | (TargetBase & {
      readonly kind: 'agent';
      readonly inputs: ResolvedInputs;
      /** Every secret the agent uses, read. */
      readonly secrets: ReadonlyMap<string, string>;
    })
  | (TargetBase & { readonly kind: 'case'; readonly testFile: string; readonly testCase: TestCase });

/** A file's text, or why it cannot be read (in words naming the file). */
export type TextReader = (file: string, kind: ParsedFileKind) => { text: string } | { error: string };

export interface LaunchSources {
  readonly cwd: string;
  /**
   * Where the agent and test files' text comes from: an editor gives its unsaved text, as its runs
   * do (default: the files on disk).
   */
  readonly readText?: TextReader;
  /** Where secrets not in the configuration come from (the environment in `agent-workflows dap`). */
  readonly secrets: SecretResolver;
  /** How to provide a missing secret, for the error (e.g. "set AGENT_SECRET_NAME"). */
  readonly secretHint: (name: string) => string;
  /**
   * Files of "files" are read only inside `cwd` (a launch configuration may be someone else's),
   * or inside these folders the user allowed, or when the user chose them in a file picker.
   */
  readonly allowedFolders?: readonly string[];
  readonly chosenFiles?: readonly string[];
  /** How to allow a refused file's folder, for the error. */
  readonly allowHint?: (refusal: FileRefusal) => string | undefined;
}

const LAUNCH_HINTS: InputHints = {
  value: (name) => `give it in "inputs" of the launch configuration: "inputs": { "${name}": … }`,
  file: (name) => `give its path in "files" of the launch configuration: "files": { "${name}": "path" }`,
  fileNotValue: (name) => `"${name}" is a file input: give its path in "files", not in "inputs"`,
  valueNotFile: (name) => `"${name}" takes a value: give it in "inputs", not in "files"`,
};

export async function resolveLaunch(args: AgentLaunchArguments, sources: LaunchSources): Promise<DebugTarget> {
  const cwd = typeof args.cwd === 'string' && args.cwd !== '' ? resolve(sources.cwd, args.cwd) : sources.cwd;
  const stopOnEntry = args.stopOnEntry === true;
  if (args.stopOnEntry !== undefined && typeof args.stopOnEntry !== 'boolean')
    throw new LaunchError('"stopOnEntry" must be true or false.');
  const read = sources.readText ?? readText;
  if (args.testCase !== undefined) return resolveCase(args, cwd, stopOnEntry, read);
  if (typeof args.program !== 'string' || args.program.trim() === '')
    throw new LaunchError('The launch configuration needs "program": the path of the .agent.yaml file to debug.');
  const agentFile = absolute(cwd, args.program);
  const agentText = read(agentFile, 'agent');
  if ('error' in agentText) throw new LaunchError(`The agent file cannot be read: ${agentText.error}`);
  const agent = loadAgentOrRefuse(agentText.text, agentFile);
  const values = objectOf(args.inputs, 'inputs');
  const files = objectOf(args.files, 'files');
  for (const [name, path] of Object.entries(files))
    if (typeof path !== 'string') throw new LaunchError(`"files"."${name}" must be a path (text).`);
  // Relative to the configuration's "cwd", but never outside the folder it belongs to: its own
  // "cwd" cannot widen where files come from.
  const checked = await checkNamedFiles(
    Object.fromEntries(Object.entries(files).map(([name, path]) => [name, relative(sources.cwd, absolute(cwd, path as string)) || '.'])),
    {
      folder: sources.cwd,
      ...(sources.allowedFolders ? { allowedFolders: sources.allowedFolders } : {}),
      ...(sources.chosenFiles ? { chosenFiles: sources.chosenFiles } : {}),
    },
  );
  if (!checked.ok)
    throw new LaunchError(
      checked.refused
        .map(({ input, refusal }) => {
          const hint = refusal.allowFolder !== undefined ? sources.allowHint?.(refusal) : undefined;
          const given = { ...refusal, given: String(files[input]) };
          return `The file for input "${input}" is not read: ${describeFileRefusal(given, 'launch configuration')}${hint ? `; ${hint}` : ''}.`;
        })
        .join(' '),
    );
  let inputs: ResolvedInputs;
  try {
    const paths = Object.fromEntries(Object.entries(checked.files).map(([name, file]) => [name, file.path]));
    inputs = resolveInputs(agent.model, { values, files: await filesFromPaths(paths) }, LAUNCH_HINTS);
  } catch (error) {
    if (error instanceof InputError) throw new LaunchError(`The inputs cannot be used: ${error.problems.join(' ')}`);
    throw error;
  }
  const secrets = await readSecrets(agent, objectOf(args.secrets, 'secrets'), sources);
  return { kind: 'agent', agentFile, text: agentText.text, agent, inputs, secrets, stopOnEntry };
}

function resolveCase(args: AgentLaunchArguments, cwd: string, stopOnEntry: boolean, read: TextReader): DebugTarget {
  const spec = args.testCase;
  const hash = typeof spec === 'string' ? spec.indexOf('#') : -1;
  if (typeof spec !== 'string' || hash <= 0 || hash === spec.length - 1)
    throw new LaunchError('"testCase" must be "file.agent.test.yaml#case name": the test file, "#", and the name of one of its cases.');
  const testFile = absolute(cwd, spec.slice(0, hash));
  const name = spec.slice(hash + 1);
  const testText = read(testFile, 'test');
  if ('error' in testText) throw new LaunchError(`The test file cannot run: ${testText.error}`);
  const loaded = loadSuiteFromText(testFile, testText.text, (agentFile) => read(agentFile, 'agent'));
  if (!('suite' in loaded)) {
    const problems = loaded.problems
      .filter((problem) => problem.severity === 'error')
      .slice(0, 5)
      .map((problem) => `\n${testFile}:${problem.range.line}:${problem.range.column}: ${problem.code} ${problem.message}`);
    throw new LaunchError(`The test file cannot run: ${loaded.message}${problems.join('')}`);
  }
  const testCase = loaded.suite.cases.find((candidate) => candidate.name === name);
  if (!testCase) {
    const names = loaded.suite.cases.map((candidate) => `"${candidate.name}"`);
    throw new LaunchError(
      `${testFile} has no case named "${name}". Its cases: ${names.slice(0, 10).join(', ')}${names.length > 10 ? `, … ${names.length - 10} more` : ''}.`,
    );
  }
  if (typeof args.program === 'string' && args.program !== '' && absolute(cwd, args.program) !== loaded.agentFile)
    throw new LaunchError(
      `The case tests ${loaded.agentFile}, not "program" ${absolute(cwd, args.program)}: leave "program" out or make them the same.`,
    );
  const agentText = read(loaded.agentFile, 'agent');
  if ('error' in agentText) throw new LaunchError(`The agent file cannot be read: ${agentText.error}`);
  return { kind: 'case', agentFile: loaded.agentFile, text: agentText.text, agent: loaded.agent, testFile, testCase, stopOnEntry };
}

function loadAgentOrRefuse(text: string, agentFile: string): LoadedAgent {
  try {
    return loadAgent(text, agentFile);
  } catch (error) {
    if (error instanceof AgentFileError) throw new LaunchError(error.message);
    throw error;
  }
}

/** Every secret the agent uses: from the configuration, else from the adapter's resolver; all missing ones named. */
async function readSecrets(
  agent: LoadedAgent,
  given: Readonly<Record<string, unknown>>,
  sources: LaunchSources,
): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  const missing: string[] = [];
  for (const name of agent.plan.secretNames) {
    const configured = given[name];
    let value: string | undefined;
    try {
      value = typeof configured === 'string' && configured !== '' ? configured : await sources.secrets(name);
    } catch (error) {
      throw new LaunchError(`Secret "${name}" could not be read: ${errorMessage(error)}.`);
    }
    if (value === undefined || value === '') missing.push(`Secret "${name}" is not set: ${sources.secretHint(name)}.`);
    else values.set(name, value);
  }
  if (missing.length)
    throw new LaunchError(
      `The agent uses ${missing.length === 1 ? 'a secret that is' : 'secrets that are'} not available. ${missing.join(' ')}`,
    );
  return values;
}

function objectOf(value: unknown, field: string): Readonly<Record<string, unknown>> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new LaunchError(`"${field}" must be an object of names and values.`);
  return value as Record<string, unknown>;
}

function absolute(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}
