// The validation worker (dist/validationWorker.js): validates agent texts in a worker thread so a
// slow check never blocks the extension host. One request at a time: { id, text } in,
// { id, problems } (or { id, error } for a bug) out. Started and bounded by ValidationWorker.
import { parentPort } from 'node:worker_threads';
import { validateAgentText } from '../core/validate';
import type { WorkerReply, WorkerRequest } from './validationWorkerClient';

parentPort?.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { id: request.id, problems: validateAgentText(request.text).problems };
  } catch (error) {
    // The core never throws for bad input; a throw is a bug, reported rather than lost.
    reply = { id: request.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort?.postMessage(reply);
});
