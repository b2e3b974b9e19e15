// Reads and checks an agent test file (NAME.agent.test.yaml): the YAML with the limits agent files
// have, its JSON Schema, the expectations' operators, and, given the agent under test, every name
// the cases use (inputs, files, nodes, outputs) and a mock for every API node of a case that is
// not live. Pure and synchronous, like agent validation: the same problems in the editor and CLI.
import { basename } from 'node:path';
import { isAlias, isMap, isScalar, visit } from 'yaml';
import type { Alias, Document, Node as YamlNode, YAMLMap } from 'yaml';
import { AGENT_FILE } from '../document/agentFileName';
import type { AgentModel } from '../document/model';
import { parseAgentFile } from '../document/parse';
import type { ParsedAgentFile } from '../document/parse';
import type { ProblemSink } from '../document/problemSink';
import type { Problem, Span } from '../document/problems';
import { scanExpressions } from '../document/expressions';
import { checkSchema } from '../validation/schemaCheck';
import type { SchemaRules } from '../validation/schemaCheck';
import { closestMatch, listSomeWords, listWords } from '../document/suggest';
import { entries, findPair, getValue, isStringScalar, spanOf } from '../document/yamlAst';
import type { PathSegment } from '../document/yamlAst';
import validateAgentTestSchema from './agentTestSchemaValidator.generated';
import { compileMatcher } from './matchers';
import { defaultAgentPath } from './testFileName';
import type { Matcher } from './matchers';
import type { BodyPathExpectation, CaseExpectations, MockAnswer, NodeExpectations, RequestExpectations, TestCase } from './testModel';
import { parseValuePath } from './valuePath';

export interface TestSuite {
  /** The agent file as the test file names it (agent:), or as its own name implies. */
  readonly agentPath: string;
  /** Where the agent is named: the agent: value, or the file's start. */
  readonly agentSpan: Span;
  readonly cases: readonly TestCase[];
}

export interface TestFileResult {
  readonly problems: Problem[];
  readonly file: ParsedAgentFile;
  /** The cases, when the file could be read (with problems, its cases are not run). */
  readonly suite?: TestSuite;
}

/** The agent under test could not be read: why, and the agent files beside it that it may have meant. */
export interface UnreadableAgent {
  /** Why, in words (the file does not exist, cannot be read, is not text). */
  readonly unreadable: string;
  /** The names of the agent files in the folder the path points into (empty when it cannot be listed). */
  readonly agentFilesThere: readonly string[];
}

const TEST_SCHEMA: SchemaRules = { validate: validateAgentTestSchema, describePath: describeTestPath };

/**
 * Reads a test file. `fileName` (the base name) gives the default agent; with `agent` (the
 * declarations of the agent under test, or how to get them from the agent's path as the file
 * names it), the names the cases use are checked against it, and an agent that cannot be read is
 * a problem where the file names it.
 */
