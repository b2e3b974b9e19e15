// Breakpoints on nodes: a line anywhere in a node's block binds to that node and is shown on the
// node's first line; a line outside every node stays unverified and says why. Each keeps its
// condition, hit count and logpoint message, and counts its hits.
import { resolve } from 'node:path';
import type { Scope } from '../engine/evaluate';
import { conditionHolds, parseHitCondition, renderLogMessage } from './debugExpressions';
import type { NodeLines } from './nodeLines';

export interface BreakpointSpec {
  readonly line: number;
  readonly condition?: string;
  readonly hitCondition?: string;
  readonly logMessage?: string;
}

export interface BoundBreakpoint {
  readonly id: number;
  readonly spec: BreakpointSpec;
  readonly node?: string;
  /** The node's first line when bound, else the line asked for. */
  readonly line: number;
  readonly verified: boolean;
  readonly message?: string;
}

interface Held extends BoundBreakpoint {
  hits: number;
  readonly hitTest?: (hits: number) => boolean;
}

/** What the breakpoints of a node say when it is about to start. */
export interface BreakpointVerdict {
  readonly stop: boolean;
  /** The ids of the breakpoints that stopped it. */
  readonly hit: readonly number[];
  /** Logpoint messages, and conditions that could not be evaluated. */
  readonly messages: readonly string[];
}

/** Breakpoints kept per file at most (more are refused, unverified). */
export const MAX_BREAKPOINTS_PER_FILE = 10_000;

export class NodeBreakpoints {
  private nextId = 1;
  private readonly byFile = new Map<string, Held[]>();

  /** Replaces the breakpoints of a file; `lines` is undefined when the file is not an agent that can be read. */
  set(
    file: string,
    specs: readonly BreakpointSpec[],
    lines: NodeLines | undefined,
    why = 'the file is not a readable agent file',
  ): BoundBreakpoint[] {
    const held = specs.map((spec, index) => this.bind({ id: this.nextId++, spec }, lines, why, index));
    this.byFile.set(resolve(file), held);
    return held.map(shown);
  }

  /** Binds a file's breakpoints again to its lines as they are now (a Restart after an edit); the ones that changed. */
  rebind(file: string, lines: NodeLines): BoundBreakpoint[] {
    const held = this.byFile.get(resolve(file));
    if (!held) return [];
    const changed: BoundBreakpoint[] = [];
    held.forEach((breakpoint, index) => {
      const bound = this.bind(breakpoint, lines, '', index);
      if (bound.node !== breakpoint.node || bound.line !== breakpoint.line || bound.verified !== breakpoint.verified)
        changed.push(shown(bound));
      held[index] = bound;
    });
    return changed;
  }

  /** Starts every hit count again (a new execution). */
  resetHits(): void {
    for (const held of this.byFile.values()) for (const breakpoint of held) breakpoint.hits = 0;
  }

  /** Whether a node about to start in `file` stops, and what its logpoints say. */
  check(file: string, node: string, scope: Scope): BreakpointVerdict {
    const held = this.byFile.get(resolve(file));
    if (!held?.length) return NO_STOP;
    const hit: number[] = [];
    const messages: string[] = [];
    for (const breakpoint of held) {
      if (breakpoint.node !== node || !breakpoint.verified) continue;
      const { condition, logMessage } = breakpoint.spec;
      if (condition !== undefined && condition.trim() !== '') {
        const verdict = conditionHolds(condition, scope);
        if ('error' in verdict) {
          // As debuggers do: a condition that cannot be evaluated stops, and says why.
          messages.push(`Breakpoint on node "${node}": its condition "${condition}" could not be evaluated: ${verdict.error}`);
          hit.push(breakpoint.id);
          continue;
        }
        if (!verdict.holds) continue;
      }
      breakpoint.hits++;
      if (breakpoint.hitTest && !breakpoint.hitTest(breakpoint.hits)) continue;
      if (logMessage !== undefined) messages.push(renderLogMessage(logMessage, scope));
      else hit.push(breakpoint.id);
    }
    return hit.length || messages.length ? { stop: hit.length > 0, hit, messages } : NO_STOP;
  }

  private bind(breakpoint: Pick<Held, 'id' | 'spec'>, lines: NodeLines | undefined, why: string, index: number): Held {
    const { id, spec } = breakpoint;
    if (index >= MAX_BREAKPOINTS_PER_FILE)
      return {
        id,
        spec,
        line: spec.line,
        verified: false,
        message: `Only ${MAX_BREAKPOINTS_PER_FILE} breakpoints are kept per file.`,
        hits: 0,
      };
    let hitTest: ((hits: number) => boolean) | undefined;
    if (spec.hitCondition !== undefined && spec.hitCondition.trim() !== '') {
      try {
        hitTest = parseHitCondition(spec.hitCondition);
      } catch (error) {
        return { id, spec, line: spec.line, verified: false, message: (error as Error).message, hits: 0 };
      }
    }
    if (!lines) return { id, spec, line: spec.line, verified: false, message: `No breakpoint here: ${why}.`, hits: 0 };
    const block = lines.nodeAt(spec.line);
    if (!block)
      return {
        id,
        spec,
        line: spec.line,
        verified: false,
        message: `Line ${spec.line} is not inside a node: put the breakpoint on a node's id or any line of its block.`,
        hits: 0,
      };
    return { id, spec, node: block.id, line: block.line, verified: true, hits: 0, ...(hitTest ? { hitTest } : {}) };
  }
}

const NO_STOP: BreakpointVerdict = { stop: false, hit: [], messages: [] };

function shown(breakpoint: Held): BoundBreakpoint {
  return {
    id: breakpoint.id,
    spec: breakpoint.spec,
    line: breakpoint.line,
    verified: breakpoint.verified,
    ...(breakpoint.node !== undefined ? { node: breakpoint.node } : {}),
    ...(breakpoint.message !== undefined ? { message: breakpoint.message } : {}),
  };
}
