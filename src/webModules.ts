// Modules loaded on first use in VS Code for the Web. The browser's extension host loads the
// extension's one script (package.json `browser`) and gives it a `require` that knows only 'vscode',
// so a lazy module (esbuild.mjs webLazyModules, dist/web/lazy/NAME.js) is read from the extension
// and evaluated here the way VS Code evaluates the extension itself. The web build turns each
// `import('./module')` of a lazy module into a call of the loader installed here.
import * as vscode from 'vscode';
import { loadOnce } from './core/loadOnce';

/** Where the web build's rewritten imports find the loader (one global per extension, named by its id). */
export const WEB_MODULE_LOADER = Symbol.for('agent-workflows.agent-workflows/loadWebModule');

type Loader = (name: string) => Promise<unknown>;

/** Installs the loader of dist/web/lazy/NAME.js for the extension at extensionUri. */
export function installWebModules(extensionUri: vscode.Uri): vscode.Disposable {
  const loads = new Map<string, () => Promise<unknown>>();
  const loader: Loader = (name) => {
    let load = loads.get(name);
    if (!load) {
      load = loadOnce(() => evaluateModule(vscode.Uri.joinPath(extensionUri, 'dist', 'web', 'lazy', `${name}.js`)));
      loads.set(name, load);
    }
    return load();
  };
  const globals = globalThis as unknown as Record<symbol, Loader | undefined>;
  globals[WEB_MODULE_LOADER] = loader;
  return new vscode.Disposable(() => {
    if (globals[WEB_MODULE_LOADER] === loader) globals[WEB_MODULE_LOADER] = undefined;
  });
}

/** A file of the extension as text: fetched from a web address (vscode.dev), else read through VS Code's file systems. */
export async function readExtensionText(uri: vscode.Uri): Promise<string> {
  if (uri.scheme === 'https' || uri.scheme === 'http') {
    const response = await fetch(uri.toString(true));
    if (!response.ok) throw new Error(`Reading ${uri.toString(true)} failed: HTTP ${response.status}.`);
    return response.text();
  }
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}

async function evaluateModule(uri: vscode.Uri): Promise<unknown> {
  const source = await readExtensionText(uri);
  const module: { exports: unknown } = { exports: {} };
  const require = (id: string): unknown => {
    if (id === 'vscode') return vscode;
    throw new Error(`Cannot load module '${id}' in the browser (from ${uri.path}).`);
  };
  // As VS Code loads the extension's own script in its web worker: a CommonJS function of the text.
  const define = new Function('module', 'exports', 'require', `${source}\n//# sourceURL=${uri.toString(true)}`) as (
    module: { exports: unknown },
    exports: unknown,
    require: (id: string) => unknown,
  ) => void;
  define(module, module.exports, require);
  return module.exports;
}