export function validateTestText(
  text: string,
  fileName: string,
  agent?: AgentModel | ((agentPath: string) => AgentModel | UnreadableAgent | undefined),
): TestFileResult {
  const file = parseAgentFile(text, 'test');
  const { sink, root } = file;
  if (file.syntaxBroken || !root) return { problems: sink.result(), file };
  checkSchema(root, file.value, sink, TEST_SCHEMA);
  if (file.document) reportAliases(file.document, root, sink);
  const agentNode = getValue(root, 'agent');
  const agentPath = isStringScalar(agentNode) ? agentNode.value : defaultAgentPath(fileName);
  const report = (at: Span, message: string): void => sink.add('invalid-expectation', at, message);
  const defaultsNode = getValue(root, 'defaults');
  const defaults = isMap(defaultsNode) ? { data: readCaseData(defaultsNode, report), map: defaultsNode } : undefined;
  const cases: Array<{ testCase: TestCase; own: CaseData; map: YAMLMap }> = [];
  const casesMap = getValue(root, 'cases');
  if (isMap(casesMap)) {
    for (const { key, keyNode, value } of entries(casesMap)) {
      if (!isMap(value)) continue;
      const own = readCaseData(value, report);
      cases.push({ testCase: readCase(key, spanOf(keyNode), value, own, defaults?.data, report), own, map: value });
    }
  }
  const agentSpan = agentNode ? spanOf(agentNode) : { start: 0, end: 0 };
  // An agent: the schema refused (not a *.agent.yaml path) has its problem already, and is not
  // read: it may name /dev/zero or a FIFO.
  const agentRefused = agentNode !== undefined && !(isStringScalar(agentNode) && AGENT_FILE.test(agentNode.value));
  const found = agentRefused ? undefined : typeof agent === 'function' ? agent(agentPath) : agent;
  if (found && 'unreadable' in found) reportUnreadableAgent(found, agentPath, isStringScalar(agentNode) ? agentSpan : undefined, sink);
  const model = found && 'unreadable' in found ? undefined : found;
  if (model) {
    // The agent's secrets, listed once for every case (sorted, for messages).
    const secrets = [...secretsUsedBy(model)].sort();
    // Names under defaults are checked once, where they are written, not again for every case.
    if (defaults)
      checkNames(
        defaults.data,
        defaults.map,
        spanOf((findPair(root, 'defaults')?.key as YamlNode | undefined) ?? defaultsNode),
        model,
        secrets,
        sink,
      );
    for (const { testCase, own, map } of cases) {
      checkNames(own, map, testCase.span, model, secrets, sink);
      checkAgainstAgent(testCase, map, model, sink);
    }
  }
  const suite = { agentPath, agentSpan, cases: cases.map((entry) => entry.testCase) };
  return { problems: sink.result(), file, suite };
}

/**
 * Every alias (*name) of the file: the cases are read from the nodes as written (an alias node is
 * none of them: a case `name: *other` would not be listed nor run, `outputs: *shared` not read),
 * and --update writes into those nodes. One pass over the document.
 */
function reportAliases(document: Document.Parsed, root: YAMLMap, sink: ProblemSink): void {
  const casesMap = getValue(root, 'cases');
  const caseAliases = new Map<Alias, string>();
  if (isMap(casesMap)) for (const { key, value } of entries(casesMap)) if (isAlias(value)) caseAliases.set(value, key);
  const share = 'put what cases share (inputs, files, secrets, mocks) under "defaults:"';
  visit(document, {
    Alias(_key, alias) {
      if (sink.full) return visit.BREAK;
      const caseName = caseAliases.get(alias);
      // An anchor's name may be as long as the file: the message names its start.
      const name = alias.source.length > 60 ? `${alias.source.slice(0, 60)}…` : alias.source;
      sink.add(
        'test-file-alias',
        spanOf(alias),
        caseName !== undefined
          ? `Case "${caseName}" is written as the alias *${name}, and test files read no aliases: the case would not run. Write the case out, and ${share}.`
          : `The alias *${name} stands for a value written elsewhere, and test files read no aliases: write the value out, and ${share}.`,
      );
      return undefined;
    },
  });
}

/**
 * An agent under test that cannot be read, at the agent: value (`named`), or at the file's start
 * when the test file's own name implies it; with the agent file of that folder it may have meant.
 */
