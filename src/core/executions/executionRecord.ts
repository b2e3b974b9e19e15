// One run of an agent as the extension remembers it: what was sent, where, what came back. Plain
// data, persisted in workspace state, so it must never hold a secret.
import { MAX_HISTORY_ERROR_CHARS, MAX_HISTORY_OUTPUT_BYTES, MAX_HISTORY_TRACE } from '../limits';
import { boundedText } from '../boundedText';

export type ExecutionState =
  /** Being started (the POST is in flight). */
  | 'starting'
  /** Started; being polled. */
  | 'running'
  | 'finished'
  /** Ended with a problem status (failed, error, cancelled, timeout, unknown). */
  | 'problem'
  /** Could not be started or polled (network, auth, server error). */
  | 'error'
  /** The user stopped watching it; it may still be running on the service. */
  | 'stopped';

export type ExecutionMode = 'deployed' | 'local';

/** A value of a run's inputs as recorded: strings, numbers and booleans as given; files by name and size only. */
export type RecordedInput = string | number | boolean | { readonly file: string; readonly size: number };

export interface ExecutionTargetInfo {
  readonly baseUrl: string;
  readonly account: string;
  readonly agent: string;
  /** The environment of agent-workflows.yaml the run used, when one was. */
  readonly environment?: string;
  /** The environment's own status URL template, when it has one. */
  readonly statusPathTemplate?: string;
}

export interface ExecutionRecord {
  /** Unique within the history; the service's execution id once it is known. */
  readonly key: string;
  readonly executionId?: string;
  readonly mode: ExecutionMode;
  readonly agentName: string;
  /** The agent file, as a URI string. */
  readonly file?: string;
  readonly target?: ExecutionTargetInfo;
  readonly inputs: Readonly<Record<string, RecordedInput>>;
  /** The SHA-256 of the agent file's text a local run ran (Debug Again says when the file changed since). */
  readonly fileDigest?: string;
  /** Absolute paths of file inputs, kept so "run again" can send them again. */
  readonly filePaths?: Readonly<Record<string, string>>;
  readonly state: ExecutionState;
  /** The last status word the service sent. */
  readonly serviceStatus?: string;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly outputs?: unknown;
  /** The size (as JSON) of outputs the history no longer keeps, over its byte budget. */
  readonly outputsNotKept?: number;
  /** The answer body that ended the run with a problem, or the error message. */
  readonly error?: string;
  /** Per-node trace of a local run. */
  readonly trace?: readonly TraceEntry[];
  /** Entries of the trace the history does not keep, over its bounds (keptTrace). */
  readonly traceNotKept?: number;
}

export interface TraceEntry {
  readonly node: string;
  readonly status: string;
  readonly durationMs?: number;
  readonly bytes?: number;
  readonly detail?: string;
}

export function isActive(record: ExecutionRecord): boolean {
  return record.state === 'starting' || record.state === 'running';
}

/**
 * The texts of a change to a record as the history keeps them (the rest as it is): the error cut to
 * MAX_HISTORY_ERROR_CHARS, the status word to MAX_HISTORY_TRACE.textChars, the trace to keptTrace. Their text reaches here redacted
 * (the engine masks a local run's secrets, the client the API key in an answer), so a cut cannot
 * leave part of a secret unmasked.
 */
export function keptChange(change: Partial<ExecutionRecord>): Partial<ExecutionRecord> {
  return {
    ...change,
    // A status word as a server sent it: of any length.
    ...(change.serviceStatus !== undefined ? { serviceStatus: boundedText(change.serviceStatus, MAX_HISTORY_TRACE.textChars) } : {}),
    ...(change.error !== undefined ? { error: keptError(change.error) } : {}),
    ...(change.trace !== undefined ? keptTrace(change.trace) : {}),
  };
}

/** An execution's error text as the history keeps it: cut, saying how long it was. */
export function keptError(error: string): string {
  return boundedText(error, MAX_HISTORY_ERROR_CHARS);
}

/**
 * A trace as the history keeps it: each entry's texts cut (saying how long they were), and entries
 * in their order while they fit MAX_HISTORY_TRACE; how many more there were is `traceNotKept`.
 */
