// A test file with its agent, read and checked: the test file against the agent it names (read
// from disk beside it, or given by an editor). No running here, so the language worker, which
// lists the cases for the Test Explorer, loads no HTTP client or engine.
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { AgentFileError, loadAgent } from '../engine/agentPlan';
import type { LoadedAgent } from '../engine/agentPlan';
import { AGENT_FILE } from '../document/agentFiles';
import type { ParsedFileKind } from '../document/parse';
import { readTextFileSync } from '../document/readTextFile';
import type { Problem } from '../document/problems';
import { validateTestText } from './testFile';
import type { TestSuite } from './testFile';

export interface LoadedSuite {
  readonly testFile: string;
  readonly text: string;
  /** The file starts with a byte-order mark (not part of `text`), which a writer of the file keeps. */
  readonly byteOrderMark?: true;
  /** The agent file, as an absolute path. */
  readonly agentFile: string;
  readonly suite: TestSuite;
  readonly agent: LoadedAgent;
  /** Warnings and infos of the test file (it has no errors). */
  readonly problems: readonly Problem[];
}

/** Why a test file cannot run: its own problems, or its agent's, or a file that cannot be read. */
export interface SuiteLoadFailure {
  readonly testFile: string;
  readonly message: string;
  /** Problems of the test file, when it was read. */
  readonly problems: readonly Problem[];
  readonly text?: string;
  /** The cases as far as they could be read, for an editor to list them (they do not run). */
  readonly readSuite?: TestSuite;
}

/** Reads a test file and its agent from disk and checks both; never throws for bad files. */
export function loadSuite(testFile: string): LoadedSuite | SuiteLoadFailure {
  const read = readText(testFile, 'test');
  if ('error' in read) return { testFile, message: read.error, problems: [] };
  const loaded = loadSuiteFromText(testFile, read.text);
  return read.byteOrderMark && 'suite' in loaded ? { ...loaded, byteOrderMark: true } : loaded;
}

/**
 * Checks a test file's text (an editor's unsaved text, say) and its agent; the agent's text comes
 * from `readAgent` (given its absolute path; from disk by default), so an editor can give its own.
 * A reader that refuses the agent's place (`outside`) has its folder left unlisted too.
 */
export function loadSuiteFromText(
  testFile: string,
  text: string,
  readAgent: (agentFile: string) => { text: string } | { error: string; outside?: true } = readText,
): LoadedSuite | SuiteLoadFailure {
  let agentFile = '';
  let agent: LoadedAgent | undefined;
  let agentFailure: string | undefined;
  let agentBroken: string | undefined;
  const result = validateTestText(text, basename(testFile), (agentPath) => {
    agentFile = resolve(dirname(testFile), agentPath);
    const agentRead = readAgent(agentFile);
    if ('error' in agentRead) {
      agentFailure = `The agent under test cannot be read: ${agentRead.error}`;
      // The test file reports it at its agent: line, with the agent file it may have meant.
      return { unreadable: agentRead.error, agentFilesThere: 'outside' in agentRead ? [] : agentFilesIn(dirname(agentFile)) };
    }
    try {
      const shown = relative(process.cwd(), agentFile);
      agent = loadAgent(agentRead.text, shown.startsWith('..') ? agentFile : shown);
      return agent.model;
    } catch (error) {
      if (!(error instanceof AgentFileError)) throw error;
      agentFailure = agentBroken = `The agent under test has problems: ${error.message}`;
      return error.model;
    }
  });
  const errors = result.problems.filter((problem) => problem.severity === 'error');
  if (errors.length > 0)
    return {
      testFile,
      // An agent that cannot be read is one of the problems (unknown-agent); one with errors of its own is said here.
      message: `${errors.length} ${errors.length === 1 ? 'problem' : 'problems'} in the test file${agentBroken ? `. ${agentBroken}` : ''}`,
      problems: result.problems,
      text,
      ...(result.suite ? { readSuite: result.suite } : {}),
    };
  if (agentFailure || !agent || !result.suite)
    return {
      testFile,
      message: agentFailure ?? 'The test file has no cases.',
      problems: result.problems,
      text,
      ...(result.suite ? { readSuite: result.suite } : {}),
    };
  return { testFile, text, agentFile, suite: result.suite, agent, problems: result.problems };
}

/** The names of the agent files in a folder, for a misspelt agent: path; none when it cannot be listed. */
function agentFilesIn(folder: string): string[] {
  try {
    // Only what can be read: a directory or a FIFO named like an agent file is no suggestion.
    return readdirSync(folder, { withFileTypes: true })
      .filter(
        (entry) => AGENT_FILE.test(entry.name) && (entry.isFile() || (entry.isSymbolicLink() && isRegularFile(join(folder, entry.name)))),
      )
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * A file's text from disk, decoded as agent files (and test files) are; what cannot be read, in
 * words naming the file. Bounded before reading: only a regular file of at most MAX_FILE_BYTES is read.
 */
export function readText(file: string, kind: ParsedFileKind = 'agent'): { text: string; byteOrderMark?: true } | { error: string } {
  const read = readTextFileSync(file, { kind });
  return 'text' in read ? read : { error: `${file}: ${read.error}` };
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
