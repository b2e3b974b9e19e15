// What the VSIX holds, as vsce lists it for packaging: what the installed extension reads and
// nothing else (no command line, no README images, no sources or maps). The other UI tests
// install that same package.
import assert from 'node:assert/strict';
import { listFiles, PackageManager } from '@vscode/vsce';
import { findRepoRoot } from '../host/common';

/** Each file the package may hold, and why the installed extension needs it. */
const NEEDED: ReadonlyArray<readonly [RegExp, string]> = [
  [/^package\.json$/, 'the manifest'],
  [/^(README|CHANGELOG)\.md$|^LICENSE$/, 'the extension page'],
  [/^language-configuration\.json$/, 'brackets and comments of agent-yaml'],
  [/^syntaxes\/[^/]+\.tmLanguage\.json$/, 'the grammar'],
  [/^snippets\/[^/]+\.json$/, 'the snippets'],
  [/^schemas\/[^/]+\.schema\.json$/, 'the JSON schema contributed for agent files'],
  [/^media\/.+\.(png|svg|css|md)$/, 'icons, the graph style and the walkthrough pages'],
  [/^docs\/agent-yaml\.md$/, 'the hover\'s "Documentation" link'],
  [/^dist\/(?!cli\.js$|demo\.js$|lazy\/cli-)[\w/.-]+\.js$/, "the bundled code (not the command line's or the demo)"],
];

describe('UI: the packaged extension', function () {
  this.timeout(120_000);

  it('holds only what the installed extension needs', async () => {
    const files = await listFiles({ cwd: findRepoRoot(), packageManager: PackageManager.None });
    const unneeded = files.filter((file) => !NEEDED.some(([pattern]) => pattern.test(file)));
    assert.deepEqual(unneeded, [], 'files the installed extension does not read');
    for (const required of [
      'package.json',
      'dist/extension.js',
      'dist/validationWorker.js',
      'dist/lazy/commands.js',
      'dist/lazy/language.js',
      'dist/lazy/local-server.js',
      'dist/webview/graph.js',
      'docs/agent-yaml.md',
      'media/icon.png',
    ]) {
      assert.ok(files.includes(required), `${required} is packaged`);
    }
    assert.ok(!files.some((file) => file.startsWith('docs/images/')), 'README images are linked, not shipped');
    assert.ok(!files.includes('media/icon.svg'), 'the icon source is not shipped');
  });
});
