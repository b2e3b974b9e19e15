// The language worker in the browser (dist/web/validationWorker.js): a Web Worker started by
// webWorkerThread.ts, answering the same requests as the desktop's worker thread
// (validationWorker.ts) for the tasks that need no disk: validation, the outline, and a test file's
// checks with its agent's text given by the host (webTestFileChecks.ts). A test run's suite
// (testRun) is the desktop's: the Test Explorer runs agents in Node.
import { basename, dirname, resolve } from 'node:path';
import { LineIndex } from '../core/document/lineIndex';
import { outlineOf } from '../core/language/outline';
import { validateTestText } from '../core/testing/testFile';
import { validateAgentText } from '../core/validation/validate';
import type { TestFileSummary, WorkerReply, WorkerRequest, WorkerTasks } from './validationWorkerClient';
import { errorDetail } from '../core/errors';

/** The worker's global scope, as much of it as is used (the project's types are Node's, not the DOM's). */
interface WorkerScope {
  onmessage: ((event: { readonly data: WorkerRequest }) => void) | null;
  postMessage(reply: WorkerReply): void;
}
const scope = globalThis as unknown as WorkerScope;

scope.onmessage = ({ data: request }) => {
  let reply: WorkerReply;
  try {
    reply = { id: request.id, result: resultOf(request) };
  } catch (error) {
    // The core never throws for bad input; a throw is a bug, reported rather than lost.
    reply = { id: request.id, error: errorDetail(error) };
  }
  scope.postMessage(reply);
};

function resultOf(request: WorkerRequest): WorkerTasks[keyof WorkerTasks] {
  switch (request.task) {
    case 'symbols':
      return outlineOf(request.fileKind ?? 'agent', request.text);
    case 'validate':
      return validateAgentText(request.text, request.environments ? { environments: request.environments } : {}).problems;
    case 'testFile':
      return testFileChecks(request);
    default:
      throw new Error(
        `The browser's language worker loads no test run (task ${request.task}): the Test Explorer needs the desktop VS Code.`,
      );
  }
}

/** A test file checked against its agent, both from their texts (paths are URI paths, '/'-separated). */
function testFileChecks(request: WorkerRequest): TestFileSummary {
  const file = request.file ?? '';
  const agentTexts = new Map(request.agentTexts ?? []);
  let agentFile: string | undefined;
  const result = validateTestText(request.text, basename(file), (agentPath) => {
    agentFile = resolve(dirname(file), agentPath);
    const text = agentTexts.get(agentFile);
    if (text === undefined) return { unreadable: 'there is no file of that name.', agentFilesThere: request.agentFilesThere ?? [] };
    return validateAgentText(text).model;
  });
  const lines = new LineIndex(request.text);
  return {
    ...(agentFile !== undefined ? { agentFile } : {}),
    cases: (result.suite?.cases ?? []).map((testCase) => ({ name: testCase.name, range: lines.range(testCase.span) })),
    problems: result.problems,
  };
}
