// The problems of each kind of file, from the same core functions the VS Code extension calls
// (validateAgentText, loadSuiteFromText, parseEnvironmentsFile), and the other files they depend on:
// an agent file's environments file (the nearest agent-workflows.yaml), a test file's agent. The
// text of another file is the open document's when the client has it open, else the file on disk.
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseEnvironmentsFile, environmentChecks } from '../core/environments/environmentsFile';
import type { EnvironmentsFileResult } from '../core/environments/environmentsFile';
import { ENVIRONMENTS_FILE_NAME } from '../core/environments/environmentsFileName';
import type { ParsedFileKind } from '../core/document/parse';
import type { Problem } from '../core/document/problems';
import { readTextFileSync } from '../core/document/readTextFile';
import { AGENT_FILE, findFilesUnder } from '../core/document/agentFiles';
import type { FileText } from '../core/language/quickFixes';
import { errorDetail } from '../core/errors';
import { loadSuiteFromText } from '../core/testing/loadSuite';
import { agentPathOf, TEST_FILE } from '../core/testing/testFileName';
import type { TestFileOfAgent } from '../core/testing/testFileReferences';
import { MAX_AGENT_FILES, MAX_ENVIRONMENTS_FILE_BYTES, MAX_TEST_FILES } from '../core/limits';
import { validateAgentText } from '../core/validation/validate';
import type { EnvironmentChecks } from '../core/validation/validate';
import type { DocumentKind } from './documentKinds';
import { fileNameOf } from './documentKinds';

/** How a check reads the other files: the client's open text of a path, else the disk. */
export interface FileTexts {
  /** The open document's text of a local path, when the client has it open and the server kept it. */
  openText(path: string): string | undefined;
  /** The folders of the workspace (the client's), above which no environments file is looked for. */
  readonly roots: readonly string[];
}

/** Parsed environments files, by path and text, bounded (the oldest goes first). */
const MAX_PARSED_ENVIRONMENTS = 64;
const MAX_FOLDER_DEPTH = 64;

export class FileChecks {
  private readonly environments = new Map<string, { readonly text: string; readonly result: EnvironmentsFileResult }>();

  constructor(private readonly files: FileTexts) {}

  /** The problems of a document's text, as the extension shows them for a file of its kind. */
  problemsOf(kind: DocumentKind, uri: string, path: string | undefined, text: string): readonly Problem[] {
    switch (kind) {
      case 'agent': {
        const environments = path ? this.environmentChecksFor(path) : undefined;
        return validateAgentText(text, environments ? { environments } : {}).problems;
      }
      case 'test':
        // The agent is resolved beside the test file (a path of its own, or its name in the cwd).
        return loadSuiteFromText(path ?? fileNameOf(uri), text, (agentFile) => this.read(agentFile, 'agent')).problems;
      case 'environments':
        return parseEnvironmentsFile(text).problems;
    }
  }

  /** A file's text: the open document's, else the disk's; what cannot be read, in words. */
  read(path: string, kind: ParsedFileKind): { text: string } | { error: string } {
    const open = this.files.openText(path);
    if (open !== undefined) return { text: open };
    const read = readTextFileSync(path, kind === 'environments' ? { kind, maxBytes: MAX_ENVIRONMENTS_FILE_BYTES } : { kind });
    return 'text' in read ? { text: read.text } : { error: `${path}: ${read.error}` };
  }

  /** The path of the agent a test file tests. */
  agentOf(testPath: string, text: string): string {
    return resolve(dirname(testPath), agentPathOf(text, fileNameOf(testPath)));
  }

