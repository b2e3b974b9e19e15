// The one scheduler of a batch against the agent service: it starts executions with bounded
// concurrency and polls every one of them from a single loop (no loop per execution), within one
// request-rate budget (starts and polls together, a token bucket). Each execution is polled at its
// own next-due time: first when executions have been seen to end (a running estimate of their
// length), then backing off like the poller. A 429 or 503 slows the whole batch: every request waits
// out Retry-After, and the rate and concurrency are cut by half, then grow back slowly (fast up to
// 85 % of the rate that was throttled, then 1 % of it a second). Transient faults are retried with
// backoff, a bounded number of times; a start is repeated only when it certainly did not start
// anything (429, 503, connection refused). Cancellable: polls stop at once, starts already sent
// are waited for so their execution ids are recorded.
import { SYSTEM_CLOCK } from '../clock';
import type { Clock } from '../clock';
import { DEFAULT_REQUEST_TIMEOUT_MS, startAgent, getStatus } from '../service/agentClient';
import type { PreparedInputs } from '../inputs/inputValues';
import { IN_PROGRESS_STATUSES, isTransient, POLL_DEFAULTS } from '../service/poller';
import { ServiceError } from '../service/serviceError';
import type { AgentTarget } from '../service/target';
import { errorMessage } from '../errors';

export const SCHEDULER_DEFAULTS = {
  concurrency: 8,
  /** Requests a second, starts and polls together. */
  ratePerSecond: 10,
  executionTimeoutMs: 30 * 60_000,
  /** Consecutive failed requests of one execution (network, 5xx, timeouts) before it is given up. */
  maxRetries: 8,
  /** With no answer at all for this long while the network fails, the batch stops (it can be resumed). */
  networkGiveUpMs: 60_000,
  /**
   * With no progress for this long (every answer a 429 or 503), the batch gives up (it can be
   * resumed): a service that throttles for ever is not waited on for ever.
   */
  giveUpAfterMs: 15 * 60_000,
} as const;

/** The lowest rate a throttled batch goes down to (a request every 4 s). */
const MIN_RATE = 0.25;
const MAX_RETRY_DELAY_MS = 10_000;
/** A Retry-After beyond this is capped: the batch checks again rather than sleeping for an hour. */
const MAX_PAUSE_MS = 60_000;

export interface SchedulerOptions {
  readonly target: AgentTarget;
  readonly concurrency?: number;
  readonly ratePerSecond?: number;
  /** From the start request to the end of the execution, per execution. */
  readonly executionTimeoutMs?: number;
  readonly maxRetries?: number;
  readonly networkGiveUpMs?: number;
  /** Give up after this long without progress: no answer but a 429 or 503 (default 15 minutes). */
  readonly giveUpAfterMs?: number;
  readonly clock?: Clock;
}

/** A row ready to start. */
export interface ScheduledRow {
  readonly row: number;
  readonly prepared: PreparedInputs;
}

/** An execution started by an earlier run, polled again on --resume. */
export interface ResumedExecution {
  readonly row: number;
  readonly executionId: string;
  /** When its start was sent (epoch ms), if known. */
  readonly startedAtMs?: number;
}

/** How an execution ended, as far as this batch knows. */
export type ExecutionEnd =
  | { readonly kind: 'finished'; readonly outputs: unknown }
  | { readonly kind: 'failed'; readonly status: string; readonly answer: Readonly<Record<string, unknown>> }
  /** A request about it was refused or failed for good (4xx, 5xx, bad answer, too many failures). */
  | { readonly kind: 'error'; readonly message: string }
  /** Gave up waiting (--timeout): it may still be running. */
  | { readonly kind: 'timeout'; readonly message: string }
  /** The start request may or may not have reached the service: not started again. */
  | { readonly kind: 'unknown'; readonly message: string };

export interface ExecutionTiming {
  readonly startedAtMs: number;
  readonly endedAtMs: number;
  readonly requests: number;
}

export interface SchedulerHooks {
  /** The next row to start, or undefined when there are none left. */
  nextRow(): Promise<ScheduledRow | undefined>;
  /** Called just before a start is sent: record it durably. */
  starting(row: number): void;
  started(row: number, executionId: string): void;
  /** The start certainly started nothing (refused, throttled): the row will be started again. */
  refused(row: number): void;
  ended(row: number, executionId: string | undefined, end: ExecutionEnd, timing: ExecutionTiming): void;
  throttled(info: ThrottleInfo): void;
}