function reportUnreadableAgent(agent: UnreadableAgent, agentPath: string, named: Span | undefined, sink: ProblemSink): void {
  const name = basename(agentPath);
  // Names are compared without .agent.yaml, which every one ends in: "greet.agent.yml" means
  // greet.agent.yaml, and "other" does not look like "greet" for their common ending.
  const stem = (file: string): string => file.replace(AGENT_FILE, '');
  const stems = agent.agentFilesThere.map(stem);
  const sameStem = agent.agentFilesThere.find((file) => file !== name && stem(file) === stem(name));
  const closeStem = closestMatch(stem(name), stems);
  const suggestion = sameStem ?? (closeStem === undefined ? undefined : agent.agentFilesThere[stems.indexOf(closeStem)]);
  // The suggestion keeps the folder part of the path as written.
  const replacement = suggestion === undefined ? undefined : agentPath.slice(0, agentPath.length - name.length) + suggestion;
  const others = agent.agentFilesThere.filter((file) => file !== name);
  const hint =
    replacement !== undefined
      ? ` Did you mean "${replacement}"?`
      : others.length
        ? ` Agent files in that folder: ${listSomeWords(others, others.length, 'and')}.`
        : '';
  const fix = named
    ? ' Write the path of the agent file, relative to this test file, after "agent:".'
    : ` Add "agent: ${replacement ?? 'PATH'}" naming the agent file, relative to this test file, or rename this file after its agent.`;
  sink.add(
    'unknown-agent',
    named ?? { start: 0, end: 0 },
    named
      ? `The agent under test, "${agentPath}", cannot be read: ${agent.unreadable}${hint}${fix}`
      : `This file tests "${agentPath}" (its own name without .test), which cannot be read: ${agent.unreadable}${hint}${fix}`,
    named && replacement !== undefined ? { data: { replacement } } : {},
  );
}

/** What a case gives the agent: under a case, its own; under defaults:, what every case starts from. */
interface CaseData {
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly files: Readonly<Record<string, string>>;
  readonly secrets: Readonly<Record<string, string>>;
  readonly mocks: ReadonlyMap<string, MockAnswer>;
}

function readCaseData(map: YAMLMap, report: (at: Span, message: string) => void): CaseData {
  const mocks = new Map<string, MockAnswer>();
  const mocksMap = getValue(map, 'mocks');
  if (isMap(mocksMap)) {
    for (const { key, keyNode, value } of entries(mocksMap)) {
      if (!isMap(value)) continue;
      const plain = (value.toJSON() ?? {}) as Record<string, unknown>;
      const expectRequest = getValue(value, 'expect_request');
      mocks.set(key, {
        node: key,
        span: spanOf(keyNode),
        status: typeof plain.status === 'number' ? plain.status : 200,
        headers: lowerCaseKeys(plain.headers),
        body: plain.body,
        delayMs: typeof plain.delay_ms === 'number' ? plain.delay_ms : 0,
        ...(isMap(expectRequest) ? { expectRequest: readRequestExpectations(expectRequest, report) } : {}),
      });
    }
  }
  return {
    inputs: plainRecord(getValue(map, 'inputs')),
    files: stringRecord(getValue(map, 'files')),
    secrets: stringRecord(getValue(map, 'secrets')),
    mocks,
  };
}

/** A case: its own inputs, files, secrets and mocks over the defaults (a mock replaces a default one whole). */
function readCase(
  name: string,
  span: Span,
  map: YAMLMap,
  own: CaseData,
  defaults: CaseData | undefined,
  report: (at: Span, message: string) => void,
): TestCase {
  const expectMap = getValue(map, 'expect');
  return {
    name,
    span,
    inputs: defaults ? { ...defaults.inputs, ...own.inputs } : own.inputs,
    files: defaults ? { ...defaults.files, ...own.files } : own.files,
    secrets: defaults ? { ...defaults.secrets, ...own.secrets } : own.secrets,
    mocks: defaults ? new Map([...defaults.mocks, ...own.mocks]) : own.mocks,
    expect: isMap(expectMap) ? readExpectations(expectMap, report) : {},
    snapshot: getValue(map, 'snapshot')?.toJSON() === true,
    live: getValue(map, 'live')?.toJSON() === true,
    deployed: getValue(map, 'deployed')?.toJSON() === true,
  };
}

