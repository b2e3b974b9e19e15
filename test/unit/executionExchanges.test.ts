import * as assert from 'node:assert/strict';
import { EXCHANGE_BODY_LIMITS, EXECUTION_EXCHANGE_BYTES } from '../../src/core/exchange/exchange';
import type { Exchange } from '../../src/core/exchange/exchange';
import {
  ExchangeLog,
  ExchangeStore,
  exchangeBytes,
  exchangeOfNode,
  parseExecutionExchanges,
  pendingExchangeSize,
  summarizeExchange,
} from '../../src/core/exchange/executionExchanges';
import { recordExchange } from '../../src/core/exchange/recordExchange';
import type { ExchangeFacts } from '../../src/core/exchange/recordExchange';
import { HttpCapture } from '../../src/core/http/httpRequest';
import { formatVerboseExchange } from '../../src/core/exchange/verboseExchange';

let next = 0;

/** An exchange as the engine records one, with a response body of `bodyBytes` bytes. */
function exchange(node: string, bodyBytes = 10, change: { readonly [K in keyof Exchange]?: Exchange[K] | undefined } = {}): Exchange {
  const made: Record<string, unknown> = {
    id: `x${++next}`,
    node,
    startedAt: '2026-11-26T12:00:00.000Z',
    request: {
      method: 'GET',
      url: 'https://api.example.com/items?api_key={{ secrets.API_KEY }}',
      headers: [{ name: 'Authorization', value: 'Bearer {{ secrets.TOKEN }}' }],
      body: { kind: 'empty' },
    },
    redirects: [],
    response: {
      status: 200,
      statusText: 'OK',
      headers: [{ name: 'content-type', value: 'application/json' }],
      contentType: 'application/json',
      body: { kind: 'text', text: 'a'.repeat(bodyBytes), size: bodyBytes, truncated: false },
    },
    timing: { totalMs: 12.4, firstByteMs: 8 },
    ...change,
  };
  // `response: undefined` stands for an exchange that got no answer.
  for (const key of Object.keys(made)) if (made[key] === undefined) delete made[key];
  return made as unknown as Exchange;
}

