// The language worker (dist/validationWorker.js): validates agent texts, lists their symbols for
// the outline, and reads test files for the Test Explorer and for its runs, in a worker thread so that parsing a
// large or hostile file never blocks the extension host. One request at a time: { id, task, text }
// in, { id, result } (or { id, error } for a bug) out. Started and bounded by ValidationWorker.
import { parentPort } from 'node:worker_threads';
import { outlineOf } from '../core/language/outline';
import { loadSuiteFromText, readText } from '../core/testing/loadSuite';
import { validateAgentText } from '../core/validation/validate';
import { testFileSummary } from './validationWorkerClient';
import type { TestFileForRun, TestFileSummary, WorkerReply, WorkerRequest, WorkerTasks } from './validationWorkerClient';
import { errorDetail } from '../core/errors';

parentPort?.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { id: request.id, result: resultOf(request) };
  } catch (error) {
    // The core never throws for bad input; a throw is a bug, reported rather than lost.
    reply = { id: request.id, error: errorDetail(error) };
  }
  parentPort?.postMessage(reply);
});

function resultOf(request: WorkerRequest): WorkerTasks[keyof WorkerTasks] {
  switch (request.task) {
    case 'symbols':
      return outlineOf(request.fileKind ?? 'agent', request.text);
    case 'testFile':
      return readTestFile(request.file ?? '', request.text, new Map(request.agentTexts ?? [])).summary;
    case 'testRun':
      return readTestFile(request.file ?? '', request.text, new Map(request.agentTexts ?? []));
    default:
      return validateAgentText(request.text, request.environments ? { environments: request.environments } : {}).problems;
  }
}

/**
 * A test file and its agent (an editor's unsaved text, else read from disk) checked: what the Test
 * Explorer shows of them, and the loaded suite a run runs (plain data: it is copied to the host).
 */
function readTestFile(file: string, text: string, agentTexts: ReadonlyMap<string, string>): TestFileForRun {
  let agentFile: string | undefined;
  const loaded = loadSuiteFromText(file, text, (path) => {
    agentFile = path;
    const unsaved = agentTexts.get(path);
    return unsaved !== undefined ? { text: unsaved } : readText(path);
  });
  const summary: TestFileSummary = testFileSummary(loaded, text, agentFile);
  return 'suite' in loaded ? { summary, loaded } : { summary };
}
