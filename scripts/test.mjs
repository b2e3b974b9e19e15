// What `npm test` runs: type check, lint (ESLint and Prettier's check), the test host's
// installation when it is missing, build, unit tests (plain Node), integration tests (inside VS
// Code, through code-server and headless Chromium) and UI tests, in two lanes side by side (below).
// The last line of the
// output is always `N passed, N failed` (tests of every suite, plus the type check and the lint as
// one check each); the exit code is 0 only when nothing failed. See docs/testing.md.
//
//   node scripts/test.mjs                       everything
//   node scripts/test.mjs --only unit           build + unit tests
//   node scripts/test.mjs --only integration    build + integration tests in code-server
//   node scripts/test.mjs --only ui             build + UI tests (packaged VSIX in code-server, Chromium)
//   node scripts/test.mjs --only desktop        build + integration tests in desktop VS Code
//   node scripts/test.mjs --only typecheck      type check only
//   node scripts/test.mjs --only lint           ESLint and Prettier's check only
//   ... --grep <regexp>                         only the tests whose full title matches
import { spawn } from 'node:child_process';
import { setPriority, tmpdir } from 'node:os';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

const argv = process.argv.slice(2);
const STAGES = ['typecheck', 'lint', 'unit', 'integration', 'ui', 'desktop'];
const { only, grep } = parseArgs(argv);
if (only !== undefined && !STAGES.includes(only)) usage(`--only must be one of ${STAGES.join(', ')}`);
const wants = (stage) => (only ? only === stage : stage !== 'desktop');

const node = process.execPath;
const results = join('out', 'test-results');
// The integration suite takes 2-3 minutes alone; beside the Node lane, on a busy machine, twice that.
const hostTimeout = Number(process.env.AGENT_WORKFLOWS_TEST_TIMEOUT) || 480;
const hostEnv = grep ? { AGENT_WORKFLOWS_TEST_GREP: grep } : {};
// The integration tests that bound the extension host's responsiveness (responsiveness.test.ts) run
// in the host lane while the Node lane runs beside it: the Node lane's stages run at a lower
// priority (BACKGROUND_NICENESS), so the extension host gets the CPU when it asks for it. They are
// not moved to a host of their own after both lanes: in a fresh host they measure the first load of
// the language features (over their 250 ms bound) instead of the steady state, and they rely on
// test discovery that the earlier integration tests have run.
// Whether the two lanes run at once (else the Node lane's output is printed live).
const sideBySide = wants('unit') && (wants('integration') || wants('ui'));
// The VSIX the UI stage installs, packaged before the test build (packageForUi); removed at exit.
const uiVsix = join(tmpdir(), `agent-workflows-ui-${process.pid}.vsix`);
process.on('exit', () => rmSync(uiVsix, { force: true }));
// The niceness of the background stages (the Node lane, the host's installation): 10 of 19.
const BACKGROUND_NICENESS = 10;
// How much of a background stage's output is kept to print when it ends (the unit tests print ~200 KB).
const OUTPUT_KEPT = 8 * 1024 * 1024;
// A suite that has reported its results but is still running this much later left something open.
const EXIT_GRACE_SECONDS = 15;

const tally = { passed: 0, failed: 0 };
const failures = []; // { stage, title, error }
const rows = []; // [stage, outcome, seconds]
const slowest = []; // [stage, { file: seconds }]: where each suite's time went
const running = new Set(); // the running child processes
let interrupted; // the signal that stopped us

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    interrupted ??= signal;
    // The children clean up (close code-server, Chromium) and end; then we report.
    for (const child of running) child.kill(signal);
  });
}

