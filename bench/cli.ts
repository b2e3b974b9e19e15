// Start-up cost of the command line as a user pays it, each command in its own process, against a
// reference process measured in alternation in the same run: `--help` against `node -e 0`, and
// `validate` of the validation benchmark's 2,000-node agent against a bare `yaml.parseDocument`
// of the same file. Measures the bundle in dist/ (`npm run bench` builds it for production).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot, makeTempDir, removeDir } from '../test/host/common';
import { table } from './support';
import { generateAgent } from './validate';

const RUNS = 15;
const TARGET_RATIO = 1.3;

export function runCliBenchmark(): boolean {
  const repoRoot = findRepoRoot();
  const cli = join(repoRoot, 'dist', 'cli.js');
  const scratch = makeTempDir('agent-workflows-bench-cli-');
  try {
    const agent = join(scratch, 'generated.agent.yaml');
    writeFileSync(agent, generateAgent(2000));
    const bareParse = `require('yaml').parseDocument(require('fs').readFileSync(${JSON.stringify(agent)}, 'utf8'))`;
    const pairs: Array<[string, string[], string, string[]]> = [
      ['agent-workflows --help', [cli, '--help'], 'node -e 0', ['-e', '0']],
      ['agent-workflows validate (2,000 nodes)', [cli, 'validate', agent], 'bare yaml.parseDocument', ['-e', bareParse]],
    ];
    const rows = [['command', 'median', 'reference', 'median', 'ratio']];
    let ok = true;
    for (const [name, args, referenceName, referenceArgs] of pairs) {
      const { a, b } = alternate(
        () => run(args, repoRoot),
        () => run(referenceArgs, repoRoot),
      );
      const ratio = a / b;
      if (ratio > TARGET_RATIO) ok = false;
      rows.push([name, `${a.toFixed(0)} ms`, referenceName, `${b.toFixed(0)} ms`, `${ratio.toFixed(2)}x`]);
    }
    console.log(`Command line start-up (median of ${RUNS} alternating processes; target: ratio <= ${TARGET_RATIO}x)`);
    console.log(table(rows));
    return ok;
  } finally {
    removeDir(scratch);
  }
}

/** Runs node with args to the end and returns how long it took, in ms; fails when it fails. */
function run(args: string[], cwd: string): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${String(result.status)}: ${result.stderr}`);
  return ms;
}

/** Medians of two measurements taken in alternation, after one warm-up of each. */
function alternate(a: () => number, b: () => number): { a: number; b: number } {
  a();
  b();
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < RUNS; i++) {
    times[0].push(a());
    times[1].push(b());
  }
  const median = (values: number[]): number => values.sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
  return { a: median(times[0]), b: median(times[1]) };
}
