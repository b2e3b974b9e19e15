import assert from 'node:assert/strict';
import { cyclePath, executionLevels, findCycles } from '../../src/core/graph/graph';

function graph(edges: Record<string, string[]>): Map<string, Set<string>> {
  return new Map(Object.entries(edges).map(([node, needs]) => [node, new Set(needs)]));
}

describe('graph', () => {
  it('finds cycles and self references, not diamonds', () => {
    const g = graph({ a: ['b'], b: ['c'], c: ['a'], d: ['d'], e: ['f', 'g'], f: ['h'], g: ['h'], h: [] });
    const cycles = findCycles(g).map((c) => [...c].sort().join(','));
    assert.deepEqual(cycles.sort(), ['a,b,c', 'd']);
  });

  it('describes one path around a cycle', () => {
    const g = graph({ a: ['b'], b: ['c'], c: ['a'] });
    assert.deepEqual(cyclePath('a', new Set(['a', 'b', 'c']), g), ['a', 'b', 'c', 'a']);
  });

  it('orders nodes in levels of independent nodes', () => {
    const g = graph({ fetch: [], summarize: ['fetch'], post: ['summarize', 'fetch'], greet: ['fetch'], other: [] });
    assert.deepEqual(
      executionLevels(g).map((level) => level.sort()),
      [['fetch', 'other'], ['greet', 'summarize'], ['post']],
    );
  });

  it('handles a chain of 20,000 nodes without overflowing the stack', () => {
    const edges: Record<string, string[]> = {};
    for (let i = 0; i < 20_000; i++) edges[`n${i}`] = i === 0 ? ['n19999'] : [`n${i - 1}`];
    const cycles = findCycles(graph(edges));
    assert.equal(cycles.length, 1);
    assert.equal(cycles[0]!.length, 20_000);
  });
});
