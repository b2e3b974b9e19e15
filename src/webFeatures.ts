// The browser build's one bundle loaded on first use (dist/web/lazy/features.js, see esbuild.mjs
// webLazyModules): the language core and the graph, in one bundle so that they share one copy of
// the YAML parser and the checks. Both `import('./language/languageCore')` and
// `import('./commands/showGraph')` load it in the browser.
export * from './language/languageCore';
export { registerShowGraph } from './commands/showGraph';
