// The language worker (dist/validationWorker.js): validates agent texts, lists their symbols for
// the outline, and reads test files for the Test Explorer, in a worker thread so that parsing a
// large or hostile file never blocks the extension host. One request at a time: { id, task, text }
// in, { id, result } (or { id, error } for a bug) out. Started and bounded by ValidationWorker.
import { parentPort } from 'node:worker_threads';
import { documentSymbols } from '../core/language/navigation';
import { loadSuiteFromText, readText } from '../core/testing/loadSuite';
import { validateAgentText } from '../core/validation/validate';
import { testFileSummary } from './validationWorkerClient';
import type { TestFileSummary, WorkerReply, WorkerRequest, WorkerTasks } from './validationWorkerClient';
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
      return documentSymbols(request.text);
    case 'testFile':
      return summarizeTestFile(request.file ?? '', request.text, new Map(request.agentTexts ?? []));
    default:
      return validateAgentText(request.text, request.environments ? { environments: request.environments } : {}).problems;
  }
}

/** A test file and its agent (an editor's unsaved text, else read from disk) checked, as the Test Explorer shows them. */
function summarizeTestFile(file: string, text: string, agentTexts: ReadonlyMap<string, string>): TestFileSummary {
  let agentFile: string | undefined;
  const loaded = loadSuiteFromText(file, text, (path) => {
    agentFile = path;
    const unsaved = agentTexts.get(path);
    return unsaved !== undefined ? { text: unsaved } : readText(path);
  });
  return testFileSummary(loaded, text, agentFile);
}
