// Hover: header strings, credentials (never the password), references, declarations and keys.
import assert from 'node:assert/strict';
import { hover } from '../../src/core/language/hover';
import { withCursor } from '../support/cursor';

function hoverAt(marked: string) {
  const { text, offset } = withCursor(marked);
  const result = hover(text, offset);
  return { result, text, covered: result ? text.slice(result.span.start, result.span.end) : undefined };
}

const AGENT = `version: 1
name: Demo
inputs:
  ticket: { type: string, required: true, description: Ticket text }
  mode: { type: string, enum: [fast, slow], default: fast }
nodes:
  fetch:
    type: api
    method: GET
    url: https://api.example.com/items?api_key={{ secrets.ITEMS_KEY }}&q={{ inputs.ticket }}
    settings:
      - "Accept: application/json"
      - "Authorization: Basic YWxpY2U6czNjcmV0"
      - "x-api-key: {{ secrets.KEY }}"
  post:
    type: api
    method: POST
    url: https://api.example.com/notes
    settings: ["Authorization: Bearer {{ secrets.TOKEN }}", "Content-Type: application/json"]
    body: { text: "{{ nodes.fetch.body.items[0] }}", mode: "{{ inputs.mode }}" }
outputs:
  status: { from: "{{ nodes.post.status }}" }
`;

function at(needle: string, within = 0): string {
  const index = AGENT.indexOf(needle);
  assert.notEqual(index, -1, needle);
  return `${AGENT.slice(0, index + within)}¦${AGENT.slice(index + within)}`;
}

describe('hover', () => {
  it('explains a header name', () => {
    const { result, covered } = hoverAt(at('Accept: application/json', 2));
    assert.equal(covered, 'Accept');
    assert.match(result!.contents, /media types this node wants back/);
  });

  it('shows the user a literal Basic value decodes to, never the password', () => {
    const { result } = hoverAt(at('YWxpY2U6czNjcmV0', 3));
    assert.match(result!.contents, /Decodes to user `alice` \(password not shown\)/);
    assert.doesNotMatch(result!.contents, /s3cret/);
  });

  it('says why a Basic value does not decode', () => {
    const text = AGENT.replace('YWxpY2U6czNjcmV0', 'YWxpY2U=');
    const marked = text.replace('YWxpY2U=', 'YWx¦pY2U=');
    assert.match(hoverAt(marked).result!.contents, /without `:`/);
    const invalid = text.replace('YWxpY2U=', 'not*base64').replace('not*base64', 'no¦t*base64');
    assert.match(hoverAt(invalid).result!.contents, /Not valid Base64/);
  });

  it('explains Bearer, x-api-key and api_key in the URL', () => {
    assert.match(hoverAt(at('Bearer {{ secrets.TOKEN }}', 2)).result!.contents, /OAuth 2\.0/);
    const literalKey = AGENT.replace('x-api-key: {{ secrets.KEY }}', 'x-api-key: 0123abcd').replace('0123abcd', '01¦23abcd');
    assert.match(hoverAt(literalKey).result!.contents, /API key in a header/);
    const urlKey = hoverAt(at('api_key={{', 3));
    assert.equal(urlKey.covered, 'api_key');
    assert.match(urlKey.result!.contents, /Meant for GET requests/);
  });

  it('shows the declaration of a referenced input and the method and URL of a referenced node', () => {
    const input = hoverAt(at('{{ inputs.mode }}', 5));
    assert.match(input.result!.contents, /\*\*Input `mode`\*\*: type `string`, optional, default `"fast"`, one of `fast`, `slow`/);
    assert.equal(input.covered, '{{ inputs.mode }}');
    const node = hoverAt(at('{{ nodes.fetch.body.items[0] }}', 10));
    assert.match(node.result!.contents, /API node, `GET https:\/\/api\.example\.com\/items/);
    assert.match(node.result!.contents, /Reads its `body` at `items\.0`/);
    // The literal Basic credentials of fetch are not repeated in the hover.
    assert.match(node.result!.contents, /Authorization: Basic •••/);
    assert.doesNotMatch(node.result!.contents, /YWxpY2U6czNjcmV0/);
  });

  it('explains secrets', () => {
    assert.match(hoverAt(at('{{ secrets.TOKEN }}', 4)).result!.contents, /AGENT_SECRET_TOKEN/);
  });

  it('says what uses a node or an input', () => {
    assert.match(hoverAt(at('  fetch:', 3)).result!.contents, /Node `fetch`\*\* is used by node `post`/);
    assert.match(hoverAt(at('  post:', 3)).result!.contents, /used by output `status`/);
    assert.match(hoverAt(at('  ticket:', 3)).result!.contents, /Input `ticket`\*\* is used by node `fetch`/);
  });

  it('describes keys of the format from the schema', () => {
    const { result, covered } = hoverAt(at('method: POST', 2));
    assert.equal(covered, 'method');
    assert.match(result!.contents, /The request method/);
  });

  it('has nothing to say about plain text', () => {
    assert.equal(hoverAt(at('Demo', 1)).result, undefined);
  });
});
