// src/core/browserVm.ts stands in for Node's `vm` in the browser build: it runs the one script
// src/core/testing/regexTest.ts makes, with the answers Node's vm gives, and refuses any other.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as nodeVm from 'node:vm';
import * as browserVm from '../../src/core/browserVm';
import { repoRoot } from '../support/paths';

const SCRIPT = 'regex.lastIndex = 0; regex.test(text)';

describe('browserVm (Node vm for the browser build)', () => {
  it("answers regexTest's script as Node's vm does, whatever position a pattern kept", () => {
    const node = { script: new nodeVm.Script(SCRIPT), context: nodeVm.createContext({ regex: /x/, text: '' }) };
    const browser = {
      script: new browserVm.Script(SCRIPT),
      context: browserVm.createContext({ regex: /x/ as RegExp | undefined, text: '' }),
    };
    for (const [regex, text] of [
      [/^a+$/, 'aaa'],
      [/b/g, 'abcb'],
      [/b/y, 'ab'],
      [/^(a+)+$/, 'aaaa'],
      [/z/i, 'Z'],
    ] as const) {
      regex.lastIndex = 3;
      Object.assign(node.context, { regex, text });
      const expected = node.script.runInContext(node.context) as boolean;
      regex.lastIndex = 3;
      Object.assign(browser.context, { regex, text });
      assert.equal(browser.script.runInContext(browser.context), expected, `${String(regex)} on ${text}`);
    }
  });

  it('knows the script regexTest.ts makes', () => {
    const source = readFileSync(join(repoRoot, 'src', 'core', 'testing', 'regexTest.ts'), 'utf8');
    assert.ok(source.includes(`new Script('${SCRIPT}')`), 'regexTest.ts makes the script browserVm runs');
  });

  it('refuses a script it does not know', () => {
    assert.throws(() => new browserVm.Script('process.exit(1)'), /runs only regexTest's script/);
  });
});
