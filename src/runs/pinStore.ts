// The node results the user pinned, per agent file, in workspace storage (never in the file):
// Send Request and Run Locally use them instead of calling those nodes. Bounded: the size of each
// pin, the pins of a file, and the files with pins (the least recently pinned file's go first).
import * as vscode from 'vscode';
import type { NodeResult } from '../core/engine/evaluate';
import { checkPinnable, PIN_LIMITS, readStoredPins } from '../core/nodeValues/pins';
import type { PinCheck, PinnedResult } from '../core/nodeValues/pins';

const PINS_PREFIX = 'agentWorkflows.pins:';
const FILES_KEY = 'agentWorkflows.pinnedFiles';

export class PinStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  /** Fires with the agent file whose pins changed. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: vscode.Memento) {}

  /** The pins of a file, by node id. */
  pinsOf(file: vscode.Uri): Map<string, PinnedResult> {
    return readStoredPins(this.state.get<unknown>(PINS_PREFIX + file.toString()));
  }

  get(file: vscode.Uri, node: string): PinnedResult | undefined {
    return this.pinsOf(file).get(node);
  }

  /** What the engine takes: the pinned results of a file by node id. */
  results(file: vscode.Uri): Map<string, NodeResult> {
    return new Map([...this.pinsOf(file)].map(([node, pin]) => [node, pin.result]));
  }

  /** Pins a result (in place of the node's pin before); refused when it is too large to keep. */
  async pin(file: vscode.Uri, pin: PinnedResult): Promise<PinCheck> {
    const check = checkPinnable(pin.result);
    if (!check.ok) return check;
    const pins = this.pinsOf(file);
    pins.delete(pin.node);
    pins.set(pin.node, pin);
    // The oldest pins of the file go past its bound.
    while (pins.size > PIN_LIMITS.maxPerFile) pins.delete(pins.keys().next().value!);
    await this.save(file, pins);
    return { ok: true };
  }

  /** False when the node had no pin. */
  async unpin(file: vscode.Uri, node: string): Promise<boolean> {
    const pins = this.pinsOf(file);
    if (!pins.delete(node)) return false;
    await this.save(file, pins);
    return true;
  }

  private async save(file: vscode.Uri, pins: Map<string, PinnedResult>): Promise<void> {
    const key = file.toString();
    const files = this.state.get<unknown>(FILES_KEY);
    const known = (Array.isArray(files) ? files : []).filter((entry): entry is string => typeof entry === 'string' && entry !== key);
    if (pins.size > 0) known.push(key);
    await this.state.update(PINS_PREFIX + key, pins.size > 0 ? Object.fromEntries(pins) : undefined);
    while (known.length > PIN_LIMITS.maxFiles) await this.state.update(PINS_PREFIX + known.shift()!, undefined);
    await this.state.update(FILES_KEY, known);
    this.changed.fire(file);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