describe('exchanges of an execution', () => {
  it('keeps every exchange whole while the budget allows', () => {
    const log = new ExchangeLog();
    log.add(exchange('a'));
    log.add(exchange('b'));
    const kept = log.snapshot();
    assert.deepEqual(
      kept.exchanges.map((item) => item.node),
      ['a', 'b'],
    );
    assert.deepEqual(kept.bodiesNotKept, []);
    assert.equal(kept.notKept, 0);
    assert.equal(kept.bytes, exchangeBytes(kept.exchanges[0]!) + exchangeBytes(kept.exchanges[1]!));
  });

  it('keeps the exchanges past 1 MiB without their bodies, and says which', () => {
    const log = new ExchangeLog();
    // 64 KiB bodies (the per-body limit): the 16th no longer fits in 1 MiB with its headers.
    for (let index = 0; index < 20; index++) log.add(exchange(`n${index}`, EXCHANGE_BODY_LIMITS.execution));
    const kept = log.snapshot();
    assert.equal(kept.exchanges.length, 20);
    assert.ok(kept.bytes <= EXECUTION_EXCHANGE_BYTES, `${kept.bytes} bytes kept`);
    const whole = kept.exchanges.filter((item) => item.response?.body.kind === 'text' && item.response.body.text !== '');
    assert.equal(whole.length, 15);
    assert.deepEqual(
      kept.bodiesNotKept,
      kept.exchanges.slice(15).map((item) => item.id),
    );
    const bare = kept.exchanges[19]!;
    assert.deepEqual(bare.response?.body, { kind: 'text', text: '', size: EXCHANGE_BODY_LIMITS.execution, truncated: true });
    // The headers stay: what the node sent and what came back, without the bodies.
    assert.equal(bare.request.headers[0]?.value, 'Bearer {{ secrets.TOKEN }}');
    assert.equal(bare.response?.status, 200);
  });

  it('counts exchanges past its number cap without keeping them', () => {
    const log = new ExchangeLog({ maxExchanges: 3 });
    for (let index = 0; index < 5; index++) log.add(exchange(`n${index}`));
    const kept = log.snapshot();
    assert.equal(kept.exchanges.length, 3);
    assert.equal(kept.notKept, 2);
  });

  it('lets go of exchanges whose headers alone pass twice the budget', () => {
    const big = (node: string): Exchange =>
      exchange(node, 10, {
        request: {
          method: 'GET',
          url: 'https://a.example/',
          headers: [{ name: 'x-big', value: 'v'.repeat(1500) }],
          body: { kind: 'empty' },
        },
      });
    // Room for one whole; a second fits without its body; past twice the budget, only counted.
    const budget = Math.floor(exchangeBytes(big('probe')) * 1.2);
    const log = new ExchangeLog({ maxBytes: budget });
    for (let index = 0; index < 4; index++) log.add(big(`n${index}`));
    const kept = log.snapshot();
    assert.equal(kept.exchanges.length, 2);
    assert.deepEqual(kept.bodiesNotKept, [kept.exchanges[1]!.id]);
    assert.equal(kept.notKept, 2);
    assert.ok(kept.bytes <= budget * 2);
  });

  describe('records made when read (offer)', () => {
    /** The facts of a call as the engine gathers them: a GET with a Bearer secret, a JSON answer of `bodyBytes`. */
    const facts = (bodyBytes = 10, change: Partial<ExchangeFacts> = {}): ExchangeFacts => {
      const capture = new HttpCapture(() => 0);
      const headers = { 'content-type': 'application/json' };
      capture.answer = { status: 200, statusText: 'OK', headers };
      capture.totalMs = 5;
      return {
        node: 'call',
        startedAt: new Date(0),
        request: {
          method: 'GET',
          url: 'https://api.example.com/items',
          headers: { authorization: 'Bearer sk-secret-value' },
          secretHeaders: [],
          shownUrl: 'https://api.example.com/items',
        } as unknown as ExchangeFacts['request'],
        secrets: new Map([['TOKEN', 'sk-secret-value']]),
        capture,
        response: {
          status: 200,
          statusText: 'OK',
          headers,
          body: Buffer.from(`"${'a'.repeat(Math.max(0, bodyBytes - 2))}"`),
          url: 'https://api.example.com/items',
        },
        bodyLimit: EXCHANGE_BODY_LIMITS.execution,
        ...change,
      };
    };

    it('makes a record only when the log is read, once, redacted as one made at once', () => {
      let made = 0;
      const log = new ExchangeLog();
      const one = facts();
      log.offer(() => {
        made++;
        return recordExchange(one);
      }, pendingExchangeSize(one));
      assert.equal(made, 0);
      const first = log.snapshot();
      const second = log.snapshot();
      assert.equal(made, 1);
      assert.equal(first.exchanges[0], second.exchanges[0]);
      assert.equal(first.exchanges[0]!.request.headers[0]!.value, 'Bearer {{ secrets.TOKEN }}');
      assert.ok(!JSON.stringify(first).includes('sk-secret-value'));
    });

    it('counts at least what the record counts, for every shape of call', () => {
      const binary = facts(0);
      const shapes: ExchangeFacts[] = [
        facts(),
        facts(200_000),
        {
          ...binary,
          response: { ...binary.response!, headers: { 'content-type': 'image/png' }, body: Buffer.from([0, 1, 2, 255, 254, 0, 7]) },
        },
        facts(10, {
          request: {
            method: 'POST',
            url: 'https://api.example.com/x',
            headers: { 'content-type': 'application/json' },
            body: { content: '{"zürich":"ü"}' },
          } as unknown as ExchangeFacts['request'],
        }),
        facts(10, { request: { method: 'GET', template: 'https://{{ inputs.host }}/', headers: { accept: '*/*' } } }),
        (() => {
          const failed = facts(0);
          delete (failed as { response?: unknown }).response;
          return { ...failed, failure: { kind: 'timeout', message: 'No answer from 127.0.0.1:9 within 30 s.' } } as ExchangeFacts;
        })(),
      ];
      shapes[1]!.capture!.redirects.push({
        status: 302,
        from: 'https://a.example/',
        to: 'https://b.example/',
        droppedHeaders: ['authorization'],
      });
      // The record writes the secret by name: its mask is 4 characters longer than the value.
      const maskGrowth = '{{ secrets.TOKEN }}'.length - 'sk-secret-value'.length;
      for (const shape of shapes) {
        const counted = pendingExchangeSize(shape).recordBytes + maskGrowth;
        const recorded = exchangeBytes(recordExchange(shape));
        assert.ok(
          counted >= recorded,
          `${counted} >= ${recorded} for ${shape.request.method} ${JSON.stringify(shape.response?.headers ?? {})}`,
        );
        assert.ok(counted <= recorded * 1.5 + 64, `${counted} near ${recorded}`);
      }
    });

    it('makes a record at once when its facts hold large bodies, or when it would not fit whole', () => {
      let made = 0;
      const counting = (each: ExchangeFacts) => () => {
        made++;
        return recordExchange(each);
      };
      const large = facts(EXCHANGE_BODY_LIMITS.execution * 5);
      const log = new ExchangeLog();
      log.offer(counting(large), pendingExchangeSize(large));
      assert.equal(made, 1, 'a 320 KiB answer is not held until read');
      const small = facts();
      const tight = new ExchangeLog({ maxBytes: pendingExchangeSize(small).recordBytes + 10 });
      tight.offer(counting(small), pendingExchangeSize(small));
      tight.offer(counting(small), pendingExchangeSize(small));
      assert.equal(made, 2, 'the second, past the budget, is made to be kept without its body');
      const kept = tight.snapshot();
      assert.equal(made, 3);
      assert.equal(kept.exchanges.length, 2);
      assert.deepEqual(kept.bodiesNotKept, [kept.exchanges[1]!.id]);
    });

    it('counts a record that cannot be made as not kept, and keeps the others', () => {
      const log = new ExchangeLog();
      const one = facts();
      log.offer(() => {
        throw new Error('broken');
      }, pendingExchangeSize(one));
      log.offer(() => recordExchange(one), pendingExchangeSize(one));
      const kept = log.snapshot();
      assert.equal(kept.exchanges.length, 1);
      assert.equal(kept.notKept, 1);
      assert.equal(log.snapshot().exchanges.length, 1);
    });
  });

  it("finds a node's exchange", () => {
    const log = new ExchangeLog();
    log.add(exchange('a'));
    log.add(exchange('b'));
    assert.equal(exchangeOfNode(log.snapshot(), 'b')?.node, 'b');
    assert.equal(exchangeOfNode(log.snapshot(), 'c'), undefined);
  });

  it('reads a stored log back, leaving out what is not an exchange', () => {
    const log = new ExchangeLog();
    log.add(exchange('a'));
    const stored = JSON.parse(JSON.stringify(log.snapshot())) as { exchanges: unknown[] };
    stored.exchanges.push({ id: 'broken' }, 'text');
    const read = parseExecutionExchanges(stored);
    assert.equal(read?.exchanges.length, 1);
    assert.equal(read?.exchanges[0]?.node, 'a');
    assert.equal(read?.notKept, 2);
    assert.equal(parseExecutionExchanges('nothing'), undefined);
    assert.equal(parseExecutionExchanges({ exchanges: 3 }), undefined);
  });

  it('sums an exchange up on one line', () => {
    assert.equal(
      summarizeExchange(exchange('a', 2048)),
      'GET https://api.example.com/items?api_key={{ secrets.API_KEY }} → 200 OK · 2.0 KB · 12 ms',
    );
    assert.equal(
      summarizeExchange(exchange('a', 0, { response: undefined, failure: { kind: 'refused', message: 'Connection refused' } })),
      'GET https://api.example.com/items?api_key={{ secrets.API_KEY }} → no answer (Connection refused) · 12 ms',
    );
  });
});

