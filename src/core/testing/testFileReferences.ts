// Find All References and Rename across an agent file and its test files: the names a test file
// uses of its agent (inputs and files, mocked and expected nodes, `fails_at`, expected outputs),
// read from its YAML, so that renaming an input, node or output of an agent renames it in the test
// files that test that agent too, and both features start from either kind of file. Which test
// files test the agent is the caller's to say (it resolves each `agent:` as it compares paths); a
// test file that tests another agent is left alone. One pass over each file.
import { isMap, isScalar } from 'yaml';
import type { Node as YamlNode, YAMLMap } from 'yaml';
import { LineIndex } from '../document/lineIndex';
import { parseAgentFile } from '../document/parse';
import type { Span } from '../document/problems';
import { entries, findPair, spanOf } from '../document/yamlAst';
import { contains, declarationSpan } from '../language/agentIndex';
import type { AgentIndex, DeclarationKind } from '../language/agentIndex';
import { agentReferenceSpans, agentRenameEdits, insideQuotes, RenameError } from '../language/navigation';
import type { FileEdits, FileSpan, TextEdit } from '../language/quickFixes';

/** An input, node or output of an agent, by name. */
export interface AgentName {
  readonly kind: DeclarationKind;
  readonly name: string;
}

/** A place where a test file names an input, node or output of its agent. */
export interface TestFileNameSite extends AgentName {
  /** The name as written, quotes included. */
  readonly span: Span;
  /** The keys of the mapping the name is a key of (none for `fails_at`, a value). */
  readonly siblings?: ReadonlySet<string>;
}

/** The agent file whose name is renamed or looked for, indexed, by the caller's path of it. */
export interface AgentFile {
  readonly path: string;
  readonly index: AgentIndex;
}

/** A test file by the caller's path of it, with the path of the agent its `agent:` names (resolved by the caller). */
export interface TestFileOfAgent {
  readonly path: string;
  readonly text: string;
  readonly agentPath: string;
}

/** Every place a test file names an input, node or output of its agent, in the order written. */
export function testFileNameSites(text: string): TestFileNameSite[] {
  const root = parseAgentFile(text, 'test').root;
  if (!root) return [];
  const sites: TestFileNameSite[] = [];
  const keysOf = (map: YamlNode | null | undefined, kind: DeclarationKind): void => {
    if (!isMap(map)) return;
    const found = [...entries(map)];
    const siblings = new Set(found.map(({ key }) => key));
    for (const { key, keyNode } of found) sites.push({ kind, name: key, span: spanOf(keyNode), siblings });
  };
  // What `defaults:` and a case both hold.
  const givenIn = (owner: YAMLMap): void => {
    keysOf(valueOf(owner, 'inputs'), 'input');
    keysOf(valueOf(owner, 'files'), 'input');
    keysOf(valueOf(owner, 'mocks'), 'node');
  };
  const defaults = valueOf(root, 'defaults');
  if (isMap(defaults)) givenIn(defaults);
  const cases = valueOf(root, 'cases');
  if (!isMap(cases)) return sites;
  for (const { value } of entries(cases)) {
    if (!isMap(value)) continue;
    givenIn(value);
    const expect = valueOf(value, 'expect');
    if (!isMap(expect)) continue;
    keysOf(valueOf(expect, 'outputs'), 'output');
    keysOf(valueOf(expect, 'nodes'), 'node');
    const failsAt = valueOf(expect, 'fails_at');
    if (isScalar(failsAt) && typeof failsAt.value === 'string') sites.push({ kind: 'node', name: failsAt.value, span: spanOf(failsAt) });
  }
  return sites;
}

function valueOf(map: YAMLMap, key: string): YamlNode | null | undefined {
  return findPair(map, key)?.value as YamlNode | null | undefined;
}

/** The name of the agent a test file uses at an offset, or undefined where it names none. */
export function testFileNameAt(text: string, offset: number): TestFileNameSite | undefined {
  return testFileNameSites(text).find((site) => contains(site.span, offset));
}

/** Rename started in a test file: the span to rename (quotes left out) and the name, or a RenameError saying why not. */
export function prepareTestFileRename(text: string, offset: number, agent: AgentIndex): { span: Span; name: string } {
  const site = testFileNameAt(text, offset);
  if (!site) throw new RenameError('Only the names of inputs, files, nodes and outputs of the agent under test can be renamed here.');
  if (!declarationSpan(agent, site.kind, site.name))
    throw new RenameError(`The agent under test has no ${site.kind} "${site.name}" to rename.`);
  return { span: insideQuotes(text, site.span), name: site.name };
}

/**
 * Every place the agent file and its test files name an input, node or output: the declaration
 * (when asked) and the expressions in the agent file, then each test file's names, file by file.
 */
export function crossFileReferences(
  agent: AgentFile,
  name: AgentName | undefined,
  testFiles: readonly TestFileOfAgent[],
  includeDeclaration: boolean,
): FileSpan[] {
  if (!name) return [];
  const found: FileSpan[] = agentReferenceSpans(agent.index, name.kind, name.name, includeDeclaration).map((span) => ({
    path: agent.path,
    span,
  }));
  for (const file of testFilesOf(agent, testFiles))
    for (const site of testFileNameSites(file.text))
      if (site.kind === name.kind && site.name === name.name) found.push({ path: file.path, span: site.span });
  return found;
}

/**
 * The edits of a rename in the agent file and in each of its test files that names it (a file
 * without one has none), each name kept in the quotes it had. A RenameError when the name cannot be
 * renamed: not an input, node or output, not declared, the new name invalid or already taken in the
 * agent, or beside the old name in a test file (two keys of one name).
 */
export function crossFileRename(
  agent: AgentFile,
  name: AgentName | undefined,
  testFiles: readonly TestFileOfAgent[],
  newName: string,
): FileEdits[] {
  if (!name) throw new RenameError('Only input names, node ids and output names can be renamed here.');
  if (!declarationSpan(agent.index, name.kind, name.name)) throw new RenameError(`There is no ${name.kind} "${name.name}" to rename.`);
  const changes: FileEdits[] = [{ path: agent.path, edits: agentRenameEdits(agent.index, name.kind, name.name, newName) }];
  if (newName === name.name) return changes;
  for (const file of testFilesOf(agent, testFiles)) {
    const edits: TextEdit[] = [];
    for (const site of testFileNameSites(file.text)) {
      if (site.kind !== name.kind || site.name !== name.name) continue;
      if (site.siblings?.has(newName))
        throw new RenameError(
          `${file.path} already has "${newName}" beside "${name.name}" (line ${new LineIndex(file.text).position(site.span.start).line}): rename or remove it there first.`,
        );
      edits.push({ span: insideQuotes(file.text, site.span), newText: newName });
    }
    if (edits.length > 0) changes.push({ path: file.path, edits });
  }
  return changes;
}

/** The test files given that test this agent (each once), the agent file itself left out. */
function testFilesOf(agent: AgentFile, testFiles: readonly TestFileOfAgent[]): TestFileOfAgent[] {
  const seen = new Set<string>();
  return testFiles.filter((file) => {
    if (file.agentPath !== agent.path || file.path === agent.path || seen.has(file.path)) return false;
    seen.add(file.path);
    return true;
  });
}
