// The documentation's complete examples and the examples/ folder are valid agents.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateAgentText } from '../../src/core/validation/validate';
import { repoRoot } from '../support/paths';

function problemsOf(text: string): string[] {
  return validateAgentText(text).problems.map((p) => `${p.range.line}:${p.range.column} ${p.severity} ${p.code} ${p.message}`);
}

describe('documentation and examples', () => {
  for (const doc of ['docs/agent-yaml.md', 'README.md']) {
    it(`every complete agent in ${doc} is valid`, () => {
      const text = readFileSync(join(repoRoot, doc), 'utf8');
      const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((block) => block.startsWith('version: 1'));
      assert.ok(blocks.length > 0, `${doc} shows a complete agent (a yaml block starting "version: 1")`);
      for (const block of blocks) assert.deepEqual(problemsOf(block), []);
    });
  }

  const examples = readdirSync(join(repoRoot, 'examples')).filter((name) => /\.agent\.ya?ml$/.test(name));
  it('has examples', () => assert.ok(examples.length >= 3));
  for (const name of examples) {
    it(`examples/${name} has no problems`, () => {
      assert.deepEqual(problemsOf(readFileSync(join(repoRoot, 'examples', name), 'utf8')), []);
    });
  }
});
