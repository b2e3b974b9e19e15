// Locations in the repository, wherever the compiled tests run from.
import { join } from 'node:path';
import { findRepoRoot } from '../host/common';

export const repoRoot = findRepoRoot(__dirname);
export const fixturesDir = join(repoRoot, 'test', 'fixtures');
