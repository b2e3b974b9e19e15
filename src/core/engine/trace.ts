// The per-node trace of an execution: what ran, when, for how long, with what result. Plain data
// (JSON as it is) with every secret value redacted.

export type NodeStatus =
  /** Waiting for the nodes it references, or for a free slot. */
  | 'pending'
  | 'running'
  | 'succeeded'
  | 'failed'
  /** Stopped while running: the execution was cancelled, or another node failed. */
  | 'cancelled'
  /** Never started, because the execution failed or was cancelled first. */
  | 'skipped';

export interface NodeTrace {
  readonly node: string;
  readonly type: 'api' | 'template';
  readonly status: NodeStatus;
  /** ISO 8601 times. */
  readonly startedAt?: string;
  readonly endedAt?: string;
  readonly durationMs?: number;
  /** Size of the response body (API nodes) or of the rendered text (template nodes). */
  readonly bytes?: number;
  /** API nodes: the method and the URL without query or fragment. */
  readonly method?: string;
  readonly url?: string;
  /** API nodes: the answer's HTTP status. */
  readonly httpStatus?: number;
  /** The node was not run: the result the user pinned in the editor stood in for it. */
  readonly pinned?: boolean;
  /** Why the node failed. */
  readonly error?: string;
}
