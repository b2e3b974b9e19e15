// Redaction and safe cutting (src/core/redaction.ts), shared by the engine and the client.
import assert from 'node:assert/strict';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { buildApiRequest } from '../../src/core/engine/apiRequest';
import { keyRedactor, MASK, REDACTED, Redactor, secretMask } from '../../src/core/redaction';
import { HOSTILE_REDACTION_FORMS, HOSTILE_REDACTION_KEY } from '../support/hostileRedaction';

describe('redaction', () => {
  it('writes a secret added with its own mask by that mask, the others by the default one', () => {
    const redactor = new Redactor();
    redactor.add('tok-SUPERSECRET-7', { mask: secretMask('TOKEN') });
    redactor.add('other-secret-99');
    redactor.add('ab', { mask: secretMask('SHORT') });
    assert.equal(redactor.text(`a=tok-SUPERSECRET-7&b=${encodeURIComponent('other-secret-99')}`), `a={{ secrets.TOKEN }}&b=${REDACTED}`);
    assert.equal(redactor.text('ab'), '{{ secrets.SHORT }}');
    assert.equal(redactor.excerpt('x tok-SUPERSECRET-7 y', 4), 'x {{ secrets.TOKEN }}…', 'never half a named mask');
    assert.equal(redactor.redactCut('start tok-SUPER'), 'start {{ secrets.TOKEN }}', 'a secret split by a cut is masked by name');
  });

  it('finds a secret as written, percent-encoded, JSON-escaped and lower-cased', () => {
    const redactor = new Redactor();
    redactor.add('Sk/Live "X"');
    for (const form of [
      'Sk/Live "X"',
      encodeURIComponent('Sk/Live "X"'),
      encodeURI('Sk/Live "X"'),
      'Sk/Live \\"X\\"',
      'sk/live "x"',
      encodeURIComponent('Sk/Live "X"').toLowerCase(),
    ]) {
      assert.equal(redactor.text(`<${form}>`), `<${REDACTED}>`, form);
    }
  });

  it('finds a secret in the URL the engine builds, as the URL\'s serialisation re-encodes it ("\'" as %27 in a query)', () => {
    const agent = loadAgent(`version: 1
name: Url
nodes:
  call:
    type: api
    method: GET
    url: "https://api.example.com/v1/{{ secrets.KEY }}/{{ secrets.OTHER }}?api_key={{ secrets.KEY }}&other={{ secrets.OTHER }}#{{ secrets.OTHER }}"
`);
    const node = agent.plan.nodes.find((plan) => plan.id === 'call');
    assert.ok(node?.kind === 'api');
    // encodeURIComponent leaves "'" as it is; the URL's query writes it %27. The other one also
    // mixes in characters encodeURIComponent encodes and those it leaves.
    const secrets = new Map([
      ['KEY', "ab'cd1234efgh"],
      ['OTHER', `O'Brien "sk" (live) <1>~*!`],
    ]);
    const redactor = new Redactor();
    for (const secret of secrets.values()) redactor.add(secret);
    const { url } = buildApiRequest(node, { inputs: {}, nodes: new Map(), secrets }, redactor);
    assert.ok(url.includes('%27'), `the URL built re-encodes "'": ${url}`);
    assert.equal(
      redactor.text(url),
      `https://api.example.com/v1/${REDACTED}/${REDACTED}?api_key=${REDACTED}&other=${REDACTED}#${REDACTED}`,
    );
  });

  it('takes a secret with a lone surrogate, which no URL encoding accepts, and masks it as written', () => {
    const redactor = new Redactor();
    const secret = 'key-\ud800-abcdefgh';
    assert.doesNotThrow(() => redactor.add(secret));
    assert.equal(redactor.text(`a ${secret} b`), `a ${REDACTED} b`);
  });

  it('redacts before cutting, so a secret across the cut is masked whole', () => {
    const redactor = new Redactor();
    redactor.add('tok-SUPERSECRET-7');
    assert.equal(redactor.excerpt(`${'a'.repeat(8)}tok-SUPERSECRET-7 and more`, 12), `${'a'.repeat(8)}${REDACTED}…`);
  });

  it('masks the start of a secret left at the end of a cut text', () => {
    const redactor = new Redactor();
    redactor.add('tok-SUPERSECRET-7');
    // The text given is itself only the start of a longer one (`more`): its end is a cut.
    assert.equal(redactor.excerpt('answer: tok-SUPER', 100, { more: true }), `answer: ${REDACTED}…`);
    assert.equal(redactor.excerpt('answer: to', 100, { more: true }), 'answer: to…', 'two characters say nothing');
    assert.equal(redactor.excerpt('answer: tok-SUPERSECRET-7', 100), `answer: ${REDACTED}`);
  });

  it('masks a secret of fewer than four characters only where a whole text is the secret', () => {
    const redactor = new Redactor();
    redactor.add('t');
    assert.deepEqual(redactor.value({ greeting: 'hi there', token: 't', list: ['t', 'at'] }), {
      greeting: 'hi there',
      token: REDACTED,
      list: [REDACTED, 'at'],
    });
    redactor.add('abcd');
    assert.equal(redactor.text('xabcdx'), `x${REDACTED}x`, 'four characters and more: anywhere');
  });

  it('masks Bearer tokens and every form of the key for the client', () => {
    const redactor = keyRedactor('Key-ABC-123');
    assert.equal(redactor.text('Authorization: Bearer zzz.yyy key-abc-123 Key-ABC-123'), `Authorization: Bearer ${MASK} ${MASK} ${MASK}`);
    assert.deepEqual(redactor.value({ 'Key-ABC-123': ['x Key-ABC-123'], n: 1 }), { [MASK]: [`x ${MASK}`], n: 1 });
  });
  it('finds a secret in another letter case, and hex keys whichever case they are printed in', () => {
    const redactor = keyRedactor('c0ffee4b1d9e8a7f');
    assert.equal(redactor.text('C0FFEE4B1D9E8A7F c0ffee4b1d9e8a7f'), `${MASK} ${MASK}`);
    const named = new Redactor();
    named.add('Sk/Live "X"');
    assert.equal(named.text(`<SK/LIVE "X"> <${encodeURIComponent('Sk/Live "X"').toUpperCase()}>`), `<${REDACTED}> <${REDACTED}>`);
  });

  it('finds the Base64 of a secret, standard and URL-safe, with and without padding', () => {
    const secret = 'k?>~ey-0123456789';
    const redactor = new Redactor();
    redactor.add(secret);
    const standard = Buffer.from(secret).toString('base64');
    const urlSafe = Buffer.from(secret).toString('base64url');
    assert.match(standard, /[+/]/, 'the test secret uses the characters the two alphabets differ in');
    for (const form of [standard, standard.replace(/=+$/, ''), urlSafe, `${urlSafe}=`]) {
      assert.equal(redactor.text(`"${form}"`), `"${REDACTED}"`, form);
    }
  });

  it('finds the Base64 of a secret inside a longer Base64 text, at each of the 3 offsets (Basic credentials)', () => {
    const secret = 'sk-live-0123456789abcdef';
    const redactor = keyRedactor(secret);
    for (const before of ['', 'u:', 'us:', 'user:', 'someone@example.com:']) {
      for (const after of ['', ':', 'xy', '"}']) {
        for (const encoding of ['base64', 'base64url'] as const) {
          const encoded = Buffer.from(`${before}${secret}${after}`).toString(encoding);
          const masked = redactor.text(`Basic ${encoded}`);
          assert.match(
            masked,
            new RegExp(
              `^Basic [A-Za-z0-9+/_-]{0,${Math.ceil((before.length * 4) / 3) + 2}}${MASK}[A-Za-z0-9+/_=-]{0,${Math.ceil((after.length * 4) / 3) + 3}}$`,
            ),
            `${before}|${after} ${encoding}: ${masked}`,
          );
        }
      }
    }
  });

  it('looks for a short secret inside a longer Base64 text only when that cannot match by chance', () => {
    const redactor = new Redactor();
    redactor.add('abcdef');
    assert.equal(redactor.text(Buffer.from('abcdef').toString('base64')), REDACTED, 'the Base64 of the secret alone');
    const inside = Buffer.from('user:abcdef').toString('base64');
    assert.equal(redactor.text(inside), inside, 'a few characters inside longer Base64: not looked for');
    // A long Base64 output (a file's bytes) keeps every byte with a real-length secret.
    const long = new Redactor();
    long.add('sk-live-0123456789abcdef');
    let state = 7;
    const bytes = Buffer.from(new Uint8Array(3 << 20).map(() => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 24));
    const blob = bytes.toString('base64');
    assert.equal(long.text(blob), blob);
  });

  it('leaves near misses of every form of a secret as they are (how long: npm run bench -- redaction)', () => {
    const redactor = keyRedactor(HOSTILE_REDACTION_KEY);
    const unit = HOSTILE_REDACTION_FORMS.map((form) => form.slice(0, -1)).join(' ');
    const text = unit.repeat(200);
    // Only what follows "Bearer " is masked, as any bearer token is.
    const expected = text.replaceAll('Bearer SK-LIVE-012', `Bearer ${MASK}`);
    const masked = redactor.text(text);
    assert.ok(masked === expected, `masked otherwise: ${masked.slice(0, 200)}…`);
    assert.ok(redactor.excerpt(text, 300, { more: true }).startsWith(expected.slice(0, 200)));
  });
});
