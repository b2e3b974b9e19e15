// The language worker in the browser (dist/web/validationWorker.js): a Web Worker started by
// webWorkerThread.ts, answering the same requests as the desktop's worker thread
// (validationWorker.ts) for the tasks that need only the text: validation and the outline. Reading
// a test file with its agent from disk is the Test Explorer's, which the browser build leaves out.
import { documentSymbols } from '../core/language/navigation';
import { validateAgentText } from '../core/validation/validate';
import type { WorkerReply, WorkerRequest, WorkerTasks } from './validationWorkerClient';
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
      return documentSymbols(request.text);
    case 'validate':
      return validateAgentText(request.text, request.environments ? { environments: request.environments } : {}).problems;
    default:
      throw new Error(
        `The browser's language worker does not read test files (task ${request.task}): the Test Explorer needs the desktop VS Code.`,
      );
  }
}
