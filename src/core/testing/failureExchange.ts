// The exchange of the node a failed case failed at: what the Test Explorer links to and what the
// command line's reports sum up under the case. The node is the one the execution failed at, else
// the one the first failed expectation is about (`nodes.X…`, `requests.X…`).
import type { Exchange } from '../exchange/exchange';
import { exchangeOfNode, exchangeSummaryOf } from '../exchange/executionExchanges';
import type { ExchangeSummary } from '../exchange/executionExchanges';
import type { CaseResult } from './caseResult';

/** The node a failed case failed at, when it is about one. */
export function failedNodeOf(result: Pick<CaseResult, 'passed' | 'execution' | 'failures'>): string | undefined {
  if (result.passed) return undefined;
  if (result.execution?.status === 'failed' && result.execution.error.node !== undefined) return result.execution.error.node;
  for (const failure of result.failures) {
    const node = /^(?:nodes|requests)\.([^.[]+)/.exec(failure.path ?? '')?.[1];
    if (node !== undefined) return node;
  }
  return undefined;
}

/** The exchange of the node a failed case failed at, when the case kept one. */
export function failureExchange(result: CaseResult): Exchange | undefined {
  const node = failedNodeOf(result);
  return node === undefined ? undefined : exchangeOfNode(result.exchanges, node);
}

/** The failed case's exchange as reports show it, bounded. */
export function reportedExchange(result: CaseResult): ExchangeSummary | undefined {
  return result.failedExchange ?? exchangeSummaryOf(result.exchanges, failedNodeOf(result));
}