function readExpectations(map: YAMLMap, report: (at: Span, message: string) => void): CaseExpectations {
  const outputs = getValue(map, 'outputs');
  const nodes = getValue(map, 'nodes');
  const failsAt = getValue(map, 'fails_at');
  const error = getValue(map, 'error');
  const withinMs = getValue(map, 'within_ms');
  const nodeExpectations = new Map<string, NodeExpectations>();
  if (isMap(nodes)) {
    for (const { key, keyNode, value } of entries(nodes)) {
      if (!isMap(value)) continue;
      const status = getValue(value, 'status');
      const body = getValue(value, 'body');
      const headers = getValue(value, 'headers');
      const bodyPaths = getValue(value, 'body_paths');
      nodeExpectations.set(key, {
        span: spanOf(keyNode),
        ...(status !== undefined ? { status: compileMatcher(status, report) } : {}),
        ...(body !== undefined ? { body: compileMatcher(body, report) } : {}),
        ...(isMap(headers) ? { headers: matchersByKey(headers, report, true) } : {}),
        ...(isMap(bodyPaths) ? { bodyPaths: readBodyPaths(bodyPaths, report) } : {}),
      });
    }
  }
  return {
    ...(isMap(outputs) ? { outputs: matchersByKey(outputs, report), outputsSpan: spanOf(outputs) } : {}),
    ...(nodeExpectations.size ? { nodes: nodeExpectations } : {}),
    ...(isStringScalar(failsAt) ? { failsAt: { node: failsAt.value, span: spanOf(failsAt) } } : {}),
    ...(error !== undefined ? { error: compileMatcher(error, report) } : {}),
    ...(isScalar(withinMs) && typeof withinMs.value === 'number' ? { withinMs: { ms: withinMs.value, span: spanOf(withinMs) } } : {}),
  };
}

/** `body_paths`: an expectation per path into the body; a path that cannot be read is reported at its key. */
function readBodyPaths(map: YAMLMap, report: (at: Span, message: string) => void): BodyPathExpectation[] {
  const found: BodyPathExpectation[] = [];
  for (const { key, keyNode, value } of entries(map)) {
    const path = parseValuePath(key);
    if (!path) {
      report(
        spanOf(keyNode),
        `"${key}" is not a path into the body. Write keys and list positions as in expressions: items[0].title, meta.total, ["a key"].`,
      );
      continue;
    }
    found.push({ text: key, path, matcher: compileMatcher(value, report) });
  }
  return found;
}

function readRequestExpectations(map: YAMLMap, report: (at: Span, message: string) => void): RequestExpectations {
  const method = getValue(map, 'method');
  const url = getValue(map, 'url');
  const headers = getValue(map, 'headers');
  const body = getValue(map, 'body');
  return {
    ...(method !== undefined ? { method: compileMatcher(method, report) } : {}),
    ...(url !== undefined ? { url: compileMatcher(url, report) } : {}),
    ...(isMap(headers) ? { headers: matchersByKey(headers, report, true) } : {}),
    ...(body !== undefined ? { body: compileMatcher(body, report) } : {}),
  };
}

function matchersByKey(map: YAMLMap, report: (at: Span, message: string) => void, lowerCase = false): Map<string, Matcher> {
  return new Map([...entries(map)].map(({ key, value }) => [lowerCase ? key.toLowerCase() : key, compileMatcher(value, report)]));
}