export interface ThrottleInfo {
  /** 429 or 503. */
  readonly status: number;
  readonly retryAfterMs?: number;
  /** The budget after the cut. */
  readonly concurrency: number;
  readonly ratePerSecond: number;
}

export interface SchedulerStats {
  readonly requests: number;
  readonly throttled: number;
  /** Executions started or being started and not ended. */
  readonly active: number;
  readonly concurrency: number;
  readonly ratePerSecond: number;
}

/** Why a run of the scheduler stopped before every row ended. */
export type SchedulerStop =
  | { readonly kind: 'interrupted' }
  | { readonly kind: 'auth'; readonly message: string }
  | { readonly kind: 'network'; readonly message: string }
  /** Nothing but 429 or 503 answers for `afterMs`: the rows not started are left for a resume. */
  | { readonly kind: 'given-up'; readonly message: string; readonly afterMs: number }
  /** A hook could not record what happened (the state file cannot be written): nothing more is started. */
  | { readonly kind: 'record-failed'; readonly message: string };

interface Execution {
  readonly row: number;
  readonly startedAtMs: number;
  id?: string;
  deadline: number;
  nextPollAt: number;
  intervalMs: number;
  failures: number;
  requests: number;
  polls: number;
  /** When its start was answered (0 when started by an earlier run). */
  answeredAtMs: number;
  inFlight: boolean;
  ended: boolean;
}

export class BatchScheduler {
  private readonly target: AgentTarget;
  private readonly maxConcurrency: number;
  private readonly maxRate: number;
  private readonly executionTimeoutMs: number;
  private readonly maxRetries: number;
  private readonly networkGiveUpMs: number;
  private readonly giveUpAfterMs: number;
  private readonly clock: Clock;

  private readonly active = new Map<number, Execution>();
  private readonly retryStarts: Array<{ readonly scheduled: ScheduledRow; readonly notBefore: number }> = [];
  private readonly startAttempts = new Map<number, number>();
  private ready: ScheduledRow | undefined;
  private fetching = false;
  private exhausted = false;
  private startsInFlight = 0;
  private pollsInFlight = 0;

  private tokens = 1;
  private lastRefillAt: number;
  private rate: number;
  private limit: number;
  /** The rate at which the service last throttled: growth slows near it. */
  private ceiling = Infinity;
  private lastCutAt = 0;
  private grownAt: number;
  private pausedUntil = 0;
  /** How long executions take, as far as polls have shown: when to poll a new one first. */
  private firstPollMs: number = POLL_DEFAULTS.initialIntervalMs;

  private requests = 0;
  /** When the requests of the last second were sent (at most the rate's worth): the rate actually sent. */
  private readonly sentAt: number[] = [];
  private throttledCount = 0;
  private lastAnswerAt: number;
  /** When the batch last made progress: an answer that was not a 429 or 503 (or the run's start). */
  private lastProgressAt: number;
  /** Whether the service has answered at all: until it has, a network failure stops the batch at once (a wrong URL, a service down). */
  private answered = false;
  private stop: SchedulerStop | undefined;
  private readonly pollAbort = new AbortController();
  private wakeUp: (() => void) | undefined;
  private sourceError: { readonly error: unknown } | undefined;

  constructor(
    options: SchedulerOptions,
    private readonly hooks: SchedulerHooks,
  ) {
    this.target = options.target;
    this.maxConcurrency = Math.max(1, Math.floor(options.concurrency ?? SCHEDULER_DEFAULTS.concurrency));
    this.maxRate = Math.max(MIN_RATE, options.ratePerSecond ?? SCHEDULER_DEFAULTS.ratePerSecond);
    this.executionTimeoutMs = options.executionTimeoutMs ?? SCHEDULER_DEFAULTS.executionTimeoutMs;
    this.maxRetries = options.maxRetries ?? SCHEDULER_DEFAULTS.maxRetries;
    this.networkGiveUpMs = options.networkGiveUpMs ?? SCHEDULER_DEFAULTS.networkGiveUpMs;
    this.giveUpAfterMs = options.giveUpAfterMs ?? SCHEDULER_DEFAULTS.giveUpAfterMs;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.lastRefillAt = this.grownAt = this.lastAnswerAt = this.lastProgressAt = this.clock.now();
    this.rate = this.maxRate;
    this.limit = this.maxConcurrency;
  }

