// The language worker as a Web Worker (VS Code for the Web runs the extension in a web worker, which
// may start workers of its own). VS Code for the Web starts no worker from a remote extension's own
// URL, so the script's text is read from the extension (readScript) and started from a blob: URL.
import { errorMessage } from '../core/errors';
import { loadOnce } from '../core/loadOnce';
import type { StartThread, WorkerReply, WorkerRequest } from './validationWorkerClient';

/** A browser's Worker, as much of it as is used (the project's types are Node's, not the DOM's). */
interface BrowserWorker {
  postMessage(message: WorkerRequest): void;
  terminate(): void;
  onmessage: ((event: { readonly data: WorkerReply }) => void) | null;
  onerror: ((event: { readonly message?: string; preventDefault(): void }) => void) | null;
}
interface BrowserGlobals {
  readonly Worker?: new (url: string, options?: { name?: string }) => BrowserWorker;
  readonly Blob: new (parts: string[], options: { type: string }) => object;
  readonly URL: { createObjectURL(blob: object): string };
}

export function webWorkerThread(readScript: () => Promise<string>): StartThread {
  // One blob: URL for every worker of the window (a worker stopped for taking too long is started again).
  const scriptUrl = loadOnce(async () => {
    const globals = globalThis as unknown as BrowserGlobals;
    return globals.URL.createObjectURL(new globals.Blob([await readScript()], { type: 'text/javascript' }));
  });
  return (events) => {
    let worker: BrowserWorker | undefined;
    let terminated = false;
    // Requests made while the script is being read.
    const queued: WorkerRequest[] = [];
    scriptUrl()
      .then((url) => {
        if (terminated) return;
        const WorkerClass = (globalThis as unknown as BrowserGlobals).Worker;
        if (!WorkerClass) throw new Error('this browser gives extensions no Worker');
        const started = new WorkerClass(url, { name: 'Agent Workflows language worker' });
        started.onmessage = (event) => events.onMessage(event.data);
        started.onerror = (event) => {
          event.preventDefault();
          // A browser's worker outlives an uncaught error; the client starts a new one for the next task.
          started.terminate();
          events.onFailure(`the validation worker failed: ${event.message ?? 'an error without a message'}`);
        };
        worker = started;
        for (const request of queued.splice(0)) started.postMessage(request);
      })
      .catch((error: unknown) => events.onFailure(`the validation worker could not start: ${errorMessage(error)}`));
    return {
      postMessage: (request) => (worker ? worker.postMessage(request) : void queued.push(request)),
      terminate: () => {
        terminated = true;
        queued.length = 0;
        worker?.terminate();
      },
    };
  };
}
