// The extension's diagnostic log ("Agent Workflows Log", a LogOutputChannel with levels the user can
// change). Its lines carry text that came from the network or from files (status words, error
// answers, agent names): control characters in them are escaped here, once for every line, as the
// command line and the results channel do.
import * as vscode from 'vscode';
import { printable } from './core/printable';

/** The channel's methods that write a message: their first argument is escaped when it is text. */
const WRITERS = new Set<PropertyKey>(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace']);

export function createLogger(context: vscode.ExtensionContext): vscode.LogOutputChannel {
  const channel = vscode.window.createOutputChannel('Agent Workflows Log', { log: true });
  context.subscriptions.push(channel);
  return new Proxy(channel, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!WRITERS.has(property)) return value.bind(target);
      return (message: unknown, ...rest: unknown[]) =>
        (value as (...args: unknown[]) => unknown).call(target, typeof message === 'string' ? printable(message) : message, ...rest);
    },
  });
}
