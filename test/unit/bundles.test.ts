// What each bundle of dist/ holds, read from the module comments of the development build that
// runs before the unit tests: start-up code stays small (the command line's entry loads no command,
// HTTP client or parser) and no bundle carries ajv's schema compiler (the validator is compiled
// while bundling).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot } from '../host/common';

const dist = join(findRepoRoot(), 'dist');

/** The packages a development bundle contains, from esbuild's `// node_modules/NAME/…` comments. */
function packagesIn(file: string): Set<string> {
  const text = readFileSync(join(dist, file), 'utf8');
  return new Set([...text.matchAll(/^\/\/ node_modules\/((?:@[^/\n]+\/)?[^/\n]+)\//gm)].map((match) => match[1] as string));
}

describe('bundles', () => {
  it('the command line entry holds the argument parser and no command', () => {
    const packages = packagesIn('cli.js');
    assert.deepEqual([...packages], ['commander']);
    const text = readFileSync(join(dist, 'cli.js'), 'utf8');
    for (const command of ['validate', 'run', 'send', 'status', 'serve', 'test', 'batch', 'dap', 'compare', 'lsp']) {
      assert.ok(text.includes(`require("./lazy/cli-${command}.js")`), `cli.js loads the ${command} command from its own bundle`);
      assert.ok(!text.includes(`// src/cli/${command}Command.ts`), `cli.js does not contain the ${command} command`);
    }
  });

  it('the extension entry holds only registration: no package, and its features load on first use', () => {
    assert.deepEqual([...packagesIn('extension.js')], []);
    const text = readFileSync(join(dist, 'extension.js'), 'utf8');
    for (const feature of ['commands', 'language', 'local-server', 'language-model-tools'])
      assert.ok(text.includes(`require("./lazy/${feature}.js")`), `extension.js loads ${feature} from its own bundle`);
    for (const heavy of [
      'src/core/engine/engine.ts',
      'src/core/service/agentClient.ts',
      'src/core/server/agentServer.ts',
      'src/core/graph/graphLayout.ts',
      'src/core/validation/validate.ts',
      'src/languageModelTools/toolsFeature.ts',
    ]) {
      assert.ok(!text.includes(`// ${heavy}`), `extension.js does not contain ${heavy}`);
    }
    assert.ok(packagesIn('lazy/commands.js').has('undici'));
    assert.ok(packagesIn('lazy/language.js').has('yaml'));
    assert.ok(packagesIn('lazy/local-server.js').has('busboy'));
  });

  it('each command bundle holds what that command needs', () => {
    assert.ok(packagesIn('lazy/cli-validate.js').has('yaml'));
    assert.ok(!packagesIn('lazy/cli-validate.js').has('undici'), 'validate loads no HTTP client');
    assert.ok(packagesIn('lazy/cli-run.js').has('undici'));
    assert.ok(packagesIn('lazy/cli-send.js').has('undici'));
    assert.ok(packagesIn('lazy/cli-serve.js').has('busboy'));
    assert.ok(packagesIn('lazy/cli-dap.js').has('@vscode/debugadapter'), 'the debug adapter loads with dap only');
    // The language server's library loads with `lsp` only; the server needs no HTTP client.
    assert.ok(packagesIn('lazy/cli-lsp.js').has('vscode-languageserver'));
    assert.ok(!packagesIn('lazy/cli-lsp.js').has('undici'), 'the language server loads no HTTP client');
    assert.ok(!packagesIn('lazy/cli-validate.js').has('vscode-languageserver'));
    // It reads test files for the Test Explorer: no HTTP client (the runs are the host's).
    assert.ok(!packagesIn('validationWorker.js').has('undici'), 'the language worker loads no HTTP client');
  });

  it("every bundle with yaml's parser has its per-token environment read compiled out", () => {
    const bundles = ['validationWorker.js', ...readdirSync(join(dist, 'lazy')).map((name) => `lazy/${name}`)].filter((name) =>
      name.endsWith('.js'),
    );
    const withParser = bundles.filter((name) =>
      readFileSync(join(dist, name), 'utf8').includes('// node_modules/yaml/dist/parse/parser.js'),
    );
    assert.ok(withParser.includes('validationWorker.js') && withParser.includes('lazy/cli-validate.js'), withParser.join(', '));
    for (const name of withParser) assert.ok(!readFileSync(join(dist, name), 'utf8').includes('LOG_TOKENS'), `${name} reads LOG_TOKENS`);
  });

  it('the extension package ships every bundle the extension loads on first use', () => {
    // .vscodeignore lists what ships; a lazy bundle left out fails only in the installed extension.
    const shipped = readFileSync(join(findRepoRoot(), '.vscodeignore'), 'utf8');
    const lazy = readdirSync(join(dist, 'lazy')).filter((name) => name.endsWith('.js') && !name.startsWith('cli-'));
    assert.ok(lazy.includes('batch.js'));
    for (const name of lazy) assert.match(shipped, new RegExp(`^!dist/lazy/${name.replace('.', '\\.')}$`, 'm'), `${name} is shipped`);
    assert.ok(packagesIn('lazy/batch.js').has('csv-parse'));
    assert.ok(!packagesIn('extension.js').has('csv-parse'));
    // Comparing batches loads jsdiff with the comparison core, not with the commands.
    assert.ok(lazy.includes('compare.js'));
    assert.ok(packagesIn('lazy/compare.js').has('diff'));
    assert.ok(!packagesIn('lazy/commands.js').has('diff'), 'the commands load the comparison core only when they compare');
  });

  it('no bundle carries the schema compiler', () => {
    const bundles = [
      'extension.js',
      'cli.js',
      ...readdirSync(join(dist, 'lazy'))
        .filter((name) => name.endsWith('.js'))
        .map((name) => `lazy/${name}`),
    ];
    assert.ok(bundles.length >= 6);
    for (const bundle of bundles) {
      const text = readFileSync(join(dist, bundle), 'utf8');
      assert.ok(!text.includes('// node_modules/ajv/dist/compile/'), `${bundle} has no ajv compiler`);
      assert.ok(!text.includes('// node_modules/ajv/dist/core.js'), `${bundle} has no ajv core`);
    }
    // The generated validator is there, with its runtime helper.
    assert.ok(readFileSync(join(dist, 'lazy/cli-validate.js'), 'utf8').includes('// node_modules/ajv/dist/runtime/'));
  });
});
