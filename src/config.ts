// Typed access to the extension's settings (contributes.configuration in package.json).
import * as vscode from 'vscode';

const SECTION = 'agentWorkflows';

export interface ValidationSettings {
  /** Check agent files as they change. */
  readonly enabled: boolean;
  /** Milliseconds to wait after the last change before checking again. */
  readonly delay: number;
}

export function validationSettings(): ValidationSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    enabled: config.get<boolean>('validation.enabled', true),
    delay: clamp(config.get<number>('validation.delay', 300), 0, 5000),
  };
}

/** True when a configuration change touches one of the given settings (relative to the section). */
export function affects(event: vscode.ConfigurationChangeEvent, ...keys: string[]): boolean {
  return keys.some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : min;
}
