// Where a debugger may hold a node of a running execution: before it starts (an API node with its
// request built, not sent, and changeable), after its answer arrived, and after it failed. Only the
// held node waits: the nodes the agent runs beside it go on. Without these hooks the engine runs as
// it always does (no extra promise, no extra turn of the event loop).
import type { ApiRequest } from './apiRequest';
import type { NodePlan } from './agentPlan';
import type { NodeResult, Scope } from './evaluate';
import type { NodeError } from './nodeError';

/** The values of the running execution, live and NOT redacted: a debugger shows them redacted. */
export type LiveScope = Scope;

export interface BeforeNode {
  readonly node: NodePlan;
  readonly scope: LiveScope;
  /** An API node's request, built and not sent. */
  readonly request?: ApiRequest;
}

export interface AfterResponse {
  readonly node: NodePlan;
  readonly scope: LiveScope;
  /** The node's result as later nodes will see it. */
  readonly result: NodeResult;
}

export interface AfterFailure {
  readonly node: NodePlan;
  readonly scope: LiveScope;
  /** Why it failed (`kind` 'status' with `details.httpStatus` for an answer of 400 or more). */
  readonly error: NodeError;
}

export interface NodePauses {
  /** Once, when the secrets are read and before the first node starts. */
  readonly started?: (scope: LiveScope) => void;
  /**
   * Before a node starts; the node waits for the promise. For an API node the promise may give a
   * changed request (`changeRequest` of apiRequest.ts), which is sent instead of the built one.
   */
  readonly beforeNode: (stop: BeforeNode) => Promise<ApiRequest | void>;
  /** An API node's answer (below 400) was read; the node ends when the promise settles. */
  readonly afterResponse: (stop: AfterResponse) => Promise<void>;
  /** A node failed; the execution stops its other nodes when the promise settles. */
  readonly afterFailure: (stop: AfterFailure) => Promise<void>;
}
