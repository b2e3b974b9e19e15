// The sends kept for the window: the last 20 per node, and a bound on the bytes of all of them.
import assert from 'node:assert/strict';
import { ExchangeHistory, entryBytes } from '../../src/core/exchange/exchangeHistory';
import type { ExchangeEntry } from '../../src/core/exchange/exchangeHistory';
import { makeExchange, textBody } from '../support/exchanges';

const FILE = 'file:///work/agents/support.agent.yaml';

function entry(node: string, bodyText = '{}', file = FILE): ExchangeEntry {
  const exchange = makeExchange({ node });
  return {
    exchange: { ...exchange, response: { ...exchange.response!, body: textBody(bodyText) } },
    file,
    node,
  };
}

describe('ExchangeHistory', () => {
  it('finds an entry by its id and a node’s sends newest first', () => {
    const history = new ExchangeHistory();
    const first = entry('lookup');
    const other = entry('other');
    const second = entry('lookup');
    history.add(first);
    history.add(other);
    history.add(second);
    assert.equal(history.get(first.exchange.id), first);
    assert.equal(history.get('no-such-id'), undefined);
    assert.deepEqual(history.forNode(FILE, 'lookup'), [second, first]);
    assert.deepEqual(history.forNode('file:///elsewhere.agent.yaml', 'lookup'), []);
  });

  it('keeps the last 20 sends of each node, and the other nodes’ sends', () => {
    const history = new ExchangeHistory();
    const kept = entry('other');
    history.add(kept);
    const sends = Array.from({ length: 25 }, () => entry('lookup'));
    for (const send of sends) history.add(send);
    const forNode = history.forNode(FILE, 'lookup');
    assert.equal(forNode.length, 20);
    assert.equal(forNode[0], sends[24]);
    assert.equal(forNode[19], sends[5]);
    assert.equal(history.get(sends[4]!.exchange.id), undefined);
    assert.equal(history.get(kept.exchange.id), kept);
    assert.equal(history.size, 21);
  });

  it('drops the oldest sends of any node past its byte bound, never the newest', () => {
    const big = 'x'.repeat(1000);
    const one = entryBytes(entry('a', big));
    const history = new ExchangeHistory({ perNode: 20, totalBytes: one * 3 });
    const sends = ['a', 'b', 'c', 'd', 'e'].map((node) => entry(node, big));
    for (const send of sends) history.add(send);
    assert.deepEqual(
      history.all().map((kept) => kept.node),
      ['e', 'd', 'c'],
    );
    assert.ok(history.keptBytes <= one * 3);
    const huge = entry('f', 'y'.repeat(10_000));
    history.add(huge);
    assert.deepEqual(history.all(), [huge]);
    assert.equal(history.keptBytes, entryBytes(huge));
  });

  it('counts a node result as another copy of the response body', () => {
    const plain = entry('a', 'z'.repeat(500));
    assert.equal(entryBytes({ ...plain, result: { body: {} } }) - entryBytes(plain), 1000);
  });

  it('tells its listeners of each entry added, until they stop', () => {
    const history = new ExchangeHistory();
    const seen: string[] = [];
    const stop = history.onDidAdd((added) => seen.push(added.node));
    history.add(entry('a'));
    stop();
    history.add(entry('b'));
    assert.deepEqual(seen, ['a']);
  });
});
