// What running a test case gives, as every part of the test core sees it: the runner makes it, the
// reports, snapshots and the Test Explorer read it. In a file of its own so that none of those
// imports another for its types (no import circle).
import type { Span } from '../document/problems';
import type { ExecutionResult } from '../engine/engine';
import type { ExchangeSummary, ExecutionExchanges } from '../exchange/executionExchanges';

/** What an API node sent to its mock. */
export interface RecordedRequest {
  readonly node: string;
  readonly method: string;
  readonly url: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** JSON when it parses as JSON, else text; undefined with no body. */
  readonly body: unknown;
}

/**
 * What writing a snapshot case's outputs (`test --update`, Update Snapshot) would put right: it has
 * none yet, or they differ from those written.
 */
export type SnapshotFailureCode = 'snapshot-missing' | 'snapshot-differs';

/** One expectation that did not hold, or why the case could not be checked. */
export interface CaseFailure {
  readonly message: string;
  /** Set when writing the case's snapshot would put this failure right. */
  readonly code?: SnapshotFailureCode;
  /** What the expectation is about, as `outputs.report`, `requests.fetch.headers.x-api-key`. */
  readonly path?: string;
  /** The expectation's place in the test file (the case's name when there is none). */
  readonly span: Span;
  readonly expected?: string;
  /** What came, with the case's secrets redacted (what a node sent holds them as it was sent). */
  readonly actual?: unknown;
  /** The expected plain value, when there is one (for a diff against actual). */
  readonly expectedValue?: unknown;
  /** The failure as reports show it, made when the case ended (its values then let go). */
  readonly reported?: Omit<ReportedFailure, 'line'>;
}

export interface CaseResult {
  readonly name: string;
  readonly passed: boolean;
  readonly durationMs: number;
  readonly failures: readonly CaseFailure[];
  /** Undefined when the case could not run (its inputs were refused). */
  readonly execution?: ExecutionResult;
  /** What the API nodes sent, with the case's secrets redacted. */
  readonly requests: readonly RecordedRequest[];
  /** What the reader should know about how the case ran (e.g. what a deployed run leaves out). */
  readonly notes?: readonly string[];
  /** The origin of the service the case was sent to (its inputs and files left this machine). */
  readonly ranOn?: string;
  /** Each API node's request and answer, within the execution's budget (local cases that failed). */
  readonly exchanges?: ExecutionExchanges;
  /** The exchange of the node the case failed at, as reports show it (kept when `exchanges` is let go). */
  readonly failedExchange?: ExchangeSummary;
}

/** A failed expectation as reports keep it: every value bounded, and its line in the test file. */
export interface ReportedFailure {
  readonly message: string;
  /** The expectation's line in the test file (from 1), when the file's text is known. */
  readonly line?: number;
  /** What was expected, in words. */
  readonly expected?: string;
  /** What came: the value itself when short, else its JSON text cut. */
  readonly actual?: unknown;
  /** The expected and actual values as diff lines (- expected, + actual); none without a plain expected value. */
  readonly diff: readonly string[];
}
