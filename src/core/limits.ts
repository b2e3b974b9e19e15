// The limits of the local agent server and of the client, in one place so both sides agree: the
// server never answers what its own client would refuse to read. A limit of N bytes accepts exactly
// N and refuses N + 1. Documented in one table in docs/local-server.md (Limits); keep them together.

const MiB = 1024 * 1024;

/**
 * Agent, test and environments files larger than this are not parsed. The YAML parser alone needs
 * about 1 s per MB of dense YAML on a slow machine: at this size any file is checked in under 1 s,
 * whole process.
 */
export const MAX_FILE_BYTES = 768 * 1024;

/**
 * The most bytes of an answer that is read: each answer the client reads (a status answer among
 * them) and the answer of each API node an execution calls.
 */
export const MAX_ANSWER_BYTES = 10 * MiB;
/** An OpenAPI document read for an import (GitHub's REST description is about 10 MB). */
export const MAX_OPENAPI_BYTES = 64 * MiB;

/**
 * The most bytes (as JSON) of outputs the execution history keeps in workspace state, newest first:
 * it is written whole on every change, and each execution's outputs may be megabytes.
 */
export const MAX_HISTORY_OUTPUT_BYTES = 16 * MiB;

/**
 * The error and the trace of one execution as the history keeps them, cut where the record is made:
 * a server may end a run with a failure body of megabytes, or send a trace of any length, and the
 * history is written whole on every change. Characters of the error; entries of the trace, characters
 * of each of an entry's texts, and characters (as JSON) of the trace in all.
 */
export const MAX_HISTORY_ERROR_CHARS = 8000;
export const MAX_HISTORY_TRACE = { entries: 2000, textChars: 1000, chars: 256 * 1024 } as const;

/**
 * The longest delay a timer takes (2^31 - 1 ms, about 24.8 days): Node fires a longer one at once,
 * with a TimeoutOverflowWarning. Time limits given by users are capped to it where a timer is set.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ServerLimits {
  /** Body of a JSON execute request, and the payload part of a multipart one. */
  readonly maxJsonBytes: number;
  readonly maxFileBytes: number;
  /** File parts of one multipart request. */
  readonly maxFiles: number;
  /** Executions running at once; more wait in a queue. */
  readonly maxRunning: number;
  readonly maxQueued: number;
  /**
   * Bytes of inputs held by the executions running or waiting and by the request bodies being received
   * (their files counted as they arrive); beyond, starts are refused and uploads stopped (429).
   */
  readonly maxInFlightInputBytes: number;
  /**
   * Bytes of API node answers held by the executions running (each holds its nodes' answers until
   * it ends); an answer that would pass it fails its node. Each answer alone is capped at
   * MAX_ANSWER_BYTES; this caps 64 executions of many nodes together.
   */
  readonly maxInFlightAnswerBytes: number;
  /** How long an ended execution can still be read. */
  readonly retentionMs: number;
  /** The most ended executions kept, by count and by the size of their status answers; the oldest go first. */
  readonly maxRetained: number;
  readonly maxRetainedBytes: number;
  /** A status answer as a whole: outputs too large for it are left out, each with a note saying why. */
  readonly maxStatusAnswerBytes: number;
  /**
   * Bytes of the exchanges (each API node's request and answer, up to 1 MiB per execution) kept for
   * the ended executions, the oldest let go first; 0 records none.
   */
  readonly maxRetainedExchangeBytes: number;
  /** Time limit of one execution. */
  readonly executionTimeoutMs: number;
  /** Problems listed in one error answer; the rest are counted. */
  readonly maxProblemsListed: number;
  /** Wrong API keys from one client address before it must wait (429), twice as long after each further one. */
  readonly maxKeyFailures: number;
  /**
   * Connections open at once, idle ones included: each holds a socket (a file descriptor) and its
   * parser's buffers. More are closed as they come.
   */
  readonly maxConnections: number;
}

export const SERVER_LIMITS: ServerLimits = {
  maxJsonBytes: 1 * MiB,
  maxFileBytes: 100 * MiB,
  maxFiles: 20,
  maxRunning: 64,
  maxQueued: 10_000,
  maxInFlightInputBytes: 256 * MiB,
  maxInFlightAnswerBytes: 256 * MiB,
  retentionMs: 60 * 60_000,
  maxRetained: 10_000,
  maxRetainedBytes: 256 * MiB,
  maxStatusAnswerBytes: MAX_ANSWER_BYTES,
  maxRetainedExchangeBytes: 64 * MiB,
  executionTimeoutMs: 10 * 60_000,
  maxProblemsListed: 20,
  maxKeyFailures: 10,
  maxConnections: 1024,
};

/** An API key shorter than this is warned about when the server listens beyond this machine. */
export const MIN_REMOTE_API_KEY_LENGTH = 16;

/**
 * Agent test files of a workspace looked at, at most: the Test Explorer lists them, and references
 * and rename across files search them (in VS Code and in the language server).
 */
export const MAX_TEST_FILES = 2000;

/**
 * Agent files under an environments file looked at, at most, when references and rename of an
 * environment name reach the overrides of the agents it applies to.
 */
export const MAX_AGENT_FILES = 2000;

/**
 * Directories read at most when the editor walks a workspace whose file system VS Code cannot
 * search (a virtual one in VS Code for the Web): each read may be a request to a remote service.
 */
export const MAX_WALKED_DIRECTORIES = 5000;

/** An environments file (agent-workflows.yaml) larger than this is not read: it lists a few deployments. */
export const MAX_ENVIRONMENTS_FILE_BYTES = 256 * 1024;
/** The most environments one file may declare (the schema's maxProperties says the same). */
export const MAX_ENVIRONMENTS = 100;

/** Batch runs over a data file: the most bytes of one row (a JSONL line, a CSV record, a JSON item). */
export const MAX_DATA_ROW_BYTES = 1 * MiB;

/** A `.json` data file is read whole: beyond this size it must be written as `.jsonl` (one row a line). */
export const MAX_JSON_DATA_FILE_BYTES = 32 * MiB;
