// Builds the extension, the command line and the demo into dist/, and tests and benchmarks into out/.
//   node esbuild.mjs               development build of dist/ (source maps)
//   node esbuild.mjs --production  minified dist/ for packaging
//   node esbuild.mjs --watch       rebuild dist/ on change
//   node esbuild.mjs --tests       dist/ plus every test entry point into out/
//   node esbuild.mjs --bench       dist/ plus the benchmarks into out/bench/
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import * as esbuild from 'esbuild';
import { readdirSync, readFileSync, statSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const args = new Set(process.argv.slice(2));
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const production = args.has('--production');
const watch = args.has('--watch');

// The JSON Schemas, compiled by ajv when bundling (its standalone code) rather than on first
// validation: no schema compiler in the bundles, no compile time at run time. Each is imported as
// `./NAME.generated` and typed by the .d.ts of that name.
// `unicode: false` measures lengths in UTF-16 units, not characters: in the agent schema every
// string with a maximum length has an ASCII-only pattern (test/unit/schema.test.ts), so the answer
// is the same without ajv's character count, 1 % of a cold `validate` of a 2,000-node agent.
const generatedValidators = {
  agentSchemaValidator: { file: 'schemas/agent.schema.json', unicode: false },
  agentTestSchemaValidator: { file: 'schemas/agent-test.schema.json', unicode: true },
  environmentsSchemaValidator: { file: 'schemas/agent-workflows.schema.json', unicode: true },
};
const validatorCode = new Map();
// ajv calls `unicode` deprecated (counting characters became its default) but still honours it;
// only that one notice is dropped.
const logger = {
  log: console.log,
  warn: (message, ...rest) => (String(message).startsWith('DEPRECATED: option unicode') ? undefined : console.warn(message, ...rest)),
  error: console.error,
};
const schemaValidators = {
  name: 'schema-validators',
  setup(build) {
    build.onResolve({ filter: /\/\w+\.generated$/ }, (args) => {
      const name = /(\w+)\.generated$/.exec(args.path)[1];
      return name in generatedValidators ? { path: name, namespace: 'schema-validator' } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'schema-validator' }, ({ path: name }) => {
      const { file: schemaFile, unicode } = generatedValidators[name];
      if (!validatorCode.has(name)) {
        const ajv = new Ajv({
          allErrors: true,
          strict: true,
          allowUnionTypes: true,
          verbose: true,
          unicode,
          logger,
          code: { source: true },
        });
        // Annotations that VS Code's YAML and JSON tooling read; they do not constrain values.
        ajv.addKeyword({ keyword: 'markdownDescription', schemaType: 'string' });
        ajv.addKeyword({ keyword: 'defaultSnippets', schemaType: 'array' });
        validatorCode.set(name, standaloneCode(ajv, ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')))));
      }
      // resolveDir: the generated code requires ajv's small runtime helpers from node_modules.
      return { contents: validatorCode.get(name), loader: 'js', resolveDir: process.cwd(), watchFiles: [resolve(schemaFile)] };
    });
  },
};

// yaml's parser reads process.env.LOG_TOKENS, a debugging switch, for every token it reads, and
// each read of process.env is a call into the runtime: 11 % of a cold `validate` of a token-dense
// 768 KB file. The switch is compiled out of our bundles; the build fails if yaml stops reading it
// this way, so that a new version of yaml is looked at again.
const yamlTokenLogOff = {
  name: 'yaml-token-log-off',
  setup(build) {
    build.onLoad({ filter: /[\\/]yaml[\\/]dist[\\/]parse[\\/]parser\.js$/ }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      const patched = source.replace('if (node_process.env.LOG_TOKENS)', 'if (false)');
      if (patched === source)
        throw new Error(`${path} no longer reads process.env.LOG_TOKENS as expected: update the yaml-token-log-off plugin.`);
      return { contents: patched, loader: 'js' };
    });
  },
};

// The MCP SDK's server requires its ajv provider at load, to check what a client answers to an
// elicitation, which `agent-workflows mcp` never asks for: no schema compiler goes into the bundles
// (test/unit/bundles.test.ts), so the provider is one that says so if it is ever used.
const mcpWithoutAjv = {
  name: 'mcp-without-ajv',
  setup(build) {
    build.onLoad(
      { filter: /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/](cjs|esm)[\\/]validation[\\/]ajv-provider\.js$/ },
      ({ path }) => {
        const provider = `class AjvJsonSchemaValidator {
  getValidator() { throw new Error('agent-workflows mcp validates no JSON Schema at run time (it asks no elicitation).'); }
}`;
        const esm = /[\\/]esm[\\/]/.test(path);
        return { contents: esm ? `export ${provider}` : `exports.AjvJsonSchemaValidator = ${provider};`, loader: 'js' };
      },
    );
  },
};

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
  // `import()` becomes a `require` (see lazyModules): synchronous, and no ES module loader.
  supported: { 'dynamic-import': false },
  plugins: [schemaValidators, yamlTokenLogOff, mcpWithoutAjv],
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

// Modules loaded on first use. Each is bundled on its own into dist/lazy/, and a dynamic
// `import()` of it from any dist/ bundle becomes a `require` of that file, so that what a process
// loads at start is only what it needs at start (`agent-workflows --help` loads no HTTP client).
// Written as `await import('./module')` in the source; test bundles include them as usual.
// A lazy bundle has its own copy of what it imports: values that cross the boundary must not be
// told apart with `instanceof` (see isCliError).
const lazyModules = new Map(
  Object.entries({
    'src/cli/validateCommand.ts': 'cli-validate',
    'src/cli/runCommand.ts': 'cli-run',
    'src/cli/sendCommand.ts': 'cli-send',
    'src/cli/statusCommand.ts': 'cli-status',
    'src/cli/serveCommand.ts': 'cli-serve',
    'src/cli/testCommand.ts': 'cli-test',
    'src/cli/envsCommand.ts': 'cli-envs',
    'src/cli/batchCommand.ts': 'cli-batch',
    'src/cli/compareCommand.ts': 'cli-compare',
    'src/cli/importCommand.ts': 'cli-import',
    'src/cli/dapCommand.ts': 'cli-dap',
    'src/cli/lspCommand.ts': 'cli-lsp',
    'src/cli/mcpCommand.ts': 'cli-mcp',
    'src/language/curlImportFlow.ts': 'curl-import',
    'src/commands/commandsFeature.ts': 'commands',
    'src/languageModelTools/toolsFeature.ts': 'language-model-tools',
    'src/language/languageCore.ts': 'language',
    'src/runs/localServerCode.ts': 'local-server',
    'src/runs/debugAdapterCode.ts': 'debugger',
    'src/core/testing/editorEntry.ts': 'agent-tests',
    'src/core/batch/editorEntry.ts': 'batch',
    'src/core/compare/editorEntry.ts': 'compare',
  }).map(([source, name]) => [resolve(source), join('dist', 'lazy', `${name}.js`)]),
);

/** Makes dynamic imports of lazy modules external requires of their bundles, relative to outDir. */
function lazyImports(outDir) {
  return {
    name: 'lazy-imports',
    setup(build) {
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData?.resolving) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { resolving: true },
        });
        const bundle = lazyModules.get(resolved.path);
        if (!bundle) return undefined;
        return { path: `./${relative(outDir, bundle)}`, external: true };
      });
    },
  };
}