try {
  // Two lanes run side by side, as the machine has two cores and the host stages mostly wait (on
  // code-server, Chromium, the workbench, real servers): the Node lane (type check, lint, unit
  // tests: CPU-bound, their output printed as each stage ends) and the host lane (the test host's
  // installation, which waits on the network and the disk, then the integration, restricted and UI
  // stages, printed live). Both need the build, made first.
  const hostInstall = wants('integration') || wants('ui') ? installTestHost() : Promise.resolve(true);
  const needsBuild = wants('unit') || wants('integration') || wants('ui') || wants('desktop');
  // The VSIX of the UI stage is packaged first (a production build of dist/), then the test build:
  // packaging in the UI stage would build dist/ again while the unit tests read it.
  const built = needsBuild
    ? (wants('ui') ? packageForUi() : Promise.resolve(true)).then((packaged) => packaged && build())
    : Promise.resolve(false);
  const nodeLane = async () => {
    if (wants('typecheck')) await typecheck();
    if (wants('lint') && !interrupted) await lint();
    // The unit tests' own need (neovim, for the language server's test in another editor), when the
    // whole host was not installed above. Not a failure when it cannot be installed (no root, no
    // sudo): that test then says it was skipped and why, and the summary counts it as pending.
    if (wants('unit') && !(wants('integration') || wants('ui')) && !interrupted) await installUnitHost();
    // neovim comes with the host's packages: the unit tests wait for them when they are installed.
    if (wants('unit') && (wants('integration') || wants('ui'))) await hostInstall;
    if (wants('unit') && !interrupted && (await built)) {
      const summary = join(results, 'unit-summary.json');
      await suite(
        'unit',
        [
          'node_modules/mocha/bin/mocha.js',
          '--reporter',
          'out/test/support/summaryReporter.js',
          // 20 s a test, not .mocharc's 10 s: beside the host lane, at a lower priority, the
          // heaviest (the graph's layouts, the fuzz stages) take up to twice their time alone.
          ...(sideBySide ? ['--timeout', '20000'] : []),
          ...(grep ? ['--grep', grep] : []),
          'out/test/unit/**/*.test.js',
        ],
        summary,
        { AGENT_WORKFLOWS_TEST_SUMMARY: summary, NODE_OPTIONS: withSourceMaps() },
        // Beside the host lane it shares the CPU: twice the time it takes alone.
        600,
        { background: sideBySide },
      );
    }
  };
  const hostLane = async () => {
    const hostReady = await hostInstall;
    if (!(await built) || !hostReady || interrupted) return;
    if (wants('integration')) {
      const summary = join(results, 'integration-summary.json');
      await suite('integration', ['out/test/host/runWebHost.js', '--summary', summary], summary, hostEnv, hostTimeout + 60);
      // The same host with Workspace Trust on and the folder not trusted (Restricted Mode).
      const restricted = join(results, 'restricted-summary.json');
      if (!interrupted)
        await suite(
          'restricted',
          ['out/test/host/runWebHost.js', '--suite', 'restricted', '--summary', restricted],
          restricted,
          hostEnv,
          hostTimeout + 60,
        );
    }
    if (wants('ui') && !interrupted) {
      const summary = join(results, 'ui-summary.json');
      await suite(
        'ui',
        [
          'node_modules/mocha/bin/mocha.js',
          '--reporter',
          'out/test/support/summaryReporter.js',
          '--timeout',
          '180000',
          ...(grep ? ['--grep', grep] : []),
          'out/test/ui/**/*.test.js',
        ],
        summary,
        { AGENT_WORKFLOWS_TEST_SUMMARY: summary, NODE_OPTIONS: withSourceMaps(), AGENT_WORKFLOWS_UI_VSIX: uiVsix },
        600,
      );
    }
  };
  await Promise.all([nodeLane(), hostLane()]);
  if (wants('desktop') && (await built) && !interrupted) {
    const summary = join(results, 'desktop-summary.json');
    await suite('desktop', ['out/test/host/runDesktopHost.js', '--summary', summary], summary, hostEnv, 1800);
  }
} catch (error) {
  fail('test script', 'crashed', error?.stack ?? String(error));
}
report();
process.exitCode = interrupted ? 128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[interrupted] : tally.failed ? 1 : 0;

async function typecheck() {
  const run = await stage(
    'type check',
    'tsc --noEmit -p .',
    ['node_modules/typescript/bin/tsc', '--noEmit', '-p', '.'],
    {},
    300,
    undefined,
    node,
    {
      background: sideBySide,
    },
  );
  if (run.code === 0 && !run.note) {
    tally.passed++;
    rows.push(['type check', 'passed', run.seconds]);
  } else {
    fail('type check', 'tsc --noEmit -p .', run.note ?? `reported errors (exit code ${run.code}); see above`);
    rows.push(['type check', 'FAILED', run.seconds]);
  }
}

