// Temporary folders for tests, removed after each test that makes one.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempDir {
  readonly path: string;
  /** Writes a file (creating folders) and returns its absolute path. */
  write(relativePath: string, content: string | Uint8Array): string;
  remove(): void;
}

export function makeTempDir(prefix = 'agent-workflows-test-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    write(relativePath, content) {
      const file = join(path, relativePath);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    remove() {
      rmSync(path, { recursive: true, force: true });
    },
  };
}
