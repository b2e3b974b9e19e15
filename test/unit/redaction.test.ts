// Redaction and safe cutting (src/core/redaction.ts), shared by the engine and the client.
import assert from 'node:assert/strict';
import { keyRedactor, MASK, REDACTED, Redactor } from '../../src/core/redaction';

describe('redaction', () => {
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
});
