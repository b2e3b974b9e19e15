// Files named by a data file or a test file: read only from that file's folder (no absolute path,
// no `..` out, no link out) unless a folder is allowed (--allow-files-from), and typed by their
// content for `accept:`. Through the real command line (in-process and the built binary) against
// a fake agent service on 127.0.0.1, asserting on what the service received.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { contentTypeOf, sniffedType } from '../../src/core/inputs/contentType';
import { checkFileAccess } from '../../src/core/inputs/fileAccess';
import { runCliCaptured } from '../support/cli';
import { startFakeService } from '../support/fakeAgentService';
import type { FakeService } from '../support/fakeAgentService';
import { repoRoot } from '../support/paths';
import { makeTempDir } from '../support/tempDir';
import type { TempDir } from '../support/tempDir';

const KEY = 'file-access-key-4711';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const SECRET = 'BEGIN OPENSSH PRIVATE KEY the-secret-bytes';

function picAgent(baseUrl: string, accept = '[image/png]'): string {
  return `version: 1
name: Pics
deployment:
  baseUrl: ${baseUrl}
  account: acme
  agent: pics
inputs:
  id: { type: number, required: true }
  pic: { type: file, accept: ${accept} }
nodes:
  echo:
    type: template
    text: "{{ inputs.id }}"
outputs:
  id: { from: "{{ nodes.echo.body }}" }
`;
}

