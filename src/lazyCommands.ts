// Commands whose code loads on first use. Activation registers each id with a placeholder; the
// first call of any of them loads the feature (its own bundle, see esbuild.mjs lazyModules), which
// registers the real commands in the placeholders' place, and the call is made again with the same
// arguments. So activation costs one registration per command and no code of theirs.
import * as vscode from 'vscode';
import { errorDetail } from './core/errors';
import { loadOnce } from './core/loadOnce';

export interface LazyCommands<F> {
  /** The loaded feature (loading it, and so registering its commands, on the first call). */
  readonly feature: () => Promise<F>;
}

/**
 * Registers `ids` as placeholders until `load` has run. `load` must register every one of `ids`
 * (synchronously, once its module is loaded) and resolve to the feature.
 */
export function registerLazyCommands<M, F>(
  context: vscode.ExtensionContext,
  ids: readonly string[],
  importModule: () => Promise<M>,
  register: (module: M) => F,
  logger: vscode.LogOutputChannel,
): LazyCommands<F> {
  const feature = loadOnce(() =>
    importModule().then(
      (module) => {
        // No await between taking the placeholders away and registering the real commands.
        for (const placeholder of placeholders) placeholder.dispose();
        return register(module);
      },
      (error: unknown) => {
        logger.error(`Loading commands failed: ${errorDetail(error)}`);
        throw error;
      },
    ),
  );
  const placeholders = ids.map((id) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      await feature();
      return vscode.commands.executeCommand(id, ...args);
    }),
  );
  context.subscriptions.push(...placeholders);
  return { feature };
}
