// Another editor's real client: Neovim, headless, with its built-in LSP client and no plugin
// (test/fixtures/neovim/init.lua) starts `agent-workflows lsp --stdio` from the built command line,
// opens a broken agent file, waits for the diagnostic, asks for a hover and writes both to a file
// read here. scripts/install-test-host.sh installs Debian's neovim, and `npm test` runs it before the
// unit tests; without nvim (it could not be installed) the test is skipped and says so.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, fixturesDir } from '../support/paths';
import { makeTempDir } from '../support/tempDir';

const AGENT = `version: 1
name: Weather
inputs:
  city: { type: string, required: true }
nodes:
  forecast:
    type: api
    method: GETT
    url: "https://api.example.com/forecast?q={{ inputs.city }}"
outputs:
  text: { from: "{{ nodes.forecast.body }}" }
`;

interface NeovimResult {
  readonly error?: string;
  readonly stopped?: boolean;
  readonly hover?: string;
  readonly diagnostics?: readonly {
    code: string;
    message: string;
    source: string;
    severity: number;
    lnum: number;
    col: number;
    end_lnum: number;
    end_col: number;
  }[];
}

/** The nvim on PATH, or why there is none. */
function neovimVersion(): { version: string } | { missing: string } {
  const run = spawnSync('nvim', ['--version'], { encoding: 'utf8' });
  if (run.error) return { missing: run.error.message };
  return { version: run.stdout.split('\n')[0] ?? '' };
}

describe('Neovim headless with agent-workflows lsp --stdio', function () {
  this.timeout(60_000);

  it('shows the diagnostic of a broken agent file and a hover', async function () {
    const nvim = neovimVersion();
    if ('missing' in nvim) {
      // Never silent: the summary counts it as pending, and this says why.
      console.log(
        `    Neovim test skipped: nvim cannot be run (${nvim.missing}). scripts/install-test-host.sh installs it (apt-get install neovim).`,
      );
      this.skip();
    }
    const dir = makeTempDir();
    try {
      const file = dir.write('weather.agent.yaml', AGENT);
      const out = join(dir.path, 'result.json');
      const hoverLine = AGENT.split('\n').findIndex((line) => line.includes('inputs.city'));
      const child = spawn('nvim', ['--headless', '-n', '-i', 'NONE', '-u', join(fixturesDir, 'neovim', 'init.lua')], {
        cwd: dir.path,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir.path,
          XDG_CONFIG_HOME: join(dir.path, 'config'),
          XDG_DATA_HOME: join(dir.path, 'data'),
          XDG_STATE_HOME: join(dir.path, 'state'),
          XDG_CACHE_HOME: join(dir.path, 'cache'),
          AW_NVIM_OUT: out,
          AW_AGENT_FILE: file,
          AW_NODE: process.execPath,
          AW_CLI: join(repoRoot, 'dist', 'cli.js'),
          AW_HOVER_LINE: String(hoverLine),
          AW_HOVER_CHARACTER: String(AGENT.split('\n')[hoverLine]!.indexOf('inputs.city') + 'inputs.c'.length),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // The Lua script bounds each of its waits; this ends the editor if it hangs anyway.
      const limit = setTimeout(() => child.kill('SIGKILL'), 50_000);
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      clearTimeout(limit);
      const result = JSON.parse(readFileSync(out, 'utf8')) as NeovimResult;
      assert.equal(result.error, undefined, `${result.error ?? ''}\n${stderr}`);
      assert.equal(code, 0, stderr);

      const method = result.diagnostics?.find((diagnostic) => diagnostic.code === 'unknown-http-method');
      assert.ok(method, JSON.stringify(result.diagnostics));
      const line = AGENT.split('\n').findIndex((text) => text.includes('GETT'));
      const column = AGENT.split('\n')[line]!.indexOf('GETT');
      assert.deepEqual([method.lnum, method.col, method.end_lnum, method.end_col], [line, column, line, column + 'GETT'.length]);
      assert.equal(method.source, 'agent-workflows');
      assert.match(method.message, /Did you mean "GET"\?/);
      assert.match(result.hover ?? '', /city/);
      assert.equal(result.stopped, true, 'the server stopped when Neovim asked');
    } finally {
      dir.remove();
    }
  });
});
