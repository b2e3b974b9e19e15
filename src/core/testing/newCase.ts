// A new test case written from an execution that happened ("New Test Case from This Execution"):
// its inputs as the case's inputs, its outputs as expect.outputs, a mock stub for every API node
// with the status it got, and a test value for every secret the file's defaults do not give.
// Appended to the test file's text (created when there is none) through the yaml library, so the
// file's comments and layout stay.
import { isMap, parseDocument } from 'yaml';
import type { Document, Scalar, YAMLMap } from 'yaml';
import { entries } from '../document/yamlAst';
import { literalOutputs } from './matchers';

export interface CaseFromExecution {
  /** The case's name; " (2)", " (3)"… is added when the file has one of that name. */
  readonly name: string;
  /** The agent file's base name, written as `agent:` in a new file. */
  readonly agentFileName: string;
  readonly inputs: Readonly<Record<string, unknown>>;
  /** File inputs: paths relative to the test file. */
  readonly files: Readonly<Record<string, string>>;
  readonly outputs: Readonly<Record<string, unknown>>;
  /** The agent's API nodes, each with the HTTP status it got in the execution, when known. */
  readonly apiNodes: ReadonlyArray<{ readonly node: string; readonly status?: number }>;
  readonly secretNames: readonly string[];
}

export interface WrittenCase {
  readonly text: string;
  /** The name the case got. */
  readonly name: string;
  /** Where the case's key starts in `text`. */
  readonly offset: number;
}

/** Thrown when the existing test file cannot take a case (it is not YAML, or cases is not a mapping). */
export class NewCaseError extends Error {
  override readonly name = 'NewCaseError';
}

const MOCK_COMMENT = ' Fill in what the API answered: the body below is a stub (the execution kept no response bodies).';

export function appendCaseFromExecution(existing: string | undefined, testCase: CaseFromExecution): WrittenCase {
  const blank = existing === undefined || existing.trim() === '';
  // uniqueKeys off: yaml's own check compares each key with every other, quadratic in the cases.
  const doc: Document = blank
    ? parseDocument(`agent: ${JSON.stringify(testCase.agentFileName)}\ncases: {}\n`)
    : parseDocument(existing, { uniqueKeys: false });
  if (doc.errors.length > 0)
    throw new NewCaseError(
      `The test file is not valid YAML (${doc.errors[0]?.message.split('\n')[0] ?? 'syntax error'}); fix it, then add the case again.`,
    );
  if (!isMap(doc.contents))
    throw new NewCaseError('The test file is not a mapping with "agent" and "cases"; fix it, then add the case again.');
  let cases = doc.get('cases', true);
  if (cases === undefined || cases === null || (isMap(cases) && cases.items.length === 0)) {
    cases = doc.createNode({});
    doc.set('cases', cases);
  }
  if (!isMap(cases))
    throw new NewCaseError('"cases" in the test file is not a mapping of case names to cases; fix it, then add the case again.');
  const casesMap = cases as YAMLMap;
  casesMap.flow = false;
  const taken = new Set([...entries(casesMap)].map((entry) => entry.key));
  let name = testCase.name;
  for (let n = 2; taken.has(name); n++) name = `${testCase.name} (${n})`;

  const body: Record<string, unknown> = {};
  if (Object.keys(testCase.inputs).length) body.inputs = testCase.inputs;
  if (Object.keys(testCase.files).length) body.files = testCase.files;
  // A secret the file's defaults give a test value already needs none of its own.
  const defaultSecrets = doc.getIn(['defaults', 'secrets'], true);
  const given = new Set(isMap(defaultSecrets) ? [...entries(defaultSecrets)].map((entry) => entry.key) : []);
  const secretNames = testCase.secretNames.filter((secret) => !given.has(secret));
  if (secretNames.length)
    body.secrets = Object.fromEntries(secretNames.map((secret) => [secret, `test-${secret.toLowerCase().replace(/_/g, '-')}`]));
  if (testCase.apiNodes.length)
    body.mocks = Object.fromEntries(testCase.apiNodes.map(({ node, status }) => [node, { status: status ?? 200, body: {} }]));
  // As expectations that they equal: a mapping with `$` keys goes under $eq.
  body.expect = { outputs: literalOutputs(testCase.outputs) };
  const caseNode = doc.createNode(body) as YAMLMap;
  const mocks = caseNode.get('mocks', true);
  if (isMap(mocks)) {
    for (const pair of mocks.items) (pair.key as Scalar).commentBefore = MOCK_COMMENT;
  }
  casesMap.set(doc.createNode(name), caseNode);

  const text = doc.toString({ lineWidth: 0 });
  const written = parseDocument(text, { uniqueKeys: false }).get('cases', true);
  const key = isMap(written) ? [...entries(written)].find((entry) => entry.key === name)?.keyNode : undefined;
  return { text, name, offset: key?.range?.[0] ?? text.length };
}
