// Locations in the repository, wherever the compiled tests run from.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'esbuild.mjs'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No repository root above ${start}`);
  }
}

export const repoRoot = findRepoRoot(__dirname);
export const fixturesDir = join(repoRoot, 'test', 'fixtures');
