// Hand-made exchanges for the tests of what shows and keeps them (the view, the send history),
// in the shape core/exchange/exchange.ts gives them.
import type { Exchange, RecordedBody } from '../../src/core/exchange/exchange';

let counter = 0;

export function textBody(text: string, truncatedFrom?: number): RecordedBody {
  const size = truncatedFrom ?? Buffer.byteLength(text);
  return { kind: 'text', text, size, truncated: truncatedFrom !== undefined };
}

export function binaryBody(bytes: Buffer, truncatedFrom?: number): RecordedBody {
  return {
    kind: 'binary',
    base64: bytes.toString('base64'),
    size: truncatedFrom ?? bytes.length,
    truncated: truncatedFrom !== undefined,
  };
}

/** A JSON GET answered 200, with a Bearer secret by name; `overrides` replace whole parts. */
export function makeExchange(overrides: Partial<Exchange> = {}): Exchange {
  counter++;
  return {
    id: `exchange-${counter}`,
    node: 'lookup',
    startedAt: '2026-11-26T12:01:00.000Z',
    request: {
      method: 'GET',
      url: 'https://api.example.com/customers/42?api_key={{ secrets.API_KEY }}',
      headers: [
        { name: 'Authorization', value: 'Bearer {{ secrets.TOKEN }}' },
        { name: 'Accept', value: 'application/json' },
      ],
      body: { kind: 'empty' },
    },
    redirects: [],
    response: {
      status: 200,
      statusText: 'OK',
      headers: [
        { name: 'content-type', value: 'application/json; charset=utf-8' },
        { name: 'x-request-id', value: 'req-123' },
      ],
      contentType: 'application/json',
      body: textBody('{"id":42,"name":"Ada","tags":["a","b"]}'),
    },
    timing: { totalMs: 123.4, firstByteMs: 45.6 },
    ...overrides,
  };
}
