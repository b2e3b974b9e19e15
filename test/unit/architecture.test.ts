// The import rules of docs/architecture.md, checked on the code: dependency-cruiser reads every
// import of src/ (type-only ones too) against .dependency-cruiser.cjs, which builds its rules from
// scripts/layers.cjs; the document's table must say what that file says.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { LAYERS, ALLOWED } = require(join(repoRoot, 'scripts', 'layers.cjs')) as {
  LAYERS: Record<string, string>;
  ALLOWED: Record<string, string[]>;
};

interface Cruise {
  readonly summary: {
    readonly violations: readonly { readonly from: string; readonly to: string; readonly rule: { readonly name: string } }[];
    readonly totalCruised: number;
  };
}

async function cruise(cwd = repoRoot): Promise<Cruise> {
  const bin = join(repoRoot, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [bin, 'src', '--config', join(repoRoot, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' })); // exits non-zero on violations
  return JSON.parse(stdout) as Cruise;
}

describe('architecture', function () {
  this.timeout(60_000);

  it('imports only downwards between the layers of src/, with no import circle', async () => {
    const { summary } = await cruise();
    assert.ok(summary.totalCruised > 100, `only ${summary.totalCruised} modules were read`);
    assert.deepEqual(
      summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`),
      [],
    );
  });

  it('states in docs/architecture.md the rules that are checked', () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'architecture.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Import rules'));
    const rows = new Map<string, string[]>();
    for (const match of section.matchAll(/^\| `(\w+)` \|[^|]*\| ([^|]*) \|$/gm)) {
      const allowed = match[2]!.trim();
      rows.set(match[1]!, allowed === 'nothing else' ? [] : allowed.split(', ').map((name) => name.replace(/`/g, '')));
    }
    assert.deepEqual(Object.fromEntries(rows), ALLOWED);
    assert.deepEqual(Object.keys(ALLOWED).sort(), Object.keys(LAYERS).sort());
  });

  it('finds an upward import and a circle when there is one', async () => {
    // The checker itself, on a tree made to break both rules: a check that cannot fail proves nothing.
    const dir = makeTempDir();
    try {
      const { write } = dir;
      write('tsconfig.json', '{ "compilerOptions": { "strict": true } }');
      write('src/core/a.ts', "import { b } from './b';\nexport const a = (): number => b();\n");
      write('src/core/b.ts', "import type { a } from './a';\nexport const b = (): number => 1;\nexport type A = typeof a;\n");
      write('src/core/up.ts', "import { c } from '../commands/c';\nexport const up = c;\n");
      write('src/commands/c.ts', 'export const c = 1;\n');
      const { summary } = await cruise(dir.path);
      const found = summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`).sort();
      assert.deepEqual(found, ['no-circular: src/core/a.ts -> src/core/b.ts', 'not-in-allowed: src/core/up.ts -> src/commands/c.ts']);
    } finally {
      dir.remove();
    }
  });
});
