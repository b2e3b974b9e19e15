// UTF-8 and Base64 without Node's Buffer (src/core/utf8.ts), held to Buffer's answers; then what
// uses them, run with Buffer gone as in VS Code for the Web's web worker: a large file's size, a
// Basic credential's check and its quick fix, a cURL import with -u and --data-urlencode.
import assert from 'node:assert/strict';
import { apiNodeFromCurl } from '../../src/core/import/apiNodeFromCurl';
import { importedNodeYaml } from '../../src/core/import/nodeYaml';
import { parseCurlCommand } from '../../src/core/import/curlCommand';
import { quickFixes } from '../../src/core/language/quickFixes';
import { MAX_FILE_BYTES } from '../../src/core/limits';
import { Redactor } from '../../src/core/redaction';
import { base64OfBytes, base64OfText, bytesOfBase64, utf8Length } from '../../src/core/utf8';
import { validateAgentText } from '../../src/core/validation/validate';

const TEXTS = [
  '',
  'user:password',
  'é',
  'naïve café',
  '日本語',
  '😀 emoji',
  'a\u0000b',
  '\ud83d', // a lone high surrogate at the end
  '\ud83da', // a high surrogate before something else
  '\ude00x', // a lone low surrogate
  'x'.repeat(3 * 0x2000 + 7), // more than String.fromCharCode takes at once
];

/** Runs `work` with no global Buffer, as a web worker has none. */
function withoutBuffer<T>(work: () => T): T {
  const saved = globalThis.Buffer;
  // @ts-expect-error: taken away for the length of `work`
  delete globalThis.Buffer;
  try {
    return work();
  } finally {
    globalThis.Buffer = saved;
  }
}

describe('UTF-8 and Base64 without Buffer', () => {
  it('counts UTF-8 bytes as Buffer.byteLength does, lone surrogates too', () => {
    for (const text of TEXTS) assert.equal(utf8Length(text), Buffer.byteLength(text, 'utf8'), JSON.stringify(text.slice(0, 20)));
  });

  it('encodes and decodes Base64 as Buffer does', () => {
    for (const text of TEXTS) {
      const expected = Buffer.from(text, 'utf8').toString('base64');
      assert.equal(base64OfText(text), expected);
      assert.deepEqual(Buffer.from(bytesOfBase64(expected)), Buffer.from(text, 'utf8'));
    }
    const bytes = new Uint8Array(300).map((_, i) => (i * 37) % 256);
    assert.equal(base64OfBytes(bytes), Buffer.from(bytes).toString('base64'));
    assert.throws(() => bytesOfBase64('not base64!'));
  });

  it('checks files, Basic credentials and their quick fixes, imports cURL and redacts, with no Buffer', () => {
    const encoded = Buffer.from('ada:correct-horse-battery', 'utf8').toString('base64');
    const agent = (header: string, padding = '') =>
      `version: 1\nname: Web\nnodes:\n  call:\n    type: api\n    method: GET\n    url: https://api.example.com/v1/items\n    settings: ["${header}"]\n${padding}outputs:\n  out: { from: "{{ nodes.call.body }}" }\n`;
    withoutBuffer(() => {
      // Encoded credentials decode to user:password: only that they are written in the file is said.
      assert.deepEqual(
        validateAgentText(agent('Authorization: Basic dXNlcjpwYXNz')).problems.map((problem) => problem.code),
        ['literal-credential'],
      );
      const plain = agent('Authorization: Basic alice:s3cret');
      const problem = validateAgentText(plain).problems.find((found) => found.code === 'basic-not-encoded');
      assert.ok(problem);
      assert.deepEqual(quickFixes(plain, problem)[0]!.edits[0]!.newText, 'YWxpY2U6czNjcmV0');
      // Past a quarter of the size limit, the size is counted in bytes.
      const comment = `# ${'é'.repeat(MAX_FILE_BYTES / 4)}\n`;
      assert.deepEqual(validateAgentText(comment + agent('Accept: application/json')).problems, []);
      assert.equal(validateAgentText(comment.repeat(3)).problems[0]?.code, 'file-too-large');
      const imported = apiNodeFromCurl(
        parseCurlCommand("curl -u ada:lovelace --data-urlencode 'q=naïve café' https://api.example.com/v1/search"),
      );
      const yaml = importedNodeYaml(imported);
      assert.match(yaml, /Authorization: Basic \{\{ secrets\.\w+ \}\}/);
      assert.deepEqual(
        imported.secrets.map((secret) => secret.value),
        ['YWRhOmxvdmVsYWNl'],
      );
      assert.match(yaml, /q=na%C3%AFve\+caf%C3%A9/);
      // A secret is found in the Base64 of a longer text too.
      const redactor = new Redactor();
      redactor.add('correct-horse-battery');
      const header = `Authorization: Basic ${encoded}`;
      assert.notEqual(redactor.text(header), header);
      assert.doesNotMatch(redactor.text(header), new RegExp(encoded.slice(8, 24)));
    });
  });
});