  stats(): SchedulerStats {
    return {
      requests: this.requests,
      throttled: this.throttledCount,
      active: this.active.size,
      concurrency: Math.floor(this.limit),
      ratePerSecond: Math.round(this.rate * 100) / 100,
    };
  }

  /** Runs until every row has ended, or the batch is stopped (signal, auth failure, network down). */
  async run(resumed: readonly ResumedExecution[], signal: AbortSignal): Promise<SchedulerStop | undefined> {
    const onAbort = (): void => {
      this.stop ??= { kind: 'interrupted' };
      this.pollAbort.abort();
      this.wake();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    const now = this.clock.now();
    this.lastProgressAt = now;
    for (const { row, executionId, startedAtMs } of resumed) {
      const startedAt = startedAtMs ?? now;
      this.active.set(row, {
        row,
        startedAtMs: startedAt,
        id: executionId,
        deadline: Math.max(now, startedAt) + this.executionTimeoutMs,
        nextPollAt: now,
        intervalMs: POLL_DEFAULTS.initialIntervalMs,
        failures: 0,
        requests: 0,
        polls: 1,
        answeredAtMs: 0,
        inFlight: false,
        ended: false,
      });
    }
    try {
      await this.loop();
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    if (this.sourceError) throw this.sourceError.error;
    return this.stop;
  }

  private async loop(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      if (this.stop) {
        if (this.startsInFlight === 0 && this.pollsInFlight === 0) return;
        await this.sleep(1000);
        continue;
      }
      if (now - this.lastProgressAt >= this.giveUpAfterMs) {
        this.halt({
          kind: 'given-up',
          afterMs: now - this.lastProgressAt,
          message: `the service answered nothing but "slow down" (429 or 503) for ${formatMinutes(now - this.lastProgressAt)}: gave up`,
        });
        continue;
      }
      this.refill(now);
      this.grow(now);
      let nextWake = Math.min(now + 1000, this.lastProgressAt + this.giveUpAfterMs);
      for (const execution of this.active.values()) {
        if (execution.id !== undefined && !execution.inFlight && now >= execution.deadline) {
          this.end(execution, {
            kind: 'timeout',
            message: `gave up waiting for execution ${execution.id} after ${Math.round(this.executionTimeoutMs / 1000)} s, the time limit of one execution; it may still be running`,
          });
        }
      }
      if (now < this.pausedUntil) {
        nextWake = this.pausedUntil;
      } else {
        // Polls first: they end executions and free slots. The set is bounded by the concurrency.
        const due = [...this.active.values()]
          .filter((execution) => execution.id !== undefined && !execution.inFlight && execution.nextPollAt <= now)
          .sort((a, b) => a.nextPollAt - b.nextPollAt);
        let waiting = false;
        for (const execution of due) {
          if (this.tokens < 1) {
            waiting = true;
            break;
          }
          this.tokens--;
          void this.poll(execution);
        }
        for (;;) {
          // A start waiting to be repeated holds its slot, so those waiting stay within the concurrency.
          const retryIndex = this.retryStarts.findIndex((entry) => entry.notBefore <= now);
          if (this.active.size + (retryIndex >= 0 ? 0 : this.retryStarts.length) >= Math.floor(this.limit)) break;
          const next = retryIndex >= 0 ? this.retryStarts[retryIndex]!.scheduled : this.ready;
          if (!next) {
            if (!this.exhausted && !this.fetching) this.fetch();
            break;
          }
          if (this.tokens < 1) {
            waiting = true;
            break;
          }
          this.tokens--;
          if (retryIndex >= 0) this.retryStarts.splice(retryIndex, 1);
          else this.ready = undefined;
          void this.start(next);
        }
        if (waiting) nextWake = Math.min(nextWake, now + Math.ceil(((1 - this.tokens) / this.rate) * 1000));
        for (const execution of this.active.values()) {
          if (execution.id !== undefined && !execution.inFlight) nextWake = Math.min(nextWake, execution.nextPollAt, execution.deadline);
        }
        for (const entry of this.retryStarts) nextWake = Math.min(nextWake, entry.notBefore);
      }
      if (this.exhausted && !this.ready && !this.fetching && this.retryStarts.length === 0 && this.active.size === 0) return;
      await this.sleep(Math.max(1, nextWake - this.clock.now()));
    }
  }

  private fetch(): void {
    this.fetching = true;
    this.hooks
      .nextRow()
      .then(
        (scheduled) => {
          if (scheduled) this.ready = scheduled;
          else this.exhausted = true;
        },
        (error: unknown) => {
          // The row source failed: no more rows are started, what runs ends, and run() rethrows it.
          this.exhausted = true;
          this.sourceError ??= { error };
        },
      )
      .finally(() => {
        this.fetching = false;
        this.wake();
      });
  }

  private async start(scheduled: ScheduledRow): Promise<void> {
    const now = this.clock.now();
    const execution: Execution = {
      row: scheduled.row,
      startedAtMs: now,
      deadline: now + this.executionTimeoutMs,
      nextPollAt: Infinity,
      intervalMs: POLL_DEFAULTS.initialIntervalMs,
      failures: 0,
      requests: 1,
      polls: 0,
      answeredAtMs: 0,
      inFlight: true,
      ended: false,
    };
    // The state line comes first: no row is sent without it, and a state file that cannot be
    // written stops the batch before anything more is sent.
    if (!this.record(() => this.hooks.starting(scheduled.row))) return;
    this.active.set(scheduled.row, execution);
    this.startsInFlight++;
    this.sent();
    try {
      const started = await startAgent(this.target, scheduled.prepared, { limitMs: this.executionTimeoutMs });
      this.answeredNow(true);
      execution.id = started.executionId;
      execution.answeredAtMs = this.clock.now();
      execution.nextPollAt = execution.answeredAtMs + this.firstPollMs;
      this.record(() => this.hooks.started(scheduled.row, started.executionId));
    } catch (error) {
      this.startFailed(scheduled, execution, error);
    } finally {
      execution.inFlight = false;
      this.startsInFlight--;
      this.wake();
    }
  }

  /**
   * Runs a hook that records what happened; when it throws (a full disk, a file made read-only),
   * the batch stops at once with that reason instead of going on without a record. False then.
   */
  private record(write: () => void): boolean {
    try {
      write();
      return true;
    } catch (error) {
      this.halt({ kind: 'record-failed', message: errorMessage(error) });
      return false;
    }
  }

  private startFailed(scheduled: ScheduledRow, execution: Execution, error: unknown): void {
    if (error instanceof ServiceError && error.status !== undefined) this.answeredNow(!isThrottle(error));
    // Throttled starts are waited out as the service asks, until the batch gives up (giveUpAfterMs);
    // failed ones are tried maxRetries times: either way a row's state lines stay bounded.
    const retry = (delayMs: number, maxAttempts: number): void => {
      this.active.delete(scheduled.row);
      const attempts = (this.startAttempts.get(scheduled.row) ?? 0) + 1;
      if (attempts > maxAttempts) {
        this.end(execution, { kind: 'error', message: `not started: ${errorMessage(error)} (tried ${attempts} times)` });
        return;
      }
      this.startAttempts.set(scheduled.row, attempts);
      if (!this.record(() => this.hooks.refused(scheduled.row))) return;
      this.retryStarts.push({ scheduled, notBefore: Math.max(this.pausedUntil, this.clock.now() + delayMs) });
    };
    if (!(error instanceof ServiceError)) {
      this.end(execution, { kind: 'unknown', message: `the start failed unexpectedly (${errorMessage(error)}); it may have started` });
      return;
    }
    if (error.kind === 'auth') {
      this.halt({ kind: 'auth', message: error.message });
      this.active.delete(scheduled.row);
      this.record(() => this.hooks.refused(scheduled.row));
      return;
    }
    if (isThrottle(error)) {
      // Waited out as long as the batch goes on: the give-up time bounds it, and the row, never
      // started, stays for a resume rather than ending as an error.
      this.throttle(error);
      retry(0, Infinity);
      return;
    }
    if (error.kind === 'network' && (error.cause as { kind?: string } | undefined)?.kind === 'refused') {
      // Connection refused: the request never reached the service, so starting again is safe.
      this.networkFailed(error);
      retry(retryDelay((this.startAttempts.get(scheduled.row) ?? 0) + 1), this.maxRetries);
      return;
    }
    if (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'cancelled' || error.kind === 'bad-response') {
      if (error.kind === 'network' || error.kind === 'timeout') this.networkFailed(error);
      this.end(execution, { kind: 'unknown', message: error.message });
      return;
    }
    // Refused for this row (400, 404, 413, 500...): nothing started.
    this.end(execution, { kind: 'error', message: error.message });
  }

  private async poll(execution: Execution): Promise<void> {
    const id = execution.id!;
    execution.inFlight = true;
    execution.requests++;
    this.sent();
    this.pollsInFlight++;
    const first = execution.polls === 0;
    execution.polls++;
    try {
      const timeoutMs = Math.max(
        1,
        Math.min(this.target.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, execution.deadline - this.clock.now()),
      );
      const answer = await getStatus(this.target, id, { timeoutMs, signal: this.pollAbort.signal });
      this.answeredNow(true);
      execution.failures = 0;
      const status = answer.status.trim().toLowerCase();
      if (status === 'finished') {
        if (execution.answeredAtMs > 0) this.learn(this.clock.now() - execution.answeredAtMs);
        this.end(execution, { kind: 'finished', outputs: answer.outputs });
      } else if (!IN_PROGRESS_STATUSES.has(status)) {
        this.end(execution, { kind: 'failed', status: answer.status, answer: answer.body });
      } else {
        // The first poll came early: the next one soon after, then backing off like the poller.
        if (first) execution.intervalMs = Math.min(POLL_DEFAULTS.initialIntervalMs, Math.max(50, this.firstPollMs * 0.05));
        execution.nextPollAt = this.clock.now() + execution.intervalMs;
        execution.intervalMs = Math.min(execution.intervalMs * POLL_DEFAULTS.backoffFactor, POLL_DEFAULTS.maxIntervalMs);
      }
    } catch (error) {
      if (error instanceof ServiceError && error.status !== undefined) this.answeredNow(!isThrottle(error));
      if (this.stop?.kind === 'interrupted' || !(error instanceof ServiceError) || error.kind === 'cancelled') {
        if (!(error instanceof ServiceError) && !this.stop) this.end(execution, { kind: 'error', message: errorMessage(error) });
        return;
      }
      if (error.kind === 'auth') {
        this.halt({ kind: 'auth', message: error.message });
        return;
      }
      // Before isTransient, which also takes a 429 or 503: the whole batch slows down for those.
      if (isThrottle(error)) {
        this.throttle(error);
        execution.nextPollAt = Math.max(this.pausedUntil, this.clock.now() + execution.intervalMs);
        return;
      }
      if (isTransient(error)) {
        if (error.kind === 'network' || error.kind === 'timeout') this.networkFailed(error);
        execution.failures++;
        if (execution.failures > this.maxRetries) {
          this.end(execution, {
            kind: 'error',
            message: `${error.message} (gave up after ${execution.failures} tries; resume to poll it again)`,
          });
          return;
        }
        execution.nextPollAt = this.clock.now() + Math.max(error.details.retryAfterMs ?? 0, retryDelay(execution.failures));
        return;
      }
      this.end(execution, { kind: 'error', message: error.message });
    } finally {
      execution.inFlight = false;
      this.pollsInFlight--;
      this.wake();
    }
  }

  private end(execution: Execution, end: ExecutionEnd): void {
    if (execution.ended) return;
    execution.ended = true;
    this.active.delete(execution.row);
    this.startAttempts.delete(execution.row);
    const timing = { startedAtMs: execution.startedAtMs, endedAtMs: this.clock.now(), requests: execution.requests };
    this.record(() => this.hooks.ended(execution.row, execution.id, end, timing));
  }

  /**
   * Moves the first-poll delay toward just under how long executions were seen to take (from the
   * start's answer to the poll that found them ended), a moving average over the executions that
   * end: it settles about where half the executions are found ended at their first poll and the
   * rest at the next one, a twentieth of the delay later.
   */
  private learn(seenMs: number): void {
    const target = Math.min(POLL_DEFAULTS.maxIntervalMs, Math.max(50, seenMs * 0.98));
    this.firstPollMs += (target - this.firstPollMs) * 0.1;
  }

  private throttle(error: ServiceError): void {
    this.throttledCount++;
    const now = this.clock.now();
    const retryAfterMs = error.details.retryAfterMs;
    this.pausedUntil = Math.max(this.pausedUntil, now + Math.min(retryAfterMs ?? 1000, MAX_PAUSE_MS));
    // One cut per second: the answers to requests sent before the cut say nothing new.
    if (now - this.lastCutAt >= 1000) {
      this.lastCutAt = now;
      // The rate the service refused is what was sent, which may be well under the budget.
      // (A quarter of the budget at least: over a short start the count says little.)
      const sent = this.sentInLastSecond(now);
      this.ceiling = Math.max(MIN_RATE, Math.min(this.rate, Math.max(sent, this.rate / 4)));
      this.rate = Math.max(MIN_RATE, this.ceiling * 0.5);
      this.limit = Math.max(1, this.limit * 0.5);
      this.tokens = Math.min(this.tokens, 0);
    }
    this.hooks.throttled({
      status: error.status ?? 429,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      concurrency: Math.floor(this.limit),
      ratePerSecond: Math.round(this.rate * 100) / 100,
    });
  }

  private sent(): void {
    this.requests++;
    const now = this.clock.now();
    this.sentAt.push(now);
    this.sentInLastSecond(now);
  }

  private sentInLastSecond(now: number): number {
    while (this.sentAt.length && this.sentAt[0]! <= now - 1000) this.sentAt.shift();
    return this.sentAt.length;
  }

  private refill(now: number): void {
    const capacity = Math.max(1, this.rate / 5);
    this.tokens = Math.min(capacity, this.tokens + ((now - this.lastRefillAt) / 1000) * this.rate);
    this.lastRefillAt = now;
  }

  /** Additive growth back after a cut: held for 2 s, then fast to 85 % of the throttled rate, slowly up to 115 %, faster again beyond; the concurrency by a twentieth of its maximum a second (at least one). */
  private grow(now: number): void {
    const seconds = (now - Math.max(this.grownAt, this.lastCutAt + 2000)) / 1000;
    if (seconds <= 0) return;
    // Fast far under the rate that was throttled, slowly near it, and probing faster again well past it.
    const step =
      this.rate < 0.85 * this.ceiling
        ? 0.1 * this.maxRate
        : this.rate < 1.15 * this.ceiling
          ? Math.max(0.01 * this.ceiling, 0.002 * this.maxRate)
          : 0.05 * this.maxRate;
    this.rate = Math.min(this.maxRate, this.rate + step * seconds);
    this.limit = Math.min(this.maxConcurrency, this.limit + seconds * Math.max(1, this.maxConcurrency * 0.05));
    this.grownAt = now;
  }

  /** The service answered; `progress` unless it was a 429 or 503. */
  private answeredNow(progress: boolean): void {
    this.answered = true;
    this.lastAnswerAt = this.clock.now();
    if (progress) this.lastProgressAt = this.lastAnswerAt;
  }

  private networkFailed(error: ServiceError): void {
    if (!this.answered) this.halt({ kind: 'network', message: error.message });
    else if (this.clock.now() - this.lastAnswerAt > this.networkGiveUpMs) {
      this.halt({
        kind: 'network',
        message: `no answer from the service for ${Math.round(this.networkGiveUpMs / 1000)} s: ${error.message}`,
      });
    }
  }

  private halt(stop: SchedulerStop): void {
    this.stop ??= stop;
    // Starts already sent are waited for (their own time limit bounds them): their ids must be recorded.
    this.pollAbort.abort();
    this.wake();
  }

  private wake(): void {
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    wakeUp?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        this.clock.clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** 429, or 503: the service asks to slow down. */
function isThrottle(error: ServiceError): boolean {
  return error.kind === 'rate-limited' || (error.kind === 'server' && error.status === 503);
}

/** 0.5 s, 1 s, 2 s… up to 10 s. */
function retryDelay(attempt: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, 500 * 2 ** Math.max(0, attempt - 1));
}

/** "15 min", "90 s": a give-up time in words. */
function formatMinutes(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${seconds} s`;
}
