import assert from 'node:assert/strict';
import { base64Error, decodeBase64Text, parseHeaderString } from '../../src/core/document/headers';
import { checkHeaderString, looksLikePlaceholder, secretName } from '../../src/core/validation/headerChecks';
import { findSecrets } from '../../src/core/validation/secretScan';

describe('parseHeaderString', () => {
  it('splits at the first colon outside expressions and trims the value', () => {
    const header = parseHeaderString('X-Id:   {{ nodes["a:b"].body }}  ');
    assert.equal(header?.name, 'X-Id');
    assert.equal(header?.value, '{{ nodes["a:b"].body }}');
    const colonInExpression = parseHeaderString('{{ nodes["a:b"].body }}');
    assert.equal(colonInExpression, undefined);
  });

  it('keeps colons in the value', () => {
    assert.equal(parseHeaderString('Link: <https://a.example/x>; rel="next"')?.value, '<https://a.example/x>; rel="next"');
  });
});

describe('checkHeaderString', () => {
  const codes = (raw: string) => checkHeaderString(raw, { nodeId: 'call' }).findings.map((f) => f.code);

  it('accepts well-formed headers with secrets', () => {
    assert.deepEqual(codes('Authorization: Bearer {{ secrets.TOKEN }}'), []);
    assert.deepEqual(codes('Authorization: Basic {{ secrets.BASIC }}'), []);
    assert.deepEqual(codes('x-api-key: {{ secrets.KEY }}'), []);
    assert.deepEqual(codes('Content-Type: application/json; charset=utf-8'), []);
    assert.deepEqual(codes('Authorization: Digest {{ secrets.DIGEST }}'), []);
  });

  it('suggests "Name: value" for a header without a colon, without echoing the value', () => {
    const { findings } = checkHeaderString('Authorization Bearer abc123', { nodeId: 'call' });
    assert.equal(findings[0]?.code, 'header-missing-colon');
    assert.equal(findings[0]?.data?.replacement, 'Authorization: Bearer abc123');
    assert.doesNotMatch(findings[0]!.message, /abc123/);
  });

  it('never puts a credential in a message', () => {
    for (const raw of [
      'Authorization: Bearer sekrit-value-1',
      'Authorization: Basic c2VrcmV0OnZhbHVl',
      'x-api-key: sekrit-value-1',
      'Authorization: Basic user:sekrit',
    ]) {
      const { findings } = checkHeaderString(raw, { nodeId: 'call' });
      // Each of these is a finding: without one there would be no message to look at.
      assert.ok(findings.length > 0, raw);
      for (const finding of findings) assert.doesNotMatch(finding.message, /sekrit|c2VrcmV0/, raw);
    }
  });

  it('suggests secret names from the node id', () => {
    const { findings } = checkHeaderString('Authorization: Bearer abc', { nodeId: 'post-ticket' });
    assert.equal(findings[0]?.data?.secretName, 'POST_TICKET_TOKEN');
    assert.match(findings[0]!.message, /\{\{ secrets\.POST_TICKET_TOKEN \}\}/);
    assert.match(findings[0]!.message, /AGENT_SECRET_POST_TICKET_TOKEN/);
  });

  it('flags other credential headers written literally, and placeholders', () => {
    assert.deepEqual(codes('X-Auth-Token: abcdef'), ['literal-credential']);
    assert.match(checkHeaderString('Authorization: Bearer YOUR_TOKEN', { nodeId: 'n' }).findings[0]!.message, /placeholder/);
    assert.deepEqual(codes('Authorization: Token abc'), ['literal-credential']);
  });

  it('flags a cookie written literally, as the cURL import makes a secret of it, and not one from a secret', () => {
    assert.deepEqual(codes('Cookie: session=9f8e7d6c5b4a'), ['literal-credential']);
    const { findings } = checkHeaderString('cookie: session=9f8e7d6c5b4a; theme=dark', { nodeId: 'get-cart' });
    assert.equal(findings[0]?.data?.secretName, 'GET_CART_COOKIE');
    assert.match(findings[0]!.message, /^This cookie value is written in the file/);
    assert.match(findings[0]!.message, /"cookie: \{\{ secrets\.GET_CART_COOKIE \}\}"/);
    assert.doesNotMatch(findings[0]!.message, /9f8e7d6c5b4a/);
    assert.deepEqual(codes('Cookie: session={{ secrets.SESSION }}'), []);
    assert.deepEqual(codes('Cookie: {{ secrets.COOKIES }}'), []);
  });

  it('knows the key headers of Datadog, Postmark, Shopify, Cloudflare and Algolia', () => {
    for (const name of [
      'DD-API-KEY',
      'DD-APPLICATION-KEY',
      'X-Postmark-Server-Token',
      'X-Postmark-Account-Token',
      'X-Shopify-Access-Token',
      'X-Auth-Key',
      'X-Algolia-API-Key',
    ])
      assert.deepEqual(codes(`${name}: 0123456789abcdef`), ['literal-credential'], name);
  });

  it('says "are … them" for credentials and "is … it" for a token or value', () => {
    const message = (raw: string) => checkHeaderString(raw, { nodeId: 'n' }).findings[0]!.message;
    assert.match(
      message('Authorization: Basic c2VrcmV0OnZhbHVl'),
      /^These Basic credentials are written in the file, .* use them\. Move them to a secret/,
    );
    assert.match(
      message('Authorization: Token abc123xyz'),
      /^These Token credentials are written in the file, .* use them\. Move them to a secret/,
    );
    assert.match(message('Authorization: Token YOUR_TOKEN'), /^These Token credentials look like a placeholder\. Replace them /);
    assert.match(message('Authorization: Bearer abc123xyz'), /^This Bearer token is written in the file, .* use it\. Move it to a secret/);
    assert.match(message('x-api-key: abc123xyz'), /^This x-api-key value is written in the file/);
  });
});

