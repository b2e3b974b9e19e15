// Composition root: builds the shared services and hands them to each feature's register function.
import type * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {}

export function deactivate(): void {}