/** The inputs, files and mocked nodes a case (or defaults:) names, against the agent's declarations. */
function checkNames(data: CaseData, map: YAMLMap, ownerSpan: Span, agent: AgentModel, secrets: readonly string[], sink: ProblemSink): void {
  const keySpan = (section: string, key: string): Span => {
    const sectionMap = getValue(map, section);
    const pair = isMap(sectionMap) ? [...entries(sectionMap)].find((entry) => entry.key === key) : undefined;
    return pair ? spanOf(pair.keyNode) : ownerSpan;
  };
  const inputNames = [...agent.inputs.keys()];
  for (const [section, names] of [
    ['inputs', Object.keys(data.inputs)],
    ['files', Object.keys(data.files)],
  ] as const) {
    for (const name of names) {
      const input = agent.inputs.get(name);
      if (!input) {
        const suggestion = closestMatch(name, inputNames);
        sink.add(
          'unknown-input',
          keySpan(section, name),
          `The agent has no input "${name}".${suggestion ? ` Did you mean "${suggestion}"?` : inputNames.length ? ` Its inputs: ${listWords(inputNames, 'and')}.` : ' It declares no inputs.'}`,
          suggestion ? { data: { replacement: suggestion } } : {},
        );
      } else if (section === 'files' && input.type !== 'file') {
        sink.add(
          'invalid-value',
          keySpan(section, name),
          `Input "${name}" is of type ${input.type ?? 'string'}, not file: give its value under inputs.`,
        );
      } else if (section === 'inputs' && input.type === 'file') {
        sink.add(
          'invalid-value',
          keySpan(section, name),
          `Input "${name}" is a file: give the file's path, relative to this test file, under files.`,
        );
      }
    }
  }
  for (const name of Object.keys(data.secrets)) {
    if (secrets.includes(name)) continue;
    const suggestion = closestMatch(name, secrets);
    sink.add(
      'unused-secret',
      keySpan('secrets', name),
      `The agent uses no secret "${name}", so this value is never read.${suggestion ? ` Did you mean "${suggestion}"?` : secrets.length ? ` It uses ${listWords(secrets, 'and')}.` : ' It uses no secrets.'}`,
      suggestion ? { data: { replacement: suggestion } } : {},
    );
  }
  for (const mock of data.mocks.values()) {
    const node = agent.nodes.get(mock.node);
    if (!node) unknownNode(agent, sink, mock.span, mock.node, 'A mock');
    else if (node.type !== 'api')
      sink.add(
        'invalid-value',
        mock.span,
        `Node "${mock.node}" renders text (${node.type ?? 'no type'}); only API nodes call an API and can be mocked.`,
      );
  }
}

function unknownNode(agent: AgentModel, sink: ProblemSink, span: Span, id: string, what: string): void {
  const nodeIds = [...agent.nodes.keys()];
  const suggestion = closestMatch(id, nodeIds);
  sink.add(
    'unknown-node',
    span,
    `${what} names node "${id}", which the agent does not have.${suggestion ? ` Did you mean "${suggestion}"?` : nodeIds.length ? ` Its nodes: ${listWords(nodeIds, 'and')}.` : ''}`,
    suggestion ? { data: { replacement: suggestion } } : {},
  );
}

/** A mock for every API node of a case unless live (its own or a default one), and what it expects. */
function checkAgainstAgent(testCase: TestCase, caseMap: YAMLMap, agent: AgentModel, sink: ProblemSink): void {
  // A deployed case calls no mock: the service runs the agent with its real APIs.
  if (!testCase.live && !testCase.deployed) {
    const unmocked = [...agent.nodes.values()].filter((node) => node.type === 'api' && !testCase.mocks.has(node.id)).map((node) => node.id);
    if (unmocked.length) {
      sink.add(
        'missing-mock',
        testCase.span,
        `Case "${testCase.name}" has no mock for API node${unmocked.length === 1 ? '' : 's'} ${listWords(unmocked, 'and')}: add ${unmocked.length === 1 ? 'one' : 'them'} under mocks (nothing leaves the machine in a local test), or set "live: true" to call the real API${unmocked.length === 1 ? '' : 's'}.`,
        { data: { nodes: unmocked.join(',') } },
      );
    }
  }
  const expectMap = getValue(caseMap, 'expect');
  const expectKeySpan = (section: string, key: string): Span => {
    const sectionMap = isMap(expectMap) ? getValue(expectMap, section) : undefined;
    const pair = isMap(sectionMap) ? [...entries(sectionMap)].find((entry) => entry.key === key) : undefined;
    return pair ? spanOf(pair.keyNode) : testCase.span;
  };
  const outputNames = [...agent.outputs.keys()];
  for (const name of testCase.expect.outputs?.keys() ?? []) {
    if (agent.outputs.has(name)) continue;
    const suggestion = closestMatch(name, outputNames);
    sink.add(
      'unknown-output',
      expectKeySpan('outputs', name),
      `The agent has no output "${name}".${suggestion ? ` Did you mean "${suggestion}"?` : outputNames.length ? ` Its outputs: ${listWords(outputNames, 'and')}.` : ' It declares no outputs.'}`,
      suggestion ? { data: { replacement: suggestion } } : {},
    );
  }
  for (const id of testCase.expect.nodes?.keys() ?? [])
    if (!agent.nodes.has(id)) unknownNode(agent, sink, expectKeySpan('nodes', id), id, 'An expectation');
  const failsAt = testCase.expect.failsAt;
  if (failsAt && !agent.nodes.has(failsAt.node)) unknownNode(agent, sink, failsAt.span, failsAt.node, 'fails_at');
}