describe('Base64 helpers', () => {
  it('explains why a value is not standard padded Base64', () => {
    assert.equal(base64Error('dXNlcjpwYXNz'), undefined);
    assert.match(base64Error('dXNlcjpwYXM')!, /multiple of 4/);
    assert.match(base64Error('dXNl-jpw')!, /URL-safe/);
    assert.match(base64Error('dX=lcjpw')!, /padding/);
    assert.match(base64Error('dXNl cjpw')!, /not a Base64 character/);
  });

  it('decodes to text or undefined for binary', () => {
    assert.equal(decodeBase64Text('dXNlcjpwYXNz'), 'user:pass');
    assert.equal(decodeBase64Text(Buffer.from([0xff, 0xfe, 0x00]).toString('base64')), undefined);
  });

  it('recognises placeholders and builds env-safe secret names', () => {
    assert.equal(looksLikePlaceholder('<ACCESS_TOKEN>'), true);
    assert.equal(looksLikePlaceholder('your-api-key'), true);
    assert.equal(looksLikePlaceholder('sk_live_51H8'), false);
    assert.equal(secretName('9lives', 'TOKEN'), '_9LIVES_TOKEN');
  });
});

describe('findSecrets', () => {
  it('finds a Discord webhook URL, whose last segment is its token', () => {
    const url = 'https://discord.com/api/webhooks/1234567890/aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789_-AbCdEf';
    assert.deepEqual(
      findSecrets(`url: ${url}`).map((f) => [f.kind, f.secretName, f.start]),
      [['Discord webhook URL', 'DISCORD_WEBHOOK_URL', 5]],
    );
    assert.deepEqual(findSecrets('https://discord.com/api/webhooks/{{ inputs.id }}/{{ secrets.T }}'), []);
  });

  it('finds known formats anywhere, never inside expressions', () => {
    assert.deepEqual(
      findSecrets('see ghp_16C7e42F292c6912E7710c838347Ae178B4a here').map((f) => f.kind),
      ['GitHub token'],
    );
    assert.deepEqual(findSecrets('{{ secrets.ghp_16C7e42F292c6912E7710c838347Ae178B4a }}'), []);
    assert.deepEqual(
      findSecrets('-----BEGIN RSA PRIVATE KEY-----').map((f) => f.secretName),
      ['PRIVATE_KEY'],
    );
  });

  it('flags long random words only as whole values or near a credential word', () => {
    assert.equal(findSecrets('3f786850e387550fdab836ed7e6dc881de23001b').length, 1);
    assert.equal(findSecrets('commit 3f786850e387550fdab836ed7e6dc881de23001b was deployed').length, 0);
    assert.equal(findSecrets('a=1&token=3f786850e387550fdab836ed7e6dc881de23001b').length, 1);
    assert.equal(findSecrets('commit 3f786850e387550fdab836ed7e6dc881de23001b', 'signing_key').length, 1);
    assert.equal(findSecrets('https://example.com/objects/3f786850e387550fdab836ed7e6dc881de23001b').length, 0);
  });

  it('flags a Base64 secret with "/" in it, but not a path or a URL', () => {
    // The documented example AWS secret access key.
    assert.deepEqual(
      findSecrets('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY').map((f) => f.kind),
      ['long random key'],
    );
    assert.equal(findSecrets('secret=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'query').length, 1);
    assert.equal(findSecrets('/srv/Data2024/ReportsArchive/QuarterlyFigures7/Summary').length, 0);
    assert.equal(findSecrets('https://cdn.example.com/v1/AbCdEfGh12345678/IjKlMnOp87654321/QrStUv').length, 0);
  });
});