// The browser build (package.json `browser`, dist/web/): VS Code for the Web runs it in a web
// worker, with no Node and a `require` that knows only 'vscode'. Its modules loaded on first use are
// bundles of their own in dist/web/lazy/, read and evaluated by src/webModules.ts: the build rewrites
// each `import('./module')` of one into a call of that loader. Node's `path` is src/core/posixPath.ts
// there and `vm` src/core/browserVm.ts; any other Node module reached fails the build (esbuild
// cannot resolve it for the browser).
// Each module loaded on first use, with the bundle that holds it: one bundle, src/webFeatures.ts, so
// that the language core, the graph and the cURL import share one copy of the YAML parser and the checks.
const webLazyModules = new Map(
  Object.entries({
    'src/language/languageCore.ts': 'features',
    'src/commands/showGraph.ts': 'features',
    'src/commands/addApiNodeFromCurl.ts': 'features',
    'src/language/curlImportFlow.ts': 'features',
  }).map(([source, name]) => [resolve(source), name]),
);
const webLazyBundles = { features: 'src/webFeatures.ts' };
const webPlatform = {
  name: 'web-platform',
  setup(build) {
    build.onResolve({ filter: /^(node:)?path$/ }, () => ({ path: resolve('src/core/posixPath.ts') }));
    build.onResolve({ filter: /^(node:)?vm$/ }, () => ({ path: resolve('src/core/browserVm.ts') }));
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      const contents = source.replace(/\bimport\((['"])(\.\.?\/[^'"]+)\1\)/g, (call, _quote, specifier) => {
        const name = webLazyModules.get(resolve(dirname(path), `${specifier}.ts`));
        return name === undefined
          ? call
          : `globalThis[Symbol.for('agent-workflows.agent-workflows/loadWebModule')](${JSON.stringify(name)})`;
      });
      return { contents, loader: 'ts' };
    });
  },
};
/** @type {esbuild.BuildOptions} */
const web = {
  ...common,
  platform: 'browser',
  target: 'es2022',
  external: ['vscode'],
  plugins: [schemaValidators, webPlatform, yamlTokenLogOff],
};
const webBuilds = [
  { ...web, entryPoints: ['src/extensionWeb.ts'], outfile: 'dist/web/extension.js' },
  ...Object.entries(webLazyBundles).map(([name, source]) => ({
    ...web,
    entryPoints: [source],
    outfile: join('dist', 'web', 'lazy', `${name}.js`),
  })),
  // The language worker, a Web Worker started from its text (src/language/webWorkerThread.ts).
  { ...web, entryPoints: ['src/language/validationWorkerWeb.ts'], outfile: 'dist/web/validationWorker.js', format: 'iife' },
];

