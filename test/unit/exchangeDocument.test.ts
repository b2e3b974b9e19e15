// The text of the exchange view: the header block (status, times, sizes, headers, the request as
// sent, secrets by name) and the body by its type.
import assert from 'node:assert/strict';
import { JSON_LINES_SHOWN, bodyBytes, exchangeDocument, exchangeTitle } from '../../src/core/exchange/exchangeDocument';
import type { Exchange } from '../../src/core/exchange/exchange';
import { binaryBody, makeExchange, textBody } from '../support/exchanges';

function withResponse(body: Exchange['response'] extends infer R ? Partial<NonNullable<R>> : never): Exchange {
  const exchange = makeExchange();
  return { ...exchange, response: { ...exchange.response!, ...body } };
}

describe('exchangeDocument', () => {
  it('puts the status, times, size, headers and the request with secrets by name in // lines above pretty JSON', () => {
    const exchange = makeExchange();
    const document = exchangeDocument(exchange);
    assert.equal(document.language, 'jsonc');
    assert.equal(document.extension, '.jsonc');
    assert.equal(document.body, 'json');
    const [header, body] = splitAtBody(document.text, '//');
    assert.deepEqual(header.slice(0, 3), [
      '// 200 OK · 123 ms (first byte 46 ms) · 39 B',
      '// GET https://api.example.com/customers/42?api_key={{ secrets.API_KEY }}',
      '// Node lookup · sent 2026-11-26T12:01:00.000Z',
    ]);
    assert.ok(header.includes('//   x-request-id: req-123'));
    assert.ok(header.includes('//   Authorization: Bearer {{ secrets.TOKEN }}'));
    assert.ok(header.includes('// Response body: application/json, 39 B (39 bytes)'));
    assert.equal(body, '{\n  "id": 42,\n  "name": "Ada",\n  "tags": [\n    "a",\n    "b"\n  ]\n}');
    assert.equal(exchangeTitle(exchange), 'lookup 200');
  });

  it('shows the request body, pretty when it is JSON, and the redirects with what was dropped', () => {
    const base = makeExchange();
    const exchange: Exchange = {
      ...base,
      request: {
        method: 'POST',
        url: 'https://api.example.com/orders',
        headers: [{ name: 'Content-Type', value: 'application/json' }],
        body: textBody('{"item":"{{ secrets.SKU }}","qty":2}'),
      },
      redirects: [
        { status: 307, from: 'https://api.example.com/orders', to: 'https://other.example.net/orders', droppedHeaders: ['Authorization'] },
      ],
    };
    const text = exchangeDocument(exchange).text;
    assert.match(text, /\/\/ {3}\{\n\/\/ {5}"item": "\{\{ secrets.SKU \}\}",\n\/\/ {5}"qty": 2\n\/\/ {3}\}/);
    assert.match(text, /307 https:\/\/api.example.com\/orders -> https:\/\/other.example.net\/orders \(not sent there: Authorization\)/);
  });

  it('shows invalid JSON as it came, saying so, as plain text', () => {
    const document = exchangeDocument(withResponse({ body: textBody('{"a":') }));
    assert.equal(document.language, 'plaintext');
    assert.equal(document.body, 'raw-json');
    assert.match(document.text, /Not valid JSON at character 5 \(Content-Type says application\/json\): shown as it came\.\n\/\/\n\{"a":$/);
  });

  it('says the full size of a cut body and pretty-prints its start', () => {
    const document = exchangeDocument(withResponse({ body: textBody('[1,2,', 25 * 1024 * 1024) }));
    assert.equal(document.body, 'json');
    assert.match(
      document.text,
      /Response body: application\/json, 25\.0 MB \(26,214,400 bytes\), cut: the first 5 B are kept, shown below/,
    );
    assert.ok(document.text.endsWith('[\n  1,\n  2,\n  '));
  });

  it('formats the first lines of a large JSON body, says so, and makes the whole body when asked', () => {
    const rows = Array.from({ length: JSON_LINES_SHOWN }, (_, id) => ({ id, name: `Customer ${id}`, tags: ['a', 'b'] }));
    const text = JSON.stringify(rows);
    const exchange = withResponse({ body: textBody(text) });
    const document = exchangeDocument(exchange);
    assert.equal(document.body, 'json');
    assert.equal(document.language, 'jsonc');
    assert.equal(document.startOnly, true);
    const [header, body] = splitAtBody(document.text, '//');
    const bodyLines = body.split('\n');
    // It stops at the first value after its lines: a row (8 lines) may pass them.
    assert.ok(bodyLines.length <= JSON_LINES_SHOWN + 8 + 2, String(bodyLines.length));
    assert.ok(
      header.some((line) =>
        /^\/\/ Response body: application\/json, [\d.]+ MB \([\d,]+ bytes\), shown below: its first [\d.]+ [KM]B formatted\. Open Whole Body shows all of it\.$/.test(
          line,
        ),
      ),
      header.join('\n'),
    );
    // JSON with comments: the note where it stops, the open array closed after it.
    assert.deepEqual(bodyLines.slice(-2), [`  // … ${bodyLines.at(-2)!.slice(7)}`, ']']);
    assert.match(
      bodyLines.at(-2)!,
      /^ {2}\/\/ … the rest of the body, [\d.]+ [KM]B, is not shown here\. Open Whole Body shows all of it\.$/,
    );
    const shown = JSON.parse(bodyLines.filter((line) => !line.trimStart().startsWith('//')).join('\n')) as unknown[];
    assert.ok(shown.length > 100 && shown.length < rows.length);
    assert.deepEqual(shown, rows.slice(0, shown.length));

    const whole = exchangeDocument(exchange, { wholeBody: true });
    assert.equal(whole.startOnly, false);
    assert.equal(splitAtBody(whole.text, '//')[1], JSON.stringify(rows, null, 2));
  });

  it('says a body was cut when the server did not say its size', () => {
    const body = { ...textBody('[1,2,'), truncated: true, sizeUnknown: true as const };
    const document = exchangeDocument(withResponse({ body }));
    assert.ok(document.text.startsWith('// 200 OK · 123 ms (first byte 46 ms) · more than 5 B\n'), document.text);
    assert.ok(document.text.includes('more than 5 B (the server did not say how much; the first 5 bytes are kept)'), document.text);
  });

  it('wraps the header block of XML and HTML in one comment a value cannot close', () => {
    const exchange = withResponse({
      contentType: 'application/xml',
      headers: [{ name: 'x-note', value: 'a --> b' }],
      body: textBody('<a><b/></a>'),
    });
    const document = exchangeDocument(exchange);
    assert.equal(document.language, 'xml');
    assert.ok(document.text.startsWith('<!--\n200 OK'));
    assert.ok(document.text.endsWith('\n-->\n<a><b/></a>'));
    assert.equal(document.text.split('-->').length, 2);
    assert.equal(exchangeDocument(withResponse({ contentType: 'text/html', body: textBody('<p>hi</p>') })).language, 'html');
  });

  it('shows text as it is, and JSON without a Content-Type by its look', () => {
    const text = exchangeDocument(withResponse({ contentType: 'text/plain', body: textBody('{not json') }));
    assert.equal(text.language, 'plaintext');
    assert.ok(text.text.endsWith('//\n{not json'));
    const { contentType, ...untyped } = withResponse({ body: textBody('[1]') }).response!;
    assert.equal(contentType, 'application/json');
    const sniffed = exchangeDocument({ ...makeExchange(), response: untyped });
    assert.equal(sniffed.body, 'json');
    assert.ok(sniffed.text.includes('Response body: no Content-Type'));
  });

  it('describes a binary body by its size and an image as shown beside, never as text', () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe]);
    const pdf = exchangeDocument(withResponse({ contentType: 'application/pdf', body: binaryBody(bytes) }));
    assert.equal(pdf.body, 'binary');
    assert.ok(pdf.text.includes('// Response body: binary, application/pdf, 7 B (7 bytes): not shown as text. Save Body saves it.'));
    assert.ok(!pdf.text.includes('\ufffd'));
    const png = exchangeDocument(withResponse({ contentType: 'image/png', body: binaryBody(bytes, 4000) }));
    assert.equal(png.body, 'image');
    assert.ok(png.text.includes('image, image/png, 3.9 KB (4,000 bytes), cut: the first 7 B are kept: shown beside.'));
    assert.deepEqual(Buffer.from(bodyBytes(binaryBody(bytes))), bytes);
  });

  it('says the failure in words, with the request, when no answer came', () => {
    const { response, ...unanswered } = makeExchange();
    assert.ok(response);
    const exchange: Exchange = {
      ...unanswered,
      timing: { totalMs: 3 },
      failure: { kind: 'refused', message: 'api.example.com refused the connection (is the service running?).' },
    };
    const document = exchangeDocument(exchange);
    assert.equal(document.body, 'none');
    assert.equal(exchangeTitle(exchange), 'lookup failed');
    assert.ok(
      document.text.startsWith(
        '// No answer · 3 ms\n// api.example.com refused the connection (is the service running?).\n// GET https://',
      ),
    );
    assert.ok(document.text.includes('//   Authorization: Bearer {{ secrets.TOKEN }}'));
  });
});

/** The comment lines, and the text after them. */
function splitAtBody(text: string, prefix: string): [string[], string] {
  const lines = text.split('\n');
  let at = 0;
  while (at < lines.length && lines[at]!.startsWith(prefix)) at++;
  return [lines.slice(0, at), lines.slice(at).join('\n')];
}
