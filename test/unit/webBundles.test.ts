// The browser build (package.json `browser`, dist/web/), read from the development build that runs
// before the unit tests: what VS Code for the Web loads at activation stays small, the whole build
// stays within its budget, and nothing in it needs Node (the web worker's `require` knows only
// 'vscode'). Sizes are of the bundles minified as the packaged extension ships them.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { transform } from 'esbuild';
import { findRepoRoot } from '../host/common';

const root = findRepoRoot();
const web = join(root, 'dist', 'web');

/** Activation code in the browser at most 150 KB minified, the whole browser build at most 800 KB (issue 27). */
const ACTIVATION_BUDGET = 150 * 1024;
const BUILD_BUDGET = 800 * 1024;

async function minifiedSize(path: string): Promise<number> {
  const { code } = await transform(readFileSync(path, 'utf8'), { minify: true, legalComments: 'none', target: 'es2022' });
  return Buffer.byteLength(code);
}

/** Every script of the browser build: dist/web/ and the webviews' scripts (they run in the browser on every host). */
function browserScripts(): string[] {
  const lazy = readdirSync(join(web, 'lazy')).filter((name) => name.endsWith('.js'));
  const webviews = readdirSync(join(root, 'dist', 'webview')).filter((name) => name.endsWith('.js'));
  return [
    join(web, 'extension.js'),
    join(web, 'validationWorker.js'),
    ...lazy.map((name) => join(web, 'lazy', name)),
    ...webviews.map((name) => join(root, 'dist', 'webview', name)),
  ];
}

/** The bundles of dist/web/lazy/, loaded on first use. */
function lazyBundles(): string[] {
  return readdirSync(join(web, 'lazy'))
    .filter((name) => name.endsWith('.js'))
    .map((name) => join(web, 'lazy', name));
}

describe('browser bundles', () => {
  it('package.json names the browser entry beside the desktop one', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main: string; browser?: string };
    assert.equal(manifest.browser, './dist/web/extension.js');
    assert.equal(manifest.main, './dist/extension.js');
  });

  it(`loads at most ${ACTIVATION_BUDGET / 1024} KB minified at activation`, async () => {
    const size = await minifiedSize(join(web, 'extension.js'));
    assert.ok(size <= ACTIVATION_BUDGET, `dist/web/extension.js is ${Math.round(size / 1024)} KB minified`);
    // The checks and the graph load on first use, from their own bundle.
    const text = readFileSync(join(web, 'extension.js'), 'utf8');
    for (const heavy of [
      'src/core/validation/validate.ts',
      'src/core/graph/graphLayout.ts',
      'src/core/language/completion.ts',
      'node_modules/yaml/',
    ])
      assert.ok(!text.includes(`${heavy}`), `dist/web/extension.js does not contain ${heavy}`);
    assert.match(text, /globalThis\[Symbol\.for\("agent-workflows\.agent-workflows\/loadWebModule"\)\]\("features"\)/);
  });

  it(`is at most ${BUILD_BUDGET / 1024} KB minified in all`, async () => {
    const sizes = await Promise.all(browserScripts().map(async (path) => [path.slice(root.length + 1), await minifiedSize(path)] as const));
    const total = sizes.reduce((sum, [, size]) => sum + size, 0);
    const detail = sizes.map(([path, size]) => `${path} ${Math.round(size / 1024)} KB`).join(', ');
    assert.ok(total <= BUILD_BUDGET, `the browser build is ${Math.round(total / 1024)} KB minified: ${detail}`);
  });

  it('requires nothing but vscode: no Node module, no desktop bundle', () => {
    for (const path of [
      join(web, 'extension.js'),
      join(web, 'validationWorker.js'),
      ...readdirSync(join(web, 'lazy')).map((name) => join(web, 'lazy', name)),
    ]) {
      if (!path.endsWith('.js')) continue;
      const text = readFileSync(path, 'utf8');
      // Calls, not text: ajv's helpers carry their own require line as a string (`.code = 'require(…)'`).
      const required = [...text.matchAll(/(?<![\w$.'"])require\("([^"]+)"\)/g)].map((match) => match[1]);
      assert.deepEqual(
        required.filter((id) => id !== 'vscode'),
        [],
        `${path} requires only vscode`,
      );
      assert.ok(!text.includes('node_modules/undici/'), `${path} holds no HTTP client`);
    }
    // The worker is a classic script (started with importScripts), not a CommonJS module.
    assert.match(readFileSync(join(web, 'validationWorker.js'), 'utf8'), /^(?:"use strict";\s*)?\(\(\) => \{/);
  });

  it("uses none of Node's globals in our code: no Buffer, process, setImmediate or __dirname", async () => {
    // Our sources in the bundles, as their source maps list them; each compiled as the build does,
    // so that comments and types (`: Buffer` is fine) are gone and only what runs is left.
    const sources = new Set<string>();
    for (const path of [join(web, 'extension.js'), join(web, 'validationWorker.js'), ...lazyBundles()]) {
      const map = JSON.parse(readFileSync(`${path}.map`, 'utf8')) as { sources: string[] };
      for (const source of map.sources) {
        const file = join(dirname(path), source);
        if (file.startsWith(join(root, 'src')) && file.endsWith('.ts')) sources.add(file);
      }
    }
    assert.ok(sources.size > 50, `the source maps list our sources (${sources.size})`);
    const found: string[] = [];
    for (const file of sources) {
      const { code } = await transform(readFileSync(file, 'utf8'), { loader: 'ts', target: 'es2022' });
      for (const match of code.matchAll(/(?<![\w$.'"`])(Buffer|process|setImmediate|clearImmediate|__dirname|__filename)\b(?!['"`:])/g)) {
        // `typeof process` is how code asks whether it runs in Node.
        if (code.slice(Math.max(0, match.index - 7), match.index) === 'typeof ') continue;
        found.push(`${file.slice(root.length + 1)}: ${code.slice(match.index, match.index + 40).split('\n')[0]}`);
      }
    }
    assert.deepEqual(found, []);
  });

  it('the extension package ships the browser build', () => {
    const shipped = readFileSync(join(root, '.vscodeignore'), 'utf8');
    const files = [
      'extension.js',
      'validationWorker.js',
      ...readdirSync(join(web, 'lazy'))
        .filter((name) => name.endsWith('.js'))
        .map((name) => `lazy/${name}`),
    ];
    for (const name of files)
      assert.match(shipped, new RegExp(`^!dist/web/${name.replace('.', '\\.')}$`, 'm'), `dist/web/${name} is shipped`);
  });
});