describe('files named by a data file or a test file', () => {
  let dir: TempDir;
  let fake: FakeService;
  beforeEach(async () => {
    dir = makeTempDir();
    fake = await startFakeService(KEY);
    // The project, and beside it a folder the data must not reach.
    dir.write('project/pics.agent.yaml', picAgent(fake.url));
    dir.write('outside/id_rsa', SECRET);
    dir.write('outside/real.png', PNG);
  });
  afterEach(async () => {
    await fake.close();
    dir.remove();
  });

  const cli = (args: string[]) => runCliCaptured(args, { cwd: join(dir.path, 'project'), env: { AGENT_WORKFLOWS_API_KEY: KEY } }, [KEY]);
  const sentFiles = (): string[] =>
    fake.starts.flatMap((start) => start.parts.filter((part) => part.name !== 'payload').map((part) => part.data.toString('latin1')));

  describe('the decision (core)', () => {
    it('refuses absolute paths, `..` out and links out, with the folder to allow; allows them inside an allowed folder', async () => {
      const folder = join(dir.path, 'project', 'data');
      dir.write('project/data/in.txt', 'inside');
      symlinkSync(join(dir.path, 'outside', 'id_rsa'), join(folder, 'cute.png'));
      symlinkSync(join(folder, 'in.txt'), join(folder, 'alias.txt'));
      const secret = join(dir.path, 'outside', 'id_rsa');

      const codes = async (given: string, allowedFolders?: string[]) => {
        const access = await checkFileAccess(given, { folder, ...(allowedFolders ? { allowedFolders } : {}) });
        return access.ok ? 'ok' : [access.refusal.code, access.refusal.allowFolder];
      };
      assert.deepEqual(await codes(secret), ['absolute-path', join(dir.path, 'outside')]);
      assert.deepEqual(await codes('../../outside/id_rsa'), ['outside-folder', join(dir.path, 'outside')]);
      assert.deepEqual(await codes('cute.png'), ['link-outside', join(dir.path, 'outside')]);
      assert.deepEqual(await codes('../../outside/nothing-here'), ['outside-folder', join(dir.path, 'outside')]);
      assert.deepEqual(await codes('missing.txt'), ['not-found', undefined]);
      assert.equal(await codes('in.txt'), 'ok');
      assert.equal(await codes('alias.txt'), 'ok', 'a link that stays inside the folder is fine');
      for (const given of [secret, '../../outside/id_rsa', 'cute.png']) assert.equal(await codes(given, [join(dir.path, 'outside')]), 'ok');
      // An allowed folder elsewhere allows nothing here.
      assert.deepEqual(await codes('cute.png', [join(dir.path, 'project')]), ['link-outside', join(dir.path, 'outside')]);

      const link = await checkFileAccess('cute.png', { folder, allowedFolders: [join(dir.path, 'outside')] });
      assert.ok(link.ok);
      assert.equal(link.file.path, secret, 'what is read is the real path');
      assert.deepEqual([link.file.type, link.file.extensionTrusted], ['text/plain', false], 'typed by its content, not its name');
    });

    it('types a file by its first bytes where they tell it, else by its extension', () => {
      const bytes = (...values: (number | string)[]): Uint8Array =>
        Buffer.concat(values.map((value) => (typeof value === 'string' ? Buffer.from(value, 'latin1') : Buffer.from([value]))));
      assert.equal(sniffedType(PNG), 'image/png');
      assert.equal(sniffedType(bytes(0xff, 0xd8, 0xff, 0xe0)), 'image/jpeg');
      assert.equal(sniffedType(bytes('GIF89a')), 'image/gif');
      assert.equal(sniffedType(bytes('RIFF', 0, 0, 0, 0, 'WEBPVP8 ')), 'image/webp');
      assert.equal(sniffedType(bytes('%PDF-1.7')), 'application/pdf');
      assert.equal(sniffedType(bytes('PK', 3, 4)), 'application/zip');
      assert.equal(sniffedType(bytes(0x1f, 0x8b, 8)), 'application/gzip');
      assert.equal(sniffedType(bytes('caf\xe9, na\xefve: latin-1 text')), 'text');
      assert.equal(sniffedType(bytes('ID3', 4, 0, 0)), 'binary');
      assert.equal(sniffedType(new Uint8Array()), undefined);

      assert.deepEqual(contentTypeOf('cute.png', bytes('root:x:0:0')), { type: 'text/plain', extensionTrusted: false });
      assert.deepEqual(contentTypeOf('notes.txt', PNG), { type: 'image/png', extensionTrusted: false });
      assert.deepEqual(contentTypeOf('data.csv', bytes('a,b\n', 0)), { type: 'application/octet-stream', extensionTrusted: false });
      assert.deepEqual(contentTypeOf('photo.png', PNG), { type: 'image/png', extensionTrusted: true });
      assert.deepEqual(
        contentTypeOf('report.docx', bytes('PK', 3, 4)).type,
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      );
      assert.deepEqual(contentTypeOf('song.mp3', bytes('ID3', 4, 0)), { type: 'audio/mpeg', extensionTrusted: true });
      assert.deepEqual(contentTypeOf('upload', PNG), { type: 'image/png', extensionTrusted: true }, 'no extension: the content tells');
      assert.deepEqual(contentTypeOf('empty.png', new Uint8Array()), { type: 'image/png', extensionTrusted: true });
    });
  });

  describe('agent-workflows batch', () => {
    it('sends no file from outside the data folder: absolute, `..`, a link; says how to allow the folder', async () => {
      dir.write(
        'project/data/rows.csv',
        `id,pic\n1,${join(dir.path, 'outside', 'id_rsa')}\n2,../../outside/id_rsa\n3,cute.png\n4,photo.png\n`,
      );
      dir.write('project/data/photo.png', PNG);
      symlinkSync(join(dir.path, 'outside', 'id_rsa'), join(dir.path, 'project', 'data', 'cute.png'));
      const result = await cli(['batch', 'pics.agent.yaml', '--data', 'data/rows.csv', '--allow-insecure-http']);
      assert.equal(result.code, 1, result.stderr);
      const outside = join(dir.path, 'outside');
      assert.match(
        result.stderr,
        /row 1, column "pic": the file "[^"]+id_rsa" is an absolute path: files named by a data file are read only from its folder/,
      );
      assert.match(result.stderr, /row 2, column "pic": the file "\.\.\/\.\.\/outside\/id_rsa" is outside the data file's folder/);
      assert.match(result.stderr, /row 3, column "pic": the file "cute\.png" is a link to [^,]+id_rsa, outside the data file's folder/);
      assert.ok(result.stderr.includes(`give --allow-files-from ${outside}`), result.stderr);
      assert.match(result.stderr, /4 rows: 1 finished, 3 skipped/);
      assert.equal(fake.starts.length, 1, 'only the row whose file is inside the folder was sent');
      assert.deepEqual(sentFiles(), [PNG.toString('latin1')]);
      assert.ok(!sentFiles().some((data) => data.includes(SECRET)));
    });

    it('--allow-files-from DIR lets the data name that folder; accept is checked against the content', async () => {
      dir.write('project/data/rows.jsonl', `{"id":1,"pic":"../../outside/real.png"}\n{"id":2,"pic":"cute.png"}\n`);
      // A link named cute.png to a text file: its content is not an image/png.
      symlinkSync(join(dir.path, 'outside', 'id_rsa'), join(dir.path, 'project', 'data', 'cute.png'));
      const result = await cli([
        'batch',
        'pics.agent.yaml',
        '--data',
        'data/rows.jsonl',
        '--allow-insecure-http',
        '--allow-files-from',
        '../outside',
      ]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /row 2, column "pic": The file for input "pic" \(cute\.png\) is not of an accepted type: image\/png/);
      assert.equal(fake.starts.length, 1);
      const part = fake.starts[0]!.parts.find((p) => p.name === 'pic');
      assert.deepEqual([part?.mimeType, part?.data.equals(PNG)], ['image/png', true]);

      const missing = await cli(['batch', 'pics.agent.yaml', '--data', 'data/rows.jsonl', '--allow-files-from', 'no/such']);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--allow-files-from no\/such: no such folder/);
    });

    it('accept by extension: a text file named .png does not pass `accept: [.png]`', async () => {
      dir.write('project/pics.agent.yaml', picAgent(fake.url, '[.png]'));
      dir.write('project/data/fake.png', 'just text');
      dir.write('project/data/rows.jsonl', `{"id":1,"pic":"fake.png"}\n`);
      const result = await cli(['batch', 'pics.agent.yaml', '--data', 'data/rows.jsonl', '--allow-insecure-http']);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /not of an accepted type: \.png/);
      assert.equal(fake.starts.length, 0);
    });

    it('a refused file is said once (not "required" again); devices and descriptors are never read, and no folder is offered', async function () {
      if (process.platform === 'win32') this.skip();
      dir.write('project/pics.agent.yaml', picAgent(fake.url).replace('pic: { type: file,', 'pic: { type: file, required: true,'));
      dir.write(
        'project/data/rows.jsonl',
        ['/dev/fd/0', '/proc/self/environ', 'zero.png', '../../outside/real.png']
          .map((pic, index) => JSON.stringify({ id: index + 1, pic }))
          .join('\n'),
      );
      symlinkSync('/dev/zero', join(dir.path, 'project', 'data', 'zero.png'));
      const args = ['batch', 'pics.agent.yaml', '--data', 'data/rows.jsonl', '--allow-insecure-http', '--allow-files-from', '/dev'];
      const run = await promisify(execFile)(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], {
        cwd: join(dir.path, 'project'),
        env: { ...process.env, AGENT_WORKFLOWS_API_KEY: KEY },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(run.code, 1, run.stderr);
      const rows = run.stderr.split('\n').filter((line) => line.startsWith('row '));
      assert.equal(rows.length, 4, run.stderr);
      assert.ok(!run.stderr.includes('is required'), run.stderr);
      for (const [index, given] of ['/dev/fd/0', '/proc/self/environ', 'zero.png'].entries())
        assert.ok(
          rows[index]!.startsWith(
            `row ${index + 1}, column "pic": "${given}" is not a regular file (looked for ${given.startsWith('/') ? given : join(dir.path, 'project', 'data', given)}): devices, FIFOs and descriptors (/dev, /proc) are never read; name a regular file (skipped)`,
          ),
          rows[index],
        );
      assert.match(rows[3]!, /outside the data file's folder[^;]*; to read files from [^,]+outside, give --allow-files-from /);
      assert.equal(fake.starts.length, 0);
    });

    it('the built binary refuses a link out of the data folder', async () => {
      dir.write('project/data/rows.jsonl', `{"id":1,"pic":"cute.png"}\n`);
      symlinkSync(join(dir.path, 'outside', 'real.png'), join(dir.path, 'project', 'data', 'cute.png'));
      const run = await promisify(execFile)(
        process.execPath,
        [join(repoRoot, 'dist', 'cli.js'), 'batch', 'pics.agent.yaml', '--data', 'data/rows.jsonl', '--allow-insecure-http'],
        { cwd: join(dir.path, 'project'), env: { ...process.env, AGENT_WORKFLOWS_API_KEY: KEY } },
      ).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /is a link to [^,]+real\.png, outside the data file's folder[^;]*; to read files from [^,]+, give --allow-files-from /,
      );
      assert.equal(fake.starts.length, 0);
    });
  });

  describe('agent-workflows test', () => {
    const testFile = (files: string, extra = '') => `cases:
  upload:
    deployed: true
    inputs: { id: 1 }
    files: { pic: ${files} }
    expect: { outputs: { id: "1" } }
${extra}`;

    beforeEach(() => {
      // The fake service answers every execution with the outputs { id: "1" }.
      fake.statusAnswer = (_n, _id, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: 'finished', outputs: { id: '1' } }));
      };
    });

    it("a deployed case's files: a link out is not sent; reports say which cases ran on the service", async () => {
      symlinkSync(join(dir.path, 'outside', 'real.png'), join(dir.path, 'project', 'cute.png'));
      dir.write('project/photo.png', PNG);
      dir.write(
        'project/pics.agent.test.yaml',
        testFile(
          'cute.png',
          `  inside:\n    deployed: true\n    inputs: { id: 1 }\n    files: { pic: photo.png }\n    expect: { outputs: { id: "1" } }\n`,
        ),
      );
      const result = await cli(['test', '--allow-insecure-http']);
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(
        result.stdout,
        /✗ upload \(\d+ ms\)\n\s+pics\.agent\.test\.yaml:\d+: The case's inputs were refused: The file for input "pic" is not read: the file "cute\.png" is a link to [^,]+real\.png, outside the test file's folder/,
      );
      assert.ok(result.stdout.includes(`give --allow-files-from ${join(dir.path, 'outside')}`), result.stdout);
      const origin = new URL(fake.url).origin;
      assert.ok(result.stdout.includes(`✓ inside (`) && result.stdout.includes(`(ran on ${origin})`), result.stdout);
      assert.doesNotMatch(result.stdout, /upload \([^)]*\) \(ran on/, 'a case that was never sent did not run on the service');
      assert.equal(fake.starts.length, 1);

      const json = await cli(['test', '--allow-insecure-http', '--reporter', 'json']);
      const cases = (JSON.parse(json.stdout) as { files: { cases: { name: string; ranOn?: string }[] }[] }).files[0]!.cases;
      assert.deepEqual(
        cases.map((c) => [c.name, c.ranOn]),
        [
          ['upload', undefined],
          ['inside', origin],
        ],
      );
      const junit = await cli(['test', '--allow-insecure-http', '--reporter', 'junit']);
      assert.ok(junit.stdout.includes(`<property name="ranOn" value="${origin}"/>`), junit.stdout);
      assert.ok(junit.stdout.includes(`ran on ${origin}`), junit.stdout);

      const allowed = await cli(['test', '--allow-insecure-http', '--allow-files-from', '../outside']);
      assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
      assert.ok(fake.starts.slice(-2).every((start) => start.parts.some((part) => part.name === 'pic' && part.data.equals(PNG))));
    });

    it("a local case's files stay in the test file's folder too", async () => {
      dir.write(
        'project/pics.agent.test.yaml',
        `cases:\n  local:\n    inputs: { id: 1 }\n    files: { pic: ../outside/id_rsa }\n    expect: { outputs: { id: "1" } }\n`,
      );
      const result = await cli(['test']);
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(result.stdout, /the file "\.\.\/outside\/id_rsa" is outside the test file's folder/);
      assert.doesNotMatch(result.stdout, /ran on/);
    });

    it('the built binary marks a deployed case in the text report', async () => {
      dir.write('project/photo.png', PNG);
      dir.write('project/pics.agent.test.yaml', testFile('photo.png'));
      const run = await promisify(execFile)(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'test', '--allow-insecure-http'], {
        cwd: join(dir.path, 'project'),
        env: { ...process.env, AGENT_WORKFLOWS_API_KEY: KEY },
      });
      assert.ok(run.stdout.includes(`✓ upload (`) && run.stdout.includes(`(ran on ${new URL(fake.url).origin})`), run.stdout);
    });
  });
});
