// src/core is shared by the extension, the command line and the local server: it must never
// depend on the `vscode` module.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { repoRoot } from '../support/paths';

const VSCODE_IMPORT = /(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)['"]vscode['"]/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

describe('src/core isolation', () => {
  it('detects a vscode import in any form', () => {
    for (const line of [
      "import * as vscode from 'vscode';",
      'import type { Uri } from "vscode";',
      "const v = require('vscode');",
      "await import('vscode')",
      "import 'vscode';",
    ]) {
      assert.match(line, VSCODE_IMPORT, line);
    }
    assert.doesNotMatch("import { x } from './vscodeLike';", VSCODE_IMPORT);
  });

  it('has no file that imports vscode', () => {
    const offenders = sourceFiles(join(repoRoot, 'src', 'core')).filter((file) => VSCODE_IMPORT.test(readFileSync(file, 'utf8')));
    assert.deepEqual(
      offenders.map((file) => relative(repoRoot, file)),
      [],
    );
  });

  it('has no file that imports from outside src/core except the schema', () => {
    const offenders: string[] = [];
    const core = join(repoRoot, 'src', 'core');
    for (const file of sourceFiles(core)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = relative(repoRoot, resolve(dirname(file), match[1]!));
        if (!target.startsWith(`src${sep}core${sep}`) && !target.startsWith(`schemas${sep}`))
          offenders.push(`${relative(repoRoot, file)}: ${match[1]}`);
      }
    }
    assert.deepEqual(offenders, []);
  });
});