const distBuilds = [
  {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
    plugins: [...common.plugins, lazyImports('dist')],
  },
  {
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
    plugins: [...common.plugins, lazyImports('dist')],
  },
  ...[...lazyModules].map(([source, outfile]) => ({
    ...common,
    entryPoints: [source],
    outfile,
    external: ['vscode'],
    plugins: [...common.plugins, lazyImports(dirname(outfile))],
  })),
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
  // The batch results table's script, likewise.
  {
    ...common,
    entryPoints: ['src/webview/batchResults/main.ts'],
    outfile: 'dist/webview/batchResults.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
  },
  // The batch comparison table's script, likewise.
  {
    ...common,
    entryPoints: ['src/webview/batchCompare/main.ts'],
    outfile: 'dist/webview/batchCompare.js',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
  },
  ...webBuilds,
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
    entryPoints: [...filesUnder('test', (n) => n.endsWith('.ts') && !n.endsWith('.d.ts'))],
    outdir: 'out/test',
    outbase: 'test',
    packages: 'external',
    external: ['vscode'],
  });
}
// Benchmarks measure the YAML parser the bundles ship (see yamlTokenLogOff): yaml is bundled into
// them, the other packages stay external.
const bundleYaml = {
  name: 'bundle-yaml',
  setup(build) {
    build.onResolve({ filter: /^yaml$/ }, () => ({ path: resolve('node_modules/yaml/dist/index.js') }));
  },
};
if (args.has('--bench')) {
  outBuilds.push({
    ...common,
    entryPoints: filesUnder('bench', (n) => n.endsWith('.ts')),
    outdir: 'out/bench',
    outbase: 'bench',
    packages: 'external',
    plugins: [...common.plugins, bundleYaml],
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
