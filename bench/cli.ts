// Start-up cost of the command line as a user pays it, each command in its own process, against a
// reference process measured in alternation in the same run: `--help` against `node -e 0`, and
// `validate` of the validation benchmark's 2,000-node agent against a bare `yaml.parseDocument`
// of the same file. Then issue 9's bound: every hostile shape, and the generated agent, grown to
// the largest file validation accepts, is checked by a whole `validate` process in under 1 s.
// Measures the bundle in dist/ (`npm run bench` builds it for production).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot, makeTempDir, removeDir } from '../test/host/common';
import { MAX_FILE_BYTES } from '../src/core/limits';
import { HOSTILE_SHAPES, largestUnderLimit } from '../test/support/hostileAgents';
import { table } from './support';
import { generateAgent } from './validate';

const RUNS = 15;
/** `--help` against `node -e 0`: the bundle's load. */
const HELP_TARGET_RATIO = 1.3;
/** `validate` of the 2,000-node file against a bare parse of it (issue 22's bound). */
const VALIDATE_TARGET_RATIO = 1.2;

/**
 * Loaded first into every measured process (`-r`): at exit it writes the CPU time the process
 * used (user and system) to standard error, so the ratios hold on a machine busy with other work.
 */
const CPU_REPORT = `process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\n@cpu ' + (u.user + u.system) / 1000 + '\\n'); });`;

interface ProcessTime {
  readonly wallMs: number;
  readonly cpuMs: number;
}

export function runCliBenchmark(): boolean {
  const repoRoot = findRepoRoot();
  const cli = join(repoRoot, 'dist', 'cli.js');
  const scratch = makeTempDir('agent-workflows-bench-cli-');
  try {
    const agent = join(scratch, 'generated.agent.yaml');
    writeFileSync(agent, generateAgent(2000));
    const bareParse = `require('yaml').parseDocument(require('fs').readFileSync(${JSON.stringify(agent)}, 'utf8'))`;
    const preload = join(scratch, 'cpu-report.js');
    writeFileSync(preload, CPU_REPORT);
    const pairs: Array<[string, string[], string, string[], number]> = [
      ['agent-workflows --help', [cli, '--help'], 'node -e 0', ['-e', '0'], HELP_TARGET_RATIO],
      [
        'agent-workflows validate (2,000 nodes)',
        [cli, 'validate', agent],
        'bare yaml.parseDocument',
        ['-e', bareParse],
        VALIDATE_TARGET_RATIO,
      ],
    ];
    const rows = [['command', 'wall', 'CPU', 'reference', 'wall', 'CPU', 'wall ratio', 'CPU ratio', 'target']];
    let ok = true;
    for (const [name, args, referenceName, referenceArgs, target] of pairs) {
      const { a, b } = alternate(
        () => timed(['-r', preload, ...args], repoRoot),
        () => timed(['-r', preload, ...referenceArgs], repoRoot),
      );
      // CPU time decides: wall time also counts what else the machine does meanwhile.
      const ratio = a.cpuMs / b.cpuMs;
      if (ratio > target) ok = false;
      rows.push([
        name,
        `${a.wallMs.toFixed(0)} ms`,
        `${a.cpuMs.toFixed(0)} ms`,
        referenceName,
        `${b.wallMs.toFixed(0)} ms`,
        `${b.cpuMs.toFixed(0)} ms`,
        `${(a.wallMs / b.wallMs).toFixed(2)}x`,
        `${ratio.toFixed(2)}x`,
        `<= ${target}x`,
      ]);
    }
    console.log(`Command line start-up (medians of ${RUNS} alternating processes; the target is on CPU time)`);
    console.log(table(rows));
    console.log('');
    return runLimitSizedFiles(cli, repoRoot, scratch) && ok;
  } finally {
    removeDir(scratch);
  }
}

/** The whole `validate` of any file the size limit lets through takes less than this. */
const LIMIT_SIZED_TARGET_MS = 1000;

function runLimitSizedFiles(cli: string, repoRoot: string, scratch: string): boolean {
  const shapes = [...HOSTILE_SHAPES, { name: 'generated agent (validation bench)', generate: generateAgent, issueCount: 100 }];
  const rows = [['file, grown to the size limit', 'size', 'validate (whole process)', 'bare yaml.parseDocument process']];
  let ok = true;
  for (const shape of shapes) {
    const text = largestUnderLimit(shape.generate, shape.issueCount);
    const file = join(scratch, 'limit-sized.agent.yaml');
    writeFileSync(file, text);
    // Fastest of 3: the bound is on the work, not on what else the machine does meanwhile.
    const validate = Math.min(...[0, 1, 2].map(() => run([cli, 'validate', file], repoRoot, [0, 1])));
    const bareParse = run(['-e', `require('yaml').parseDocument(require('fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`], repoRoot);
    if (validate >= LIMIT_SIZED_TARGET_MS) ok = false;
    rows.push([shape.name, `${(text.length / 1024).toFixed(0)} KB`, `${validate.toFixed(0)} ms`, `${bareParse.toFixed(0)} ms`]);
  }
  console.log(
    `Files as large as validation accepts (${MAX_FILE_BYTES / 1024} KB; fastest of 3 processes; target: each under ${LIMIT_SIZED_TARGET_MS} ms)`,
  );
  console.log(table(rows));
  return ok;
}

/** Runs node with args to the end and returns how long it took, in ms; fails on another exit code. */
function run(args: string[], cwd: string, exitCodes: readonly number[] = [0]): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (!exitCodes.includes(result.status ?? -1)) {
    throw new Error(`node ${args.join(' ')} exited with ${String(result.status)}: ${result.stderr}`);
  }
  return ms;
}

/** Runs node with args (the CPU report preloaded) to the end: its wall and CPU time. */
function timed(args: string[], cwd: string): ProcessTime {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = /@cpu ([\d.]+)\s*$/.exec(result.stderr);
  if (result.status !== 0 || !cpu) throw new Error(`node ${args.join(' ')} exited with ${String(result.status)}: ${result.stderr}`);
  return { wallMs, cpuMs: Number(cpu[1]) };
}

/** Medians (wall and CPU, each on its own) of two measurements taken in alternation, after one warm-up of each. */
function alternate(a: () => ProcessTime, b: () => ProcessTime): { a: ProcessTime; b: ProcessTime } {
  a();
  b();
  const times: [ProcessTime[], ProcessTime[]] = [[], []];
  for (let i = 0; i < RUNS; i++) {
    times[0].push(a());
    times[1].push(b());
  }
  const median = (values: number[]): number => values.sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
  const medians = (side: ProcessTime[]): ProcessTime => ({
    wallMs: median(side.map((time) => time.wallMs)),
    cpuMs: median(side.map((time) => time.cpuMs)),
  });
  return { a: medians(times[0]), b: medians(times[1]) };
}
