// What the debugger evaluates (core/debug/debugExpressions.ts) through the engine's evaluator:
// paths and `{{ }}` text, breakpoint conditions, hit counts, logpoint messages, typed values; and
// which node each line of an agent file belongs to (core/debug/nodeLines.ts).
import assert from 'node:assert/strict';
import {
  comparison,
  conditionHolds,
  evaluateDebugExpression,
  parseHitCondition,
  renderLogMessage,
  typedDebugValue,
} from '../../src/core/debug/debugExpressions';
import { NodeLines } from '../../src/core/debug/nodeLines';
import { VariableStore } from '../../src/core/debug/debugValues';
import { loadAgent } from '../../src/core/engine/agentPlan';
import type { Scope } from '../../src/core/engine/evaluate';
import { namedSecretRedactor } from '../../src/core/exchange/recordExchange';

const scope: Scope = {
  inputs: { customer: 'C-1', count: 3, empty: '' },
  nodes: new Map([['lookup', { status: 200, headers: { 'x-id': '9' }, body: { items: [{ id: 'a' }, { id: 'b' }], ok: true } }]]),
  secrets: new Map([['TOKEN', 'secret-value-123']]),
};

describe('debugger expressions', () => {
  it('evaluates a bare path or {{ }} text with the engine evaluator, and says what points at nothing', () => {
    assert.equal(evaluateDebugExpression('nodes.lookup.body.items[1].id', scope), 'b');
    assert.equal(evaluateDebugExpression('{{ inputs.customer }}', scope), 'C-1');
    assert.equal(evaluateDebugExpression('Customer {{ inputs.customer }} has {{ inputs.count }}', scope), 'Customer C-1 has 3');
    assert.throws(() => evaluateDebugExpression('nodes.lookup.body.nope', scope), /has no "nope" \(it has: "items", "ok"\)/);
    assert.throws(() => evaluateDebugExpression('1 + 1', scope), /cannot be read: .*an expression holds one reference/);
    assert.throws(() => evaluateDebugExpression('   ', scope), /Type a reference/);
    assert.throws(() => evaluateDebugExpression('x'.repeat(20_000), scope), /longer than 10000 characters/);
  });

  it('checks conditions: truthy references and comparisons with values, words and references', () => {
    const holds = (condition: string): unknown => conditionHolds(condition, scope);
    assert.deepEqual(holds('nodes.lookup.body.ok'), { holds: true });
    assert.deepEqual(holds('inputs.empty'), { holds: false });
    assert.deepEqual(holds('inputs.customer == C-1'), { holds: true });
    assert.deepEqual(holds("inputs.customer == 'C-1'"), { holds: true });
    assert.deepEqual(holds('inputs.customer != "C-1"'), { holds: false });
    assert.deepEqual(holds('nodes.lookup.status >= 200'), { holds: true });
    assert.deepEqual(holds('inputs.count < 2'), { holds: false });
    assert.deepEqual(holds('inputs.count == "3"'), { holds: true });
    assert.deepEqual(holds('{{ nodes.lookup.headers.x-id }} == 9'), { holds: true });
    assert.deepEqual(holds('nodes.lookup.body.items == nodes.lookup.body.items'), { holds: true });
    assert.match(String((holds('inputs.customer > 2') as { error: string }).error), /compares two numbers or two texts/);
    assert.match(String((holds('nodes.other.body') as { error: string }).error), /node "other" has no result/);
  });

  it('splits a condition at its first operator as the regex did, and answers at once for a long one', () => {
    // What conditions were split with before: its lazy start scanned each run of spaces again from
    // every character before it. The answers must stay the same.
    const COMPARISON = /^(.*?)\s*(==|!=|>=|<=|>|<)\s*(.*)$/s;
    const alphabet = ['a', ' ', '\n', '=', '!', '<', '>'];
    let conditions = [''];
    for (let length = 1; length <= 6; length++) {
      conditions = conditions.flatMap((condition) => (condition.length === length - 1 ? alphabet.map((c) => condition + c) : []));
      for (const condition of conditions) {
        const match = COMPARISON.exec(condition);
        assert.deepEqual(comparison(condition), match ? [match[1], match[2], match[3]] : undefined, JSON.stringify(condition));
      }
    }
    // The regex took minutes here (mocha's timeout fails it); the search is linear.
    const long = conditionHolds(`inputs.count${' '.repeat(500_000)}x`, scope);
    assert.match((long as { error: string }).error, /longer than 10000 characters/);
  });

  it('reads hit counts and refuses what it does not understand', () => {
    const hits = (condition: string): boolean[] => [1, 2, 3, 4, 5, 6].map(parseHitCondition(condition));
    assert.deepEqual(hits('3'), [false, false, true, true, true, true]);
    assert.deepEqual(hits('>= 3'), [false, false, true, true, true, true]);
    assert.deepEqual(hits('== 3'), [false, false, true, false, false, false]);
    assert.deepEqual(hits('> 3'), [false, false, false, true, true, true]);
    assert.deepEqual(hits('% 2'), [false, true, false, true, false, true]);
    assert.throws(() => parseHitCondition('often'), /Hit count "often" is not understood/);
  });

  it('renders logpoint messages, an expression that fails saying why in its place', () => {
    assert.equal(renderLogMessage('{{ inputs.customer }}: {{ nodes.lookup.body.items }}', scope), 'C-1: [{"id":"a"},{"id":"b"}]');
    assert.match(renderLogMessage('got {{ nodes.none.body }}', scope), /^got <points at nothing: node "none" has no result/);
  });

  it('types Set Value: JSON, else text, with {{ }} filled in', () => {
    assert.deepEqual(typedDebugValue('{"a": 1}', scope), { a: 1 });
    assert.equal(typedDebugValue('42', scope), 42);
    assert.equal(typedDebugValue('plain words', scope), 'plain words');
    assert.equal(typedDebugValue('Bearer {{ secrets.TOKEN }}', scope), 'Bearer secret-value-123');
    assert.throws(() => typedDebugValue('{{ secrets.NOPE }}', scope), /secret "NOPE" was not provided/);
  });

  it('binds each line to the node whose block holds it (the blank line between two nodes to none)', () => {
    const text = `version: 1
name: Lines
nodes:
  first:
    type: template
    text: one

  second:
    type: template
    text: "{{ nodes.first.body }}"
outputs:
  out: { from: "{{ nodes.second.body }}" }
`;
    const lines = new NodeLines(text, loadAgent(text).model);
    assert.deepEqual(
      [1, 3, 4, 6, 7, 8, 10, 11].map((line) => lines.nodeAt(line)?.id ?? null),
      [null, null, 'first', 'first', null, 'second', 'second', null],
    );
    assert.equal(lines.lineOf('second'), 8);
  });

  it('shows values lazily: secrets by name before any cut, big lists paged, references bounded', () => {
    const redactor = namedSecretRedactor(scope.secrets);
    const store = new VariableStore(2);
    const shown = store.show('body', { token: `${'x'.repeat(995)}secret-value-123 and more` }, 'nodes.a.body', redactor);
    const [token] = store.children(shown.variablesReference, redactor);
    assert.match(token!.value, /^"x{995}\{\{ secrets\.TOKEN \}\}…" \(1,020 characters\)$/);
    const list = store.show(
      'list',
      Array.from({ length: 500 }, (_, index) => index),
      'l',
      redactor,
    );
    assert.equal(list.indexedVariables, 500);
    assert.deepEqual(
      store.children(list.variablesReference, redactor, { filter: 'indexed', start: 498, count: 10 }).map((item) => item.value),
      ['498', '499'],
    );
    assert.equal(store.show('full', { a: 1 }, undefined, redactor).variablesReference, 0, 'past the bound, values do not expand');
  });
});