/** ESLint, then Prettier's check (both run, so one report shows every finding): one check. */
async function lint() {
  const checks = [
    ['eslint .', ['node_modules/eslint/bin/eslint.js', '.'], 'reported problems'],
    [
      'prettier --check .',
      ['node_modules/prettier/bin/prettier.cjs', '--check', '.'],
      'found files not formatted (`npm run format` formats them)',
    ],
  ];
  const problems = [];
  let seconds = 0;
  for (const [shown, args, finding] of checks) {
    if (interrupted) break;
    const run = await stage('lint', shown, args, {}, 300, undefined, node, { background: sideBySide });
    seconds += run.seconds;
    if (run.code !== 0 || run.note) problems.push(`${shown}: ${run.note ?? `${finding}, exit code ${run.code}`}`);
  }
  if (problems.length === 0) {
    tally.passed++;
    rows.push(['lint', 'passed', seconds]);
  } else {
    fail('lint', 'eslint . && prettier --check .', `${problems.join('; ')}; see above`);
    rows.push(['lint', 'FAILED', seconds]);
  }
}

async function installTestHost() {
  const run = await stage('test host', 'bash scripts/install-test-host.sh', ['scripts/install-test-host.sh'], {}, 900, undefined, 'bash', {
    background: true,
  });
  const ok = run.code === 0 && !run.note;
  if (!ok)
    fail(
      'test host',
      'bash scripts/install-test-host.sh',
      run.note ?? `exit code ${run.code}; the integration and UI stages need it (see above)`,
    );
  rows.push(['test host', ok ? 'ready' : 'FAILED (no integration or UI tests run)', run.seconds]);
  return ok;
}

async function installUnitHost() {
  const run = await stage(
    'test host',
    'bash scripts/install-test-host.sh --unit',
    ['scripts/install-test-host.sh', '--unit'],
    {},
    600,
    undefined,
    'bash',
  );
  const ok = run.code === 0 && !run.note;
  rows.push(['test host', ok ? 'ready (unit)' : 'neovim missing: its test is skipped (see above)', run.seconds]);
}

async function packageForUi() {
  rmSync(uiVsix, { force: true });
  const args = ['node_modules/@vscode/vsce/vsce', 'package', '--no-dependencies', '--out', uiVsix];
  const run = await stage('package', `vsce package --out ${uiVsix}`, args, {}, 300);
  const ok = run.code === 0 && !run.note;
  if (!ok) fail('package', 'vsce package', run.note ?? `exit code ${run.code}; see above`);
  rows.push(['package', ok ? 'done' : 'FAILED (no tests run)', run.seconds]);
  return ok;
}

async function build() {
  const run = await stage('build', 'node esbuild.mjs --tests', ['esbuild.mjs', '--tests'], {}, 300);
  const ok = run.code === 0 && !run.note;
  if (!ok) fail('build', 'node esbuild.mjs --tests', run.note ?? `exit code ${run.code}; see above`);
  rows.push(['build', ok ? 'done' : 'FAILED (no tests run)', run.seconds]);
  return ok;
}

/** Runs a test suite that writes a JSON summary, and adds it up. A crash counts as a failure. */
async function suite(name, args, summaryFile, env, limitSeconds, { background = false } = {}) {
  rmSync(summaryFile, { force: true });
  const run = await stage(name, args.join(' '), args, env, limitSeconds, summaryFile, node, { background });
  let summary;
  try {
    summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
  } catch {
    // no summary: the suite crashed before reporting
  }
  if (summary) {
    tally.passed += summary.passed;
    for (const failure of summary.failures) fail(name, failure.title, failure.error);
    // A failure the summary counts but does not describe still counts.
    const undescribed = summary.failed - summary.failures.length;
    if (undescribed > 0) fail(name, `${undescribed} more failure(s)`, 'see the output above', undescribed);
    if (summary.passed + summary.failed === 0 && !interrupted && !grep && !process.env.AGENT_WORKFLOWS_TEST_FILES)
      fail(name, 'no tests ran', 'the suite ran no test');
    slowest.push([name, summary.fileSeconds ?? {}]);
  }
  if (run.note) fail(name, run.note, '');
  else if (!summary) fail(name, 'crashed', `exit code ${run.code ?? run.signal}, no summary written; see the output above`);
  else if (run.code !== 0 && summary.failed === 0)
    fail(name, `exited with code ${run.code ?? run.signal}`, 'although no test failed; see the output above');
  const outcome = summary ? `${summary.passed} passed, ${summary.failed} failed` : 'CRASHED';
  rows.push([name, outcome + (summary?.pending ? `, ${summary.pending} pending` : '') + (run.note ? ' (killed)' : ''), run.seconds]);
}

/**
 * Runs `program ...args` (node by default) with the terminal, under a time limit; when summaryFile
 * appears and the process is still running EXIT_GRACE_SECONDS later, stops it: a test left
 * something open.
 */