  /**
   * The test files of the workspace folders and those open (`openTestPaths`), each with its text
   * (the open document's, else the disk's) and the agent it names; at most MAX_TEST_FILES. A file or
   * folder that cannot be read is left out and given to `onSkipped` ("path: why").
   */
  async testFiles(openTestPaths: Iterable<string>, onSkipped: (what: string) => void): Promise<TestFileOfAgent[]> {
    const paths = new Set([...openTestPaths].slice(0, MAX_TEST_FILES));
    for (const root of this.files.roots) {
      if (paths.size >= MAX_TEST_FILES) break;
      try {
        for (const path of await findFilesUnder(
          root,
          TEST_FILE,
          (folder, why) => onSkipped(`${folder}: ${why}`),
          MAX_TEST_FILES - paths.size,
        ))
          paths.add(path);
      } catch (error) {
        onSkipped(`${root}: ${errorDetail(error)}`);
      }
    }
    const files: TestFileOfAgent[] = [];
    for (const path of paths) {
      const read = this.read(path, 'test');
      if ('text' in read) files.push({ path, text: read.text, agentPath: this.agentOf(path, read.text) });
      else onSkipped(read.error);
    }
    return files;
  }

  /**
   * The agent files an environments file applies to (it is the nearest above them), each with its
   * text: the open ones (`openAgentPaths`) and those under its folder; at most MAX_AGENT_FILES. A
   * file or folder that cannot be read is left out and given to `onSkipped` ("path: why").
   */
  async agentFilesOf(environmentsPath: string, openAgentPaths: Iterable<string>, onSkipped: (what: string) => void): Promise<FileText[]> {
    const folder = dirname(environmentsPath);
    const paths = new Set([...openAgentPaths].filter((path) => isInside(path, folder)).slice(0, MAX_AGENT_FILES));
    try {
      for (const path of await findFilesUnder(folder, AGENT_FILE, (under, why) => onSkipped(`${under}: ${why}`), MAX_AGENT_FILES))
        if (paths.size < MAX_AGENT_FILES) paths.add(path);
    } catch (error) {
      onSkipped(`${folder}: ${errorDetail(error)}`);
    }
    const agents: FileText[] = [];
    for (const path of [...paths].sort()) {
      // A nearer environments file, in a folder between, applies to the agent instead.
      if (this.environmentsFileFor(path) !== environmentsPath) continue;
      const read = this.read(path, 'agent');
      if ('text' in read) agents.push({ path, text: read.text });
      else onSkipped(read.error);
    }
    return agents;
  }

  /** What the environments file nearest an agent file says, when there is one without errors. */
  environmentChecksFor(agentPath: string): EnvironmentChecks | undefined {
    const file = this.environmentsFileFor(agentPath);
    if (!file) return undefined;
    const read = this.read(file, 'environments');
    if (!('text' in read)) return undefined;
    const cached = this.environments.get(file);
    let result = cached?.text === read.text ? cached.result : undefined;
    if (!result) {
      result = parseEnvironmentsFile(read.text);
      this.environments.delete(file);
      if (this.environments.size >= MAX_PARSED_ENVIRONMENTS) this.environments.delete(this.environments.keys().next().value!);
      this.environments.set(file, { text: read.text, result });
    }
    return result.file ? environmentChecks(result.file) : undefined;
  }

  /**
   * The environments file of an agent file: in its folder, then each parent up to the workspace
   * folder that holds it (only its own folder when it is in none), as the extension looks.
   */
  environmentsFileFor(agentPath: string): string | undefined {
    let dir = dirname(agentPath);
    const root = this.files.roots.filter((folder) => isInside(dir, folder)).sort((a, b) => b.length - a.length)[0];
    for (let depth = 0; depth < MAX_FOLDER_DEPTH; depth++) {
      const candidate = join(dir, ENVIRONMENTS_FILE_NAME);
      if (this.files.openText(candidate) !== undefined || isFile(candidate)) return candidate;
      const parent = dirname(dir);
      if (root === undefined || dir === root || parent === dir) return undefined;
      dir = parent;
    }
    return undefined;
  }
}

/** Whether a path is a folder or inside it. */
export function isInside(path: string, folder: string): boolean {
  const base = folder.endsWith('/') || folder.endsWith('\\') ? folder : `${folder}/`;
  return path === folder || path.startsWith(base) || path.startsWith(`${folder}\\`);
}

function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}