/**
 * A place in a test file in words, for the schema's messages, which capitalize it: it starts with
 * a word of prose or a quote, never with a key or a name (a node "hello" is not "Hello").
 */
export function describeTestPath(path: readonly PathSegment[]): string {
  if (path.length === 0) return 'the test file';
  if (path[0] === 'defaults') return describeCasePath('the defaults', path.slice(1));
  const [section, name, ...inCase] = path;
  if (section !== 'cases') return `"${path.join('.')}"`;
  if (name === undefined) return 'the cases';
  return describeCasePath(`case "${String(name)}"`, inCase);
}

/** The sections of a case that hold entries by name (an input, a mock of a node). */
const NAMED_ENTRIES: Readonly<Record<string, string>> = { inputs: 'input', files: 'file', secrets: 'secret', mocks: 'the mock of node' };
/** The sections of expect: that hold expectations by name. */
const NAMED_EXPECTATIONS: Readonly<Record<string, string>> = { outputs: 'the expectation on output', nodes: 'the expectation on node' };

/** A place inside a case (or the defaults), `owner`, in words. */
function describeCasePath(owner: string, path: readonly PathSegment[]): string {
  const [field, key, ...rest] = path;
  if (field === undefined) return owner;
  if (key === undefined) {
    if (field === 'expect') return `the expect section of ${owner}`;
    return field in NAMED_ENTRIES ? `the ${String(field)} of ${owner}` : `"${String(field)}" in ${owner}`;
  }
  let item: string;
  let inside = rest;
  const entry = NAMED_ENTRIES[String(field)];
  const expectation = field === 'expect' ? NAMED_EXPECTATIONS[String(key)] : undefined;
  if (entry !== undefined) item = `${entry} "${String(key)}"`;
  else if (expectation !== undefined && rest[0] !== undefined) {
    item = `${expectation} "${String(rest[0])}"`;
    inside = rest.slice(1);
  } else item = `"${String(field)}.${String(key)}"`;
  if (inside.length === 0) return `${item} in ${owner}`;
  return `${inside.length === 1 ? `the ${String(inside[0])}` : `"${inside.join('.')}"`} of ${item} in ${owner}`;
}

function plainRecord(node: YamlNode | undefined): Record<string, unknown> {
  const value: unknown = node?.toJSON();
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function stringRecord(node: YamlNode | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(plainRecord(node)).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function lowerCaseKeys(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, text]) => [name.toLowerCase(), String(text)]));
}

/** The secrets an agent reads: every {{ secrets.NAME }} its nodes and outputs evaluate. */
function secretsUsedBy(agent: AgentModel): Set<string> {
  const names = new Set<string>();
  const fields = [
    ...[...agent.nodes.values()].flatMap((node) => node.evaluated),
    ...[...agent.outputs.values()].flatMap((output) => (output.from ? [output.from] : [])),
  ];
  for (const field of fields)
    for (const expression of scanExpressions(field.value)) {
      const name = expression.reference?.root === 'secrets' ? expression.reference.path[0]?.name : undefined;
      if (typeof name === 'string') names.add(name);
    }
  return names;
}
