// A node result the user pinned in the editor: while pinned, Send Request and Run Locally use it
// instead of calling the node (agent tests, batches, servers and deployed runs never do). Pins
// are kept in workspace storage, never in the agent file; what is read back from there is checked
// here, since storage may hold anything an older version or a hand edit left.
import type { NodeResult } from '../engine/evaluate';
import { resultBytes } from './nodeResultMemory';

export type PinSource = 'send' | 'run' | 'typed';

export interface PinnedResult {
  readonly node: string;
  readonly result: NodeResult;
  /** When it was pinned (ms since the epoch). */
  readonly pinnedAt: number;
  readonly source: PinSource;
  /** The exchange it came from, when it came from one (a send). */
  readonly exchangeId?: string;
}

export const PIN_LIMITS = {
  /** A pinned result is kept in workspace storage: at most this much JSON. */
  maxBytes: 1024 * 1024,
  /** Pins of one agent file. */
  maxPerFile: 50,
  /** Agent files with pins in one workspace; the least recently pinned file's go first. */
  maxFiles: 100,
} as const;

export type PinCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Whether a result can be pinned (its size). */
export function checkPinnable(result: NodeResult): PinCheck {
  const bytes = resultBytes(result);
  return bytes <= PIN_LIMITS.maxBytes
    ? { ok: true }
    : {
        ok: false,
        reason: `it is ${formatBytes(bytes)} as JSON, over the ${formatBytes(PIN_LIMITS.maxBytes)} a pin can keep in workspace storage`,
      };
}

/** The pins of one file as stored; entries that are not pins are dropped. */
export function readStoredPins(stored: unknown): Map<string, PinnedResult> {
  const pins = new Map<string, PinnedResult>();
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return pins;
  for (const [node, value] of Object.entries(stored as Record<string, unknown>)) {
    if (!isPin(value) || value.node !== node) continue;
    pins.set(node, value);
  }
  return pins;
}

function isPin(value: unknown): value is PinnedResult {
  if (typeof value !== 'object' || value === null) return false;
  const pin = value as Partial<PinnedResult>;
  const result = pin.result as Partial<NodeResult> | undefined;
  return (
    typeof pin.node === 'string' &&
    typeof pin.pinnedAt === 'number' &&
    (pin.source === 'send' || pin.source === 'run' || pin.source === 'typed') &&
    typeof result === 'object' &&
    result !== null &&
    'body' in result &&
    (result.status === undefined || typeof result.status === 'number') &&
    (result.headers === undefined || (typeof result.headers === 'object' && result.headers !== null))
  );
}

/** `12:01`: the local time of a pin, for its code lens (the day too when it is not today). */
export function pinTimeLabel(pinnedAt: number, now: number = Date.now()): string {
  const at = new Date(pinnedAt);
  const time = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  return new Date(now).toDateString() === at.toDateString()
    ? time
    : `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')} ${time}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}
