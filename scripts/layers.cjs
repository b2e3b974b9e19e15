// The layers of src/ and which may import which: docs/architecture.md ("Import rules") shows this
// table, .dependency-cruiser.cjs enforces it, and test/unit/architecture.test.ts checks both.

/** Each layer's files, as a path pattern. */
const LAYERS = {
  core: '^src/core/',
  cli: '^src/(cli/|cli\\.ts$)',
  lsp: '^src/lsp/',
  mcp: '^src/mcp/',
  webview: '^src/webview/',
  shared: '^src/(commandErrors|commandIds|config|lazyCommands|logger|webModules|workspaceFiles|workspaceSearch)\\.ts$',
  language: '^src/language/',
  secrets: '^src/secrets/',
  environments: '^src/environments/',
  runs: '^src/runs/',
  views: '^src/views/',
  testing: '^src/testing/',
  commands: '^src/commands/',
  languageModelTools: '^src/languageModelTools/',
  extension: '^src/(extension|extensionWeb|webFeatures|authoringFeatures)\\.ts$',
};

/** The layers each layer may import, besides itself, packages and Node's modules. */
const ALLOWED = {
  core: [],
  cli: ['lsp', 'mcp', 'core'],
  lsp: ['core'],
  mcp: ['core'],
  webview: ['core'],
  shared: ['core'],
  language: ['secrets', 'shared', 'core'],
  secrets: ['shared', 'core'],
  environments: ['language', 'secrets', 'shared', 'core'],
  runs: ['environments', 'language', 'secrets', 'shared', 'core'],
  views: ['webview', 'runs', 'environments', 'language', 'secrets', 'shared', 'core'],
  testing: ['views', 'runs', 'environments', 'language', 'secrets', 'shared', 'core'],
  commands: ['testing', 'views', 'runs', 'environments', 'language', 'secrets', 'shared', 'core'],
  languageModelTools: ['runs', 'environments', 'language', 'secrets', 'shared', 'core'],
  extension: ['languageModelTools', 'commands', 'testing', 'views', 'runs', 'environments', 'language', 'secrets', 'shared', 'core'],
};

module.exports = { LAYERS, ALLOWED };