export function keptTrace(entries: readonly TraceEntry[], limits = MAX_HISTORY_TRACE): { trace: TraceEntry[]; traceNotKept?: number } {
  const trace: TraceEntry[] = [];
  let chars = 0;
  for (const entry of entries) {
    if (trace.length >= limits.entries) break;
    const cut = (text: string): string => boundedText(text, limits.textChars);
    const kept: TraceEntry = {
      ...entry,
      node: cut(entry.node),
      status: cut(entry.status),
      ...(entry.detail !== undefined ? { detail: cut(entry.detail) } : {}),
    };
    const size = JSON.stringify(kept).length;
    if (chars + size > limits.chars) break;
    chars += size;
    trace.push(kept);
  }
  return trace.length < entries.length ? { trace, traceNotKept: entries.length - trace.length } : { trace };
}

/**
 * Newest first, at most `max` entries; active executions are never dropped. Outputs are kept, newest
 * first, within `maxOutputBytes` (as JSON) in all: an older execution's outputs beyond it are let go
 * (the record says how large they were), since the whole history is written to workspace state on
 * every change.
 */
export function capHistory(records: readonly ExecutionRecord[], max: number, maxOutputBytes = MAX_HISTORY_OUTPUT_BYTES): ExecutionRecord[] {
  const sorted = [...records].sort((a, b) => b.startedAt - a.startedAt);
  const kept: ExecutionRecord[] = [];
  let ended = 0;
  let outputBytes = 0;
  for (const record of sorted) {
    if (!isActive(record) && ended >= max) continue;
    if (!isActive(record)) ended++;
    const size = record.outputs === undefined ? 0 : outputsSize(record.outputs);
    if (outputBytes + size <= maxOutputBytes) {
      outputBytes += size;
      kept.push(record);
    } else {
      const { outputs: _dropped, ...rest } = record;
      kept.push({ ...rest, outputsNotKept: size });
    }
  }
  return kept;
}

// The same outputs object stays in a record across its updates (each poll writes the history): its
// size is measured once.
const measured = new WeakMap<object, number>();

function outputsSize(outputs: unknown): number {
  if (outputs === null || typeof outputs !== 'object') return JSON.stringify(outputs)?.length ?? 0;
  let size = measured.get(outputs);
  if (size === undefined) {
    size = JSON.stringify(outputs)?.length ?? 0;
    measured.set(outputs, size);
  }
  return size;
}

/**
 * Reads history from storage, keeping only well-formed records: state written by an older or
 * newer version, or edited by hand, must not break activation.
 */
export function parseStoredHistory(stored: unknown): ExecutionRecord[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter(isRecord);
}

const STATES = new Set(['starting', 'running', 'finished', 'problem', 'error', 'stopped']);

function isRecord(value: unknown): value is ExecutionRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.key === 'string' &&
    (v.mode === 'deployed' || v.mode === 'local') &&
    typeof v.agentName === 'string' &&
    typeof v.state === 'string' &&
    STATES.has(v.state) &&
    typeof v.startedAt === 'number' &&
    typeof v.inputs === 'object' &&
    v.inputs !== null &&
    Object.values(v.inputs).every(isRecordedInput) &&
    (v.trace === undefined || (Array.isArray(v.trace) && v.trace.every(hasNodeAndStatus)))
  );
}

/** Whether a trace entry (stored, or sent by a server) names its node and status. */
export function hasNodeAndStatus(entry: unknown): entry is { readonly node: string; readonly status: string } {
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof (entry as TraceEntry).node === 'string' &&
    typeof (entry as TraceEntry).status === 'string'
  );
}

function isRecordedInput(value: unknown): boolean {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { file?: unknown }).file === 'string' &&
    typeof (value as { size?: unknown }).size === 'number'
  );
}

/** "3.2 s", "2 min 5 s", "1 h 4 min". */
export function formatDuration(ms: number): string {
  // Each unit is chosen after rounding, so 999.6 ms is "1.0 s", not "1000 ms".
  if (Math.round(ms) < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (Math.round(ms / 100) < 100) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago". */
export function formatAge(then: number, now: number): string {
  const seconds = Math.max(0, (now - then) / 1000);
  if (seconds < 45) return 'just now';
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(seconds / 3600);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(seconds / 86400);
  return `${days} ${days === 1 ? 'day' : 'days'} ago`;
}

/** The text of a recorded input for display: files by name and size, never content. */
export function describeInput(value: RecordedInput): string {
  if (typeof value === 'object') return `${value.file} (${formatBytes(value.size)})`;
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  // A unit is used only while the rounded number stays under 1024 of it.
  if (Math.round((size / 1024) * 10) < 10240) return `${(size / 1024).toFixed(1)} KB`;
  if (Math.round((size / 1024 ** 2) * 10) < 10240) return `${(size / 1024 ** 2).toFixed(1)} MB`;
  return `${(size / 1024 ** 3).toFixed(2)} GB`;
}