/**
 * Runs one stage's process to its end. A `background` stage runs beside the others: its output is
 * kept (its last 8 MiB) and printed under its own heading when it ends.
 */
function stage(name, shown, args, env, limitSeconds, summaryFile, program = node, { background = false } = {}) {
  console.log(`\n==> ${name}: ${shown}${background ? ' (in the background; its output follows when it ends)' : ''}`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(program, args, {
      stdio: background ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: { ...process.env, ...env },
    });
    running.add(child);
    // A background stage yields the CPU to the host lane, whose stages wait on code-server and
    // Chromium and have time limits of their own; what it starts inherits the priority.
    if (background && child.pid !== undefined) {
      try {
        setPriority(child.pid, BACKGROUND_NICENESS);
      } catch {
        // Not allowed here (some containers): it runs at the normal priority.
      }
    }
    // The output's last chunks, at most OUTPUT_KEPT bytes (older chunks go first).
    const chunks = [];
    let kept = 0;
    const keep = (chunk) => {
      chunks.push(chunk);
      kept += chunk.length;
      while (kept - chunks[0].length >= OUTPUT_KEPT) kept -= chunks.shift().length;
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let note;
    let killTimer;
    const stop = (why) => {
      if (note) return;
      note = why;
      console.error(`\n${name}: ${why}; stopping it`);
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    };
    const limit = setTimeout(() => stop(`did not finish within ${limitSeconds} s`), limitSeconds * 1000);
    let reportedAt;
    const watch = summaryFile
      ? setInterval(() => {
          if (reportedAt === undefined && existsSync(summaryFile)) reportedAt = Date.now();
          if (reportedAt !== undefined && Date.now() - reportedAt > EXIT_GRACE_SECONDS * 1000) {
            stop(`still running ${EXIT_GRACE_SECONDS} s after its tests finished (a test left a timer, socket, server or process open)`);
          }
        }, 500)
      : undefined;
    const finish = (code, signal) => {
      clearTimeout(limit);
      clearTimeout(killTimer);
      clearInterval(watch);
      running.delete(child);
      if (background) {
        const output = Buffer.concat(chunks).toString('utf8');
        process.stdout.write(`\n==> ${name}: ended after ${Math.round((Date.now() - started) / 1000)} s\n${output}`);
      }
      resolve({ code, signal, note, seconds: (Date.now() - started) / 1000 });
    };
    child.once('error', (error) => {
      note ??= `could not start: ${error.message}`;
      finish(null, null);
    });
    child.once('exit', finish);
  });
}

/** NODE_OPTIONS plus --enable-source-maps: stack traces of the bundled tests point into the .ts files. */
function withSourceMaps() {
  return `${process.env.NODE_OPTIONS ?? ''} --enable-source-maps`.trim();
}

function fail(stage, title, error, count = 1) {
  tally.failed += count;
  failures.push({ stage, title, error: String(error ?? '') });
}

function report() {
  console.log('\n==> results');
  for (const [name, outcome, seconds] of rows) {
    console.log(`  ${name.padEnd(12)} ${outcome.padEnd(40)} ${seconds.toFixed(1).padStart(6)} s`);
  }
  if (interrupted) console.log(`  interrupted by ${interrupted}`);
  for (const [name, fileSeconds] of slowest) {
    const files = Object.entries(fileSeconds)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5);
    if (files.length)
      console.log(`  slowest ${name} files: ${files.map(([file, seconds]) => `${file} ${seconds.toFixed(1)} s`).join(', ')}`);
  }
  if (failures.length) {
    console.log('\nfailures:');
    failures.forEach(({ stage, title, error }, i) => {
      const firstLine = error.split('\n').find((line) => line.trim()) ?? '';
      console.log(`  ${i + 1}) [${stage}] ${title}${firstLine ? `\n     ${firstLine.trim()}` : ''}`);
    });
  }
  console.log(`\n${tally.passed} passed, ${tally.failed} failed`);
}

function parseArgs(args) {
  const parsed = {};
  for (let i = 0; i < args.length; i += 2) {
    const [name, value] = [args[i], args[i + 1]];
    if (name !== '--only' && name !== '--grep') usage(`unknown argument ${name}`);
    if (value === undefined) usage(`${name} needs a value`);
    parsed[name.slice(2)] = value;
  }
  return parsed;
}

function usage(message) {
  console.error(`scripts/test.mjs: ${message}\nusage: node scripts/test.mjs [--only ${STAGES.join('|')}] [--grep <regexp>]`);
  process.exit(2);
}
