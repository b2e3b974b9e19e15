// Builds the extension, the command line and the demo into dist/, and tests and benchmarks into out/.
//   node esbuild.mjs               development build of dist/ (source maps)
//   node esbuild.mjs --production  minified dist/ for packaging
//   node esbuild.mjs --watch       rebuild dist/ on change
//   node esbuild.mjs --tests       dist/ plus every test entry point into out/
//   node esbuild.mjs --bench       dist/ plus the benchmarks into out/bench/
import * as esbuild from 'esbuild';
import { readdirSync, readFileSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const args = new Set(process.argv.slice(2));
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const production = args.has('--production');
const watch = args.has('--watch');

/** @type {esbuild.BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  minify: production,
  legalComments: production ? 'external' : 'inline',
  logLevel: 'warning',
  define: { AGENT_WORKFLOWS_VERSION: JSON.stringify(version) },
};

/** Every file under dir whose name passes the filter, recursively. */
function filesUnder(dir, filter) {
  let found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found = found.concat(filesUnder(path, filter));
    else if (filter(name)) found.push(path);
  }
  return found;
}

const distBuilds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  {
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
  },
  // The editor's validation worker thread, loaded by the extension on its first check.
  { ...common, entryPoints: ['src/language/validationWorker.ts'], outfile: 'dist/validationWorker.js' },
  // The graph panel's script runs in the webview (a browser page), not in Node.
  {
    ...common,
    entryPoints: ['src/webview/graph/main.ts'],
    outfile: 'dist/webview/graph.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
  },
];
// `npm run demo` (scripts/demo/): built with every development build, so the unit tests can run it;
// left out of --production, and .vscodeignore keeps it out of the extension package either way.
if (!production) {
  distBuilds.push({ ...common, entryPoints: ['scripts/demo/demo.ts'], outfile: 'dist/demo.js' });
}

const outBuilds = [];
if (args.has('--tests')) {
  // Each test file is its own bundle so mocha can load them independently; packages stay
  // external (resolved from node_modules at run time) and `vscode` is provided by the host.
  outBuilds.push({
    ...common,
    sourcemap: 'inline',
    entryPoints: [
      ...filesUnder('test', (n) => n.endsWith('.ts') && !n.endsWith('.d.ts')),
    ],
    outdir: 'out/test',
    outbase: 'test',
    packages: 'external',
    external: ['vscode'],
  });
}
if (args.has('--bench')) {
  outBuilds.push({
    ...common,
    entryPoints: filesUnder('bench', (n) => n.endsWith('.ts')),
    outdir: 'out/bench',
    outbase: 'bench',
    packages: 'external',
  });
}

if (!watch) {
  rmSync('dist', { recursive: true, force: true });
  if (outBuilds.length) rmSync('out', { recursive: true, force: true });
}

if (watch) {
  const contexts = await Promise.all(distBuilds.map((options) => esbuild.context(options)));
  await Promise.all(contexts.map((context) => context.watch()));
  console.log('esbuild: watching src/ for changes');
} else {
  await Promise.all([...distBuilds, ...outBuilds].map((options) => esbuild.build(options)));
}
