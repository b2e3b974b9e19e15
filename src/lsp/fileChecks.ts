// The problems of each kind of file, from the same core functions the VS Code extension calls
// (validateAgentText, loadSuiteFromText, parseEnvironmentsFile), and the other files they depend on:
// an agent file's environments file (the nearest agent-workflows.yaml), a test file's agent. The
// text of another file is the open document's when the client has it open, else the file on disk.
// Another file is read only inside the workspace folders (real paths: links followed), or, for a
// file in none, inside its own folder (fileAccess.ts's rule): a test file's `agent: ../../x` must
// not make the server read, suggest from or edit a file elsewhere.
import { statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseEnvironmentsFile, environmentChecks } from '../core/environments/environmentsFile';
import type { EnvironmentsFileResult } from '../core/environments/environmentsFile';
import { ENVIRONMENTS_FILE_NAME } from '../core/environments/environmentsFileName';
import type { ParsedFileKind } from '../core/document/parse';
import type { Problem } from '../core/document/problems';
import { readTextFileSync } from '../core/document/readTextFile';
import { AGENT_FILE, findFilesUnder } from '../core/document/agentFiles';
import type { FileText } from '../core/language/quickFixes';
import { errorDetail } from '../core/errors';
import { checkFilePlaceSync } from '../core/inputs/fileAccess';
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
      case 'test': {
        // The agent is resolved beside the test file (a path of its own, or its name in the cwd).
        const testFile = path ?? resolve(fileNameOf(uri));
        return loadSuiteFromText(testFile, text, (agentFile) => this.read(agentFile, 'agent', testFile)).problems;
      }
      case 'environments':
        return parseEnvironmentsFile(text).problems;
    }
  }

  /**
   * The text of a file `namedBy` another names: the open document's, else the disk's; what cannot
   * be read, in words (`outside` when its place is refused, see the file header).
   */
  read(path: string, kind: ParsedFileKind, namedBy: string): { text: string } | { error: string; outside: true } | { error: string } {
    const outside = this.outsideWhy(path, namedBy);
    if (outside !== undefined) return { error: `${path}: ${outside}`, outside: true };
    const open = this.files.openText(path);
    if (open !== undefined) return { text: open };
    const read = readTextFileSync(path, kind === 'environments' ? { kind, maxBytes: MAX_ENVIRONMENTS_FILE_BYTES } : { kind });
    return 'text' in read ? { text: read.text } : { error: `${path}: ${read.error}` };
  }

  /** Why a file named by `namedBy` is not read (outside the workspace folders); undefined when it may be. */
  outsideWhy(path: string, namedBy: string): string | undefined {
    const folder = dirname(namedBy);
    const place = checkFilePlaceSync(relative(folder, path) || '.', { folder, allowedFolders: this.files.roots });
    if (place.ok) return undefined;
    const where = this.files.roots.length
      ? `the workspace ${this.files.roots.length === 1 ? 'folder' : 'folders'} (${this.files.roots.join(', ')})`
      : `the folder of ${basename(namedBy)} (${folder}), as no workspace folder is open`;
    const what =
      place.refusal.code === 'link-outside'
        ? `it is a link to ${place.refusal.realPath ?? path}, outside ${where}`
        : `it is outside ${where}`;
    return `${what}: the language server reads no file outside them. Open its folder as a workspace folder, or move the file into one.`;
  }

  /** The path of the agent a test file tests. */
  agentOf(testPath: string, text: string): string {
    return resolve(dirname(testPath), agentPathOf(text, fileNameOf(testPath)));
  }

  /**
   * The test files of the workspace folders and those open (`openTestPaths`), each with its text
   * (the open document's, else the disk's) and the agent it names; at most MAX_TEST_FILES. A file or
   * folder that cannot be read, or is outside the workspace folders (as named by `namedBy`, the file
   * a search starts from), is left out and given to `onSkipped` ("path: why").
   */
  async testFiles(openTestPaths: Iterable<string>, onSkipped: (what: string) => void, namedBy: string): Promise<TestFileOfAgent[]> {
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
      const read = this.read(path, 'test', namedBy);
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
      const read = this.read(path, 'agent', environmentsPath);
      if ('text' in read) agents.push({ path, text: read.text });
      else onSkipped(read.error);
    }
    return agents;
  }

  /** What the environments file nearest an agent file says, when there is one without errors. */
  environmentChecksFor(agentPath: string): EnvironmentChecks | undefined {
    const file = this.environmentsFileFor(agentPath);
    if (!file) return undefined;
    const read = this.read(file, 'environments', agentPath);
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
