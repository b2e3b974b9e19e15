// The language worker (dist/validationWorker.js): validates agent texts, and lists their symbols for
// the outline, in a worker thread so that parsing a large or hostile file never blocks the extension
// host. One request at a time: { id, task, text } in, { id, result } (or { id, error } for a bug)
// out. Started and bounded by ValidationWorker.
import { parentPort } from 'node:worker_threads';
import { documentSymbols } from '../core/language/navigation';
import { validateAgentText } from '../core/validation/validate';
import type { WorkerReply, WorkerRequest } from './validationWorkerClient';
import { errorDetail } from '../core/errors';

parentPort?.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const result =
      request.task === 'symbols'
        ? documentSymbols(request.text)
        : validateAgentText(request.text, request.environmentNames ? { environmentNames: request.environmentNames } : {}).problems;
    reply = { id: request.id, result };
  } catch (error) {
    // The core never throws for bad input; a throw is a bug, reported rather than lost.
    reply = { id: request.id, error: errorDetail(error) };
  }
  parentPort?.postMessage(reply);
});
