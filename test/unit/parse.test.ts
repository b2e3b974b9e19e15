// Whole-file handling: bad input of every kind gives a clear problem, never a throw or a hang.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decodeAgentFile, parseAgentFile } from '../../src/core/document/parse';
import { MAX_FILE_BYTES } from '../../src/core/limits';
import { validateAgentText } from '../../src/core/validation/validate';

function codes(text: string): string[] {
  return validateAgentText(text).problems.map((problem) => problem.code);
}

describe('parseAgentFile', () => {
  it('reports an empty file and a comments-only file', () => {
    assert.deepEqual(codes(''), ['empty-file']);
    assert.deepEqual(codes('\n\n   \n'), ['empty-file']);
    assert.deepEqual(codes('# just a note\n'), ['empty-file']);
    assert.match(validateAgentText('').problems[0]!.message, /version: 1/);
  });

  it('reports documents that are not mappings', () => {
    assert.deepEqual(codes('- a\n- b\n'), ['not-a-mapping']);
    assert.deepEqual(codes('hello\n'), ['not-a-mapping']);
    assert.deepEqual(codes('42\n'), ['not-a-mapping']);
  });

  it('reports a second document at its separator and still checks the first', () => {
    const text = 'version: 1\nname: a\n---\nversion: 1\nname: b\n';
    const problems = validateAgentText(text).problems;
    assert.deepEqual(
      problems.map((p) => [p.code, p.range.line, p.range.column]),
      [['multiple-documents', 3, 1]],
    );
  });

  it('reports YAML syntax errors with their position and stops there', () => {
    const problems = validateAgentText('version: 1\nname: "unclosed\nnodes: {}\n').problems;
    assert.ok(problems.length >= 1);
    assert.ok(problems.every((p) => p.code === 'yaml-syntax'));
    assert.ok(problems.every((p) => p.message.endsWith('the rest of the file is checked once it parses.')));
  });

  it('reports duplicate keys on the second key and keeps checking', () => {
    const problems = validateAgentText(
      'version: 1\nname: a\nnodes:\n  x: { type: template, text: a }\n  x: { type: template, text: b }\n',
    ).problems;
    assert.deepEqual(
      problems.map((p) => `${p.range.line}:${p.range.column}-${p.range.endColumn} ${p.code}`),
      ['5:3-4 duplicate-key'],
    );
  });

  it('says an alias without its anchor is one, not an alias bomb, at that alias', () => {
    const text = 'version: 1\nname: a\ndescription: &d x\ninputs: *missing\n';
    const problems = parseAgentFile(text).sink.result();
    assert.deepEqual(
      problems.map((problem) => [problem.code, problem.range.line, problem.range.column]),
      [['yaml-syntax', 4, 9]],
    );
    assert.match(problems[0]!.message, /The alias \*missing has no anchor &missing before it/);
  });

  it('stops an alias bomb quickly with a problem on the first alias', function () {
    this.timeout(5000);
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `l${i}: &l${i} [${Array(9)
          .fill(i === 1 ? '*a' : `*l${i - 1}`)
          .join(',')}]`,
      );
    const problems = validateAgentText(`${levels.join('\n')}\n`).problems;
    assert.deepEqual(
      problems.map((p) => p.code),
      ['alias-limit'],
    );
    assert.equal(problems[0]!.range.line, 2);
  });

  it('rejects text over the size limit without parsing it (10 MB)', function () {
    this.timeout(5000);
    const big = `version: 1\nname: big\ndescription: "${'x'.repeat(10 * 1024 * 1024)}"\n`;
    const file = parseAgentFile(big);
    assert.equal(file.document, undefined);
    assert.deepEqual(
      file.sink.result().map((p) => p.code),
      ['file-too-large'],
    );
    assert.match(file.sink.result()[0]!.message, /10\.0 MB.*768 KB/);
  });

  it('treats binary garbage as not text, whatever the bytes', function () {
    this.timeout(10_000);
    for (let i = 0; i < 50; i++) {
      const garbage = randomBytes(4096).toString('latin1');
      const result = codes(garbage);
      assert.ok(result.length >= 1, 'garbage must produce a problem');
    }
    assert.deepEqual(codes('\u0000\u0001\u0002binary'), ['not-text']);
  });

  it('survives random printable noise without throwing', function () {
    this.timeout(20_000);
    const alphabet = 'ab: -[]{}"\'\n  #&*!|>?,{{}}.%@`';
    for (let i = 0; i < 200; i++) {
      let text = '';
      const bytes = randomBytes(300);
      for (const byte of bytes) text += alphabet[byte % alphabet.length];
      assert.doesNotThrow(() => validateAgentText(text));
    }
  });
});

describe('decodeAgentFile', () => {
  it('decodes UTF-8 text', () => {
    assert.deepEqual(decodeAgentFile(Buffer.from('name: café\n')), { text: 'name: café\n' });
  });

  it('refuses NUL bytes, invalid UTF-8 and oversized files with a reason', () => {
    assert.equal((decodeAgentFile(Buffer.from([0x61, 0x00, 0x62])) as { code: string }).code, 'not-text');
    const invalid = decodeAgentFile(Buffer.from([0x6e, 0xff, 0xfe, 0x0a])) as { code: string; error: string };
    assert.equal(invalid.code, 'not-text');
    assert.match(invalid.error, /UTF-8/);
    assert.equal((decodeAgentFile(Buffer.alloc(MAX_FILE_BYTES + 1, 0x61)) as { code: string }).code, 'file-too-large');
    assert.equal('error' in decodeAgentFile(Buffer.alloc(MAX_FILE_BYTES, 0x61)), false, 'a file of exactly the limit is read');
  });

  it('measures the limit in bytes, as on disk, for text with characters of several bytes', () => {
    // 300,000 characters of 3 bytes: 900,000 bytes, over the limit though its length is not.
    const text = `name: ${'€'.repeat(300_000)}\n`;
    assert.ok(text.length < MAX_FILE_BYTES);
    const problems = parseAgentFile(text).sink.result();
    assert.deepEqual(
      problems.map((problem) => [problem.code, problem.message]),
      [['file-too-large', 'The file is 879 KB; agent files are checked up to 768 KB. Split the workflow into smaller agents.']],
    );
    assert.deepEqual(parseAgentFile(`name: ${'€'.repeat(200_000)}\n`).sink.result(), [], '600 KB of them are read');
  });

  it('words the size of a file over the limit in KB, and in MB from 1,000 KB', () => {
    const errorFor = (size: number) => (decodeAgentFile(Buffer.alloc(size, 0x61)) as { error: string }).error;
    assert.equal(
      errorFor(MAX_FILE_BYTES + 1),
      'The file is 769 KB; agent files are checked up to 768 KB. Split the workflow into smaller agents.',
    );
    assert.match(errorFor(1000 * 1024), /^The file is 1\.0 MB; agent files are checked up to 768 KB\./);
  });
  it('prints no warnings of the YAML parser to the process (a mapping as a key)', async () => {
    const warnings: string[] = [];
    const listener = (warning: Error) => warnings.push(warning.message);
    process.on('warning', listener);
    try {
      validateAgentText('version: 1\nname: a\n? { x: 1 }\n: value\n');
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listener);
    }
    assert.deepEqual(warnings, []);
  });
});