describe('the store of executions’ exchanges', () => {
  it('keeps at most the cap of executions, letting go of the oldest and saying which', () => {
    let cap = 3;
    const evicted: string[] = [];
    const store = new ExchangeStore(
      () => cap,
      (key) => evicted.push(key),
    );
    for (const key of ['e1', 'e2', 'e3', 'e4']) store.set(key, new ExchangeLog().snapshot());
    assert.deepEqual([...store.keys()], ['e2', 'e3', 'e4']);
    assert.deepEqual(evicted, ['e1']);
    cap = 1;
    store.set('e5', new ExchangeLog().snapshot());
    assert.deepEqual([...store.keys()], ['e5']);
    assert.deepEqual(evicted, ['e1', 'e2', 'e3', 'e4']);
    assert.equal(store.get('e5')?.exchanges.length, 0);
    assert.equal(store.get('e1'), undefined);
  });
});

describe('an exchange as curl -v prints it', () => {
  it('prints the request line, headers, status line and body, secrets by name', () => {
    const text = formatVerboseExchange(
      exchange('fetch', 0, {
        request: {
          method: 'POST',
          url: 'https://api.example.com/v1/items?api_key={{ secrets.API_KEY }}#part',
          headers: [
            { name: 'Authorization', value: 'Bearer {{ secrets.TOKEN }}' },
            { name: 'Content-Type', value: 'application/json' },
          ],
          body: { kind: 'text', text: '{"q":1}', size: 7, truncated: false },
        },
        response: {
          status: 404,
          statusText: 'Not Found',
          headers: [{ name: 'content-type', value: 'text/plain' }],
          body: { kind: 'text', text: 'no such item\n', size: 13, truncated: false },
        },
      }),
    );
    assert.equal(
      text,
      [
        '* node fetch: POST https://api.example.com/v1/items?api_key={{ secrets.API_KEY }}#part',
        '> POST /v1/items?api_key={{ secrets.API_KEY }} HTTP/1.1',
        '> Host: api.example.com',
        '> Authorization: Bearer {{ secrets.TOKEN }}',
        '> Content-Type: application/json',
        '>',
        '{"q":1}',
        '< HTTP/1.1 404 Not Found',
        '< content-type: text/plain',
        '<',
        'no such item',
        '* took 12 ms, first byte after 8 ms',
        '',
      ].join('\n'),
    );
  });

  it('says what it does not show: binary, cut and dropped bodies, redirects, failures', () => {
    const binary = formatVerboseExchange(
      exchange('img', 0, {
        redirects: [{ status: 302, from: 'https://a.example/x', to: 'https://b.example/x', droppedHeaders: ['Authorization'] }],
        response: {
          status: 200,
          statusText: 'OK',
          headers: [],
          contentEncoding: 'gzip',
          body: { kind: 'binary', base64: 'AAAA', size: 3000, truncated: false },
        },
      }),
    );
    assert.match(binary, /^\* redirected \(302\) to https:\/\/b\.example\/x \(not sent there: Authorization\)$/m);
    assert.match(binary, /^\* body decoded from gzip$/m);
    assert.match(binary, /^\* binary body of 2\.9 KB, not shown$/m);

    const cut = formatVerboseExchange(
      exchange('big', 0, {
        response: { status: 200, statusText: 'OK', headers: [], body: { kind: 'text', text: 'abc', size: 70000, truncated: true } },
      }),
    );
    assert.match(cut, /^abc\n\* body cut: 3 B of 68\.4 KB shown$/m);

    const log = new ExchangeLog({ maxBytes: exchangeBytes(exchange('a', 10)) + 100 });
    log.add(exchange('a', 10));
    log.add(exchange('b', 1000));
    const kept = log.snapshot();
    const dropped = formatVerboseExchange(kept.exchanges[1]!, { bodiesNotKept: kept.bodiesNotKept.includes(kept.exchanges[1]!.id) });
    assert.match(dropped, /^\* body of 1000 B not kept: the execution's exchanges took their whole budget$/m);

    const failed = formatVerboseExchange(
      exchange('down', 0, { response: undefined, failure: { kind: 'refused', message: 'Connection refused by 127.0.0.1:9.' } }),
    );
    assert.match(failed, /^\* failed: Connection refused by 127\.0\.0\.1:9\.$/m);
    assert.doesNotMatch(failed, /^</m);
  });
});
