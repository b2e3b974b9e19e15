// Which of the three file kinds a document is, from its URI's file name: the server answers for
// agent files, agent test files and the environments file, and ignores every other document.
import { fileURLToPath } from 'node:url';
import { fileKindOfName } from '../core/document/fileKind';
import { MAX_ENVIRONMENTS_FILE_BYTES, MAX_FILE_BYTES } from '../core/limits';
import type { ParsedFileKind } from '../core/document/parse';

export type DocumentKind = ParsedFileKind;

/** The file name a URI ends with (percent-decoded), or '' when it has none. */
export function fileNameOf(uri: string): string {
  const path = uri.replace(/[?#].*$/s, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** The kind of document a URI names; undefined for a file the server does not handle. */
export function kindOf(uri: string): DocumentKind | undefined {
  return fileKindOfName(fileNameOf(uri));
}

/** The most a document of a kind may hold, as on disk (bytes of UTF-8). */
export function sizeLimitOf(kind: DocumentKind): number {
  return kind === 'environments' ? MAX_ENVIRONMENTS_FILE_BYTES : MAX_FILE_BYTES;
}

/** The local path of a file: URI, or undefined for another scheme (untitled:, a virtual file system). */
export function localPathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
