// Polls an execution until it ends. Short first interval, backing off to a cap; honours
// Retry-After; retries transient faults of the GET a bounded number of times; stops at an overall
// limit; cancellable at any moment, leaving no request in flight and no timer behind.
import { SYSTEM_CLOCK } from '../clock';
import type { Clock } from '../clock';
import { DEFAULT_REQUEST_TIMEOUT_MS, getStatus } from './agentClient';
import type { StatusAnswer } from './agentClient';
import { ServiceError } from './serviceError';
import type { AgentTarget } from './target';

/** Statuses that mean "not done yet". Anything else but "finished" ends the poll as a problem. */
export const IN_PROGRESS_STATUSES: ReadonlySet<string> = new Set(['running', 'queued', 'pending', 'started', 'in_progress', 'processing']);

export interface PollOptions {
  readonly signal?: AbortSignal;
  /** Called as each status read is sent. */
  readonly onRequest?: (attempt: number) => void;
  /** Called with every status answer. */
  readonly onUpdate?: (answer: StatusAnswer, progress: { readonly requests: number; readonly elapsedMs: number }) => void;
  /** Called before waiting after a transient fault. */
  readonly onRetry?: (error: ServiceError, attempt: number, delayMs: number) => void;
  readonly initialIntervalMs?: number;
  readonly maxIntervalMs?: number;
  readonly backoffFactor?: number;
  /** Give up after this long (default 30 minutes). */
  readonly timeoutMs?: number;
  /** Consecutive transient faults tolerated (default 5). */
  readonly maxRetries?: number;
  /**
   * When the execution started, for a watch taken up again (a window reload): its status is read at
   * once, and then at the interval the poll had reached by now, not from the first interval again.
   */
  readonly startedAt?: number;
  /** Time and timers (tests pass a fake one). */
  readonly clock?: Clock;
}

export type PollOutcome =
  | { readonly kind: 'finished'; readonly outputs: unknown; readonly answer: StatusAnswer; readonly requests: number }
  | { readonly kind: 'problem'; readonly status: string; readonly answer: StatusAnswer; readonly requests: number };

export const POLL_DEFAULTS: Readonly<{
  initialIntervalMs: number;
  maxIntervalMs: number;
  backoffFactor: number;
  timeoutMs: number;
  maxRetries: number;
}> = {
  initialIntervalMs: 500,
  maxIntervalMs: 5000,
  backoffFactor: 1.5,
  timeoutMs: 30 * 60_000,
  maxRetries: 5,
};

export async function pollExecution(target: AgentTarget, executionId: string, options: PollOptions = {}): Promise<PollOutcome> {
  const settings = { ...POLL_DEFAULTS, ...definedOnly(options) };
  const clock = options.clock ?? SYSTEM_CLOCK;
  const started = clock.now();
  const deadline = started + settings.timeoutMs;
  let interval = intervalAfter(options.startedAt === undefined ? 0 : started - options.startedAt, settings);
  let failures = 0;
  let requests = 0;
  const overLimit = (cause?: unknown): ServiceError =>
    new ServiceError(
      'timeout',
      `Stopped waiting for execution ${executionId} after ${Math.round(settings.timeoutMs / 1000)} s; it may still be running. Check it again later by its id.`,
      cause !== undefined ? { cause } : {},
    );
  for (;;) {
    checkCancelled(options.signal, executionId);
    if (clock.now() >= deadline) throw overLimit();
    let answer: StatusAnswer;
    try {
      requests++;
      options.onRequest?.(requests);
      // A slow answer must not carry the poll past its overall limit.
      const timeoutMs = Math.max(1, Math.min(target.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, deadline - clock.now()));
      answer = await getStatus(target, executionId, { timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
      failures = 0;
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      checkCancelled(options.signal, executionId);
      if (error.kind === 'timeout' && clock.now() >= deadline) throw overLimit(error);
      if (!isTransient(error) || failures >= settings.maxRetries) throw error;
      failures++;
      const wantedMs = Math.min(Math.max(error.details.retryAfterMs ?? interval, interval), 60_000);
      const leftMs = Math.max(0, deadline - clock.now());
      const delayMs = Math.min(wantedMs, leftMs);
      options.onRetry?.(error, failures, delayMs);
      await sleep(clock, delayMs, options.signal, executionId);
      // Waited until the limit: no read after it (a timer may fire a millisecond before the deadline).
      if (wantedMs >= leftMs) throw overLimit(error);
      interval = Math.min(interval * settings.backoffFactor, settings.maxIntervalMs);
      continue;
    }
    options.onUpdate?.(answer, { requests, elapsedMs: clock.now() - started });
    const status = answer.status.trim().toLowerCase();
    if (status === 'finished') return { kind: 'finished', outputs: answer.outputs, answer, requests };
    if (!IN_PROGRESS_STATUSES.has(status)) return { kind: 'problem', status: answer.status, answer, requests };
    await sleep(clock, Math.min(interval, Math.max(0, deadline - clock.now())), options.signal, executionId);
    interval = Math.min(interval * settings.backoffFactor, settings.maxIntervalMs);
  }
}

/** Faults a GET may be repeated after: the service was busy or the network hiccupped. */
export function isTransient(error: ServiceError): boolean {
  return (
    error.kind === 'server' ||
    error.kind === 'rate-limited' ||
    error.kind === 'timeout' ||
    (error.kind === 'network' && (error.cause as { transient?: boolean } | undefined)?.transient === true)
  );
}

function checkCancelled(signal: AbortSignal | undefined, executionId: string): void {
  if (signal?.aborted) throw new ServiceError('cancelled', `Stopped watching execution ${executionId}; it may still be running.`);
}

/**
 * The interval a poll has reached after `elapsedMs`: the first interval, grown by the factor after
 * each wait, up to the cap. A poll taken up again goes on from there.
 */
export function intervalAfter(
  elapsedMs: number,
  settings: Pick<typeof POLL_DEFAULTS, 'initialIntervalMs' | 'maxIntervalMs' | 'backoffFactor'>,
): number {
  let interval = settings.initialIntervalMs;
  // Bounded: each step waits at least the first interval and the factor is above 1, or it stops.
  for (let waited = 0; interval > 0 && waited + interval <= elapsedMs && interval < settings.maxIntervalMs && settings.backoffFactor > 1;) {
    waited += interval;
    interval = Math.min(interval * settings.backoffFactor, settings.maxIntervalMs);
  }
  return Math.min(interval, settings.maxIntervalMs);
}

/** Waits, or ends early when cancelled; clears its timer either way. */
function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined, executionId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ServiceError('cancelled', `Stopped watching execution ${executionId}; it may still be running.`));
      return;
    }
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      reject(new ServiceError('cancelled', `Stopped watching execution ${executionId}; it may still be running.`));
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function definedOnly(options: PollOptions): Partial<typeof POLL_DEFAULTS> {
  const result: Record<string, number> = {};
  for (const key of Object.keys(POLL_DEFAULTS) as (keyof typeof POLL_DEFAULTS)[]) {
    const value = options[key];
    if (typeof value === 'number' && Number.isFinite(value)) result[key] = value;
  }
  return result;
}
