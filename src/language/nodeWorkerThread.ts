// The language worker as a Node worker thread (desktop VS Code and the tests): dist/validationWorker.js.
import { Worker } from 'node:worker_threads';
import type { StartThread, WorkerReply } from './validationWorkerClient';

export function nodeWorkerThread(scriptPath: string): StartThread {
  return (events) => {
    const worker = new Worker(scriptPath);
    worker.on('message', (reply: WorkerReply) => events.onMessage(reply));
    worker.on('error', (error) => events.onFailure(error.message));
    worker.on('exit', (code) => events.onFailure(`the validation worker exited (code ${code})`));
    return {
      postMessage: (request) => worker.postMessage(request),
      terminate: () => void worker.terminate(),
    };
  };
}
