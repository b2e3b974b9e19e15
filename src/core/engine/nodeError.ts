// Why a node failed, with the node it happened in. The engine turns it into the execution's error.

export type NodeFailureKind =
  /** An expression could not be evaluated, or its value cannot be used where it is written. */
  | 'expression'
  /** The request could not be made or completed (network, time limit, size cap, redirects). */
  | 'request'
  /** The API answered with an error status (400 or more). */
  | 'status'
  /** The answer could not be read (e.g. JSON that is not). */
  | 'response'
  | 'cancelled';

export class NodeError extends Error {
  constructor(
    readonly node: string,
    /** The cause, without the node's name (the engine adds it). */
    readonly reason: string,
    readonly kind: NodeFailureKind,
    readonly details: { readonly httpStatus?: number; readonly bytes?: number; readonly cause?: unknown } = {},
  ) {
    super(`Node "${node}" failed: ${reason}`, details.cause !== undefined ? { cause: details.cause } : undefined);
    this.name = 'NodeError';
  }
}
