// The browser build's one bundle loaded on first use (dist/web/lazy/features.js, see esbuild.mjs
// webLazyModules): the language core, the graph and the cURL import, in one bundle so that they
// share one copy of the YAML parser and the checks. `import()` of any of their modules loads it in
// the browser.
export * from './language/languageCore';
export * from './language/curlImportFlow';
export { registerShowGraph } from './commands/showGraph';
export { registerAddApiNodeFromCurlCommand } from './commands/addApiNodeFromCurl';
